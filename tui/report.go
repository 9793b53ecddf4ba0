package tui

import (
	"fmt"
	"github.com/tracelab-dev/tracelab/app"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// reportScreen shows the per-server report side by side: the six metrics,
// failures by class as bars, and how many cases need a human.
type reportScreen struct {
	*env
	reports []model.Report
	pending map[string]int // per server: cases whose gold is confirmed and label pending
	// progress is each rater's: labeled, confirmed, disagreements open.
	progress []app.LabelerProgress
	// history is the recorded reports (export, check), oldest first,
	// drawn as a sparkline beside each metric.
	history []app.HistoryEntry
	loaded  bool
	loading bool
	missing bool // no report function was wired
	err     error
	seq     int // the load whose answer is awaited; older answers are dropped
	cursor  int // failure class under the cursor
	offset  int // first line drawn when the report is taller than the screen

	// the terminal's size, for the offset (report_scroll.go), and the
	// report's keys as data (report_keys.go)
	width, height int
	cmds          commands
}

type reportMsg struct {
	seq      int
	reports  []model.Report
	labels   []app.ServerLabels
	progress []app.LabelerProgress
	history  []app.HistoryEntry
	missing  bool
	err      error
}

func (reportMsg) owner() screenID { return screenReport }

func (r *reportScreen) update(h host, msg tea.Msg) tea.Cmd {
	defer r.syncScroll()
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		r.width, r.height = msg.Width, msg.Height
	case shownMsg:
		return r.load()
	case tea.KeyPressMsg:
		return r.key(h, msg)
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			r.move(-1)
		} else {
			r.move(1)
		}
	case reportMsg:
		if msg.seq != r.seq {
			return nil
		}
		r.loading, r.loaded, r.missing, r.err = false, true, msg.missing, loadErr(msg.err)
		r.reports, r.progress, r.history = msg.reports, msg.progress, msg.history
		r.pending = map[string]int{}
		for _, l := range msg.labels {
			r.pending[l.Server] = l.LabelPending
		}
	}
	return nil
}

// load builds the report (the engine scores what is stale first).
func (r *reportScreen) load() tea.Cmd {
	r.loading = true
	r.seq++
	eng, ctx, seq := r.eng, r.ctx, r.seq
	return func() tea.Msg {
		rs, labels, err := eng.Suite.ReportWithLabels(ctx, false)
		if err != nil {
			return reportMsg{seq: seq, err: err}
		}
		prog, err := eng.Raters.Progress(ctx)
		if err != nil {
			return reportMsg{seq: seq, err: err}
		}
		hist, err := eng.Suite.ReportHistory(ctx, sparkLen)
		return reportMsg{seq: seq, reports: rs, labels: labels, progress: prog, history: hist, err: err}
	}
}

func (r *reportScreen) move(d int) {
	r.cursor = clamp(r.cursor+d, 0, len(model.Classes)-1)
}

func fmtRate(p *float64) string {
	if p == nil {
		return "–"
	}
	return strconv.FormatFloat(*p, 'f', 2, 64)
}

func fmtUSD(p *float64) string {
	if p == nil {
		return "–"
	}
	return "$" + strconv.FormatFloat(*p, 'f', 4, 64)
}

// sparkLen is how many recorded reports the sparklines show at most.
const sparkLen = 12

// metricLabel is a metric's row name on the screen (narrower than the
// page's where it must fit the label column).
func metricLabel(m model.Metric) string {
	switch m.Key {
	case "clarification_loops_per_task":
		return "clarifications / task"
	}
	return m.Name
}

// sparkBlocks are the sparkline's eight levels, lowest first.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws a server's metric across the last w recorded reports:
// rates on 0..1, counts and dollars on 0..their largest value; a report
// without a value (the server absent, an empty denominator) is a space.
func sparkline(hist []app.HistoryEntry, server string, m model.Metric, w int) string {
	if len(hist) > w {
		hist = hist[len(hist)-w:]
	}
	vals := make([]*float64, len(hist))
	hi := 1.0
	if m.USD || m.Key == "clarification_loops_per_task" {
		hi = 0
	}
	for i, h := range hist {
		for _, rep := range h.Reports {
			if rep.Server == server {
				vals[i] = m.Of(rep)
			}
		}
		if vals[i] != nil {
			hi = max(hi, *vals[i])
		}
	}
	var b strings.Builder
	for _, v := range vals {
		switch {
		case v == nil:
			b.WriteRune(' ')
		case hi <= 0:
			b.WriteRune(sparkBlocks[0])
		default:
			level := int(*v / hi * float64(len(sparkBlocks)-1))
			b.WriteRune(sparkBlocks[clamp(level, 0, len(sparkBlocks)-1)])
		}
	}
	return b.String()
}

func (r *reportScreen) view(sty *themes.Styles, w, h int) string {
	lines, cursorLine := r.lines(sty, w)
	if cursorLine < 0 {
		return strings.Join(lines, "\n")
	}
	// The class under the cursor is in view (update keeps the offset
	// there, report_scroll.go); the table header (line 0) and the cases
	// row (line 1), which every other number is out of, stay on top.
	if len(lines) > h && h > reportPinned {
		body, bodyH := lines[reportPinned:], h-reportPinned
		off := clamp(r.offset, 0, len(body)-bodyH)
		lines = append(slices.Clone(lines[:reportPinned]), body[off:]...)
	}
	return strings.Join(lines, "\n")
}

// lines is the report drawn whole, and the line of the class under the
// cursor (-1: a message, no table).
func (r *reportScreen) lines(sty *themes.Styles, w int) ([]string, int) {
	switch {
	case r.err != nil:
		return []string{sty.Error.Render(" cannot build the report: " + model.CleanLine(r.err.Error()))}, -1
	case r.missing:
		return []string{sty.Subtle.Render(" no report in this build: score the traces (tracelab score), then tracelab report")}, -1
	case !r.loaded:
		return []string{sty.Subtle.Render(" building the report…")}, -1
	}
	labelW := 22
	if len(r.reports) == 0 {
		// No case has a person's gold yet; the labelers may still be under way.
		lines := append([]string{sty.Subtle.Render(" nothing to report yet: label and confirm some cases first")},
			r.progressLines(sty, labelW, w)...)
		return lines, -1
	}
	colW := max(12, min(28, (w-labelW-2)/len(r.reports)))
	var lines []string
	head := " " + cell("", labelW)
	for _, rep := range r.reports {
		head += rcell(model.CleanLine(rep.Server), colW)
	}
	lines = append(lines, sty.Header.Render(cell(head, w)))
	row := func(name string, val func(model.Report) string) {
		s := " " + sty.Subtle.Render(cell(name, labelW))
		for _, rep := range r.reports {
			s += sty.Text.Render(rcell(val(rep), colW))
		}
		lines = append(lines, s)
	}
	row("cases", func(x model.Report) string { return humanInt(x.Cases) })
	// How much of each number is the scorer's: a pending label counts the
	// scorer's verdict.
	row("  label pending", func(x model.Report) string { return humanInt(r.pending[x.Server]) })
	row("correct", func(x model.Report) string { return humanInt(x.Correct) })
	row("correct and grounded", func(x model.Report) string { return humanInt(x.CorrectAndGrounded) })
	// The seed's metrics, each with its recorded history as a sparkline
	// when there is one and the columns have room.
	sw := min(len(r.history), sparkLen, colW-8)
	metric := func(m model.Metric) {
		s := " " + sty.Subtle.Render(cell(metricLabel(m), labelW))
		for _, rep := range r.reports {
			val := fmtRate(m.Of(rep))
			if m.USD {
				val = fmtUSD(m.Of(rep))
			}
			if sw < 2 {
				s += sty.Text.Render(rcell(val, colW))
				continue
			}
			s += sty.Text.Render(rcell(val, colW-sw-1)) + " " + sty.Spark.Render(cell(sparkline(r.history, rep.Server, m, sw), sw))
		}
		lines = append(lines, s)
	}
	for _, m := range model.Metrics {
		if !m.USD {
			metric(m)
		}
	}
	row("cost total", func(x model.Report) string { return fmt.Sprintf("$%.4f", x.CostTotalUSD) })
	for _, m := range model.Metrics {
		if m.USD {
			metric(m)
		}
	}
	review := " " + sty.Subtle.Render(cell("needs human review", labelW))
	for _, rep := range r.reports {
		st := sty.OK
		if rep.NeedsHumanReview > 0 {
			st = sty.Warn
		}
		review += st.Render(rcell(humanInt(rep.NeedsHumanReview), colW))
	}
	lines = append(lines, review)
	if sw >= 2 {
		lines = append(lines, sty.Subtle.Render(cell(fmt.Sprintf(" sparklines: each metric in the last %d reports export and check recorded, oldest left", sw), w)))
	}
	lines = append(lines, r.progressLines(sty, labelW, w)...)
	lines = append(lines, "", sty.Bold.Render(" Failures by class")+sty.Subtle.Render("  (enter opens the queue filtered to it)"))
	maxN := 1
	for _, rep := range r.reports {
		for _, n := range rep.FailuresByClass {
			maxN = max(maxN, n)
		}
	}
	nameW := 0
	for _, rep := range r.reports {
		nameW = max(nameW, min(24, len(model.CleanLine(rep.Server))))
	}
	barW := max(4, w-labelW-nameW-12)
	cursorLine := 0
	for ci, c := range model.Classes {
		if ci == r.cursor {
			cursorLine = len(lines) + len(r.reports) - 1
		}
		for si, rep := range r.reports {
			n := rep.FailuresByClass[string(c)]
			full, empty := bar(n, maxN, barW)
			name := cell("", labelW)
			if si == 0 {
				name = cell(string(c), labelW)
			}
			if ci == r.cursor && si == 0 {
				name = sty.Selected.Render(name)
			} else {
				name = sty.Class[ci].Render(name)
			}
			lines = append(lines, " "+name+" "+sty.Subtle.Render(cell(model.CleanLine(rep.Server), nameW))+" "+
				sty.Class[ci].Render(strings.Repeat("█", full))+sty.BarEmpty.Render(strings.Repeat("·", empty))+" "+
				sty.Text.Render(itoa(n)))
		}
	}
	return lines, cursorLine
}

// progressLines is how far each rater got: cases labeled, of those
// confirmed by them, and the disagreements they are part of still open
// (none without raters).
func (r *reportScreen) progressLines(sty *themes.Styles, labelW, w int) []string {
	if len(r.progress) == 0 {
		return nil
	}
	const colW = 12
	lines := []string{"", sty.Header.Render(cell(" "+cell("Labelers", labelW)+rcell("labeled", colW)+rcell("confirmed", colW)+
		rcell("disagree", colW), w))}
	for _, p := range r.progress {
		name := model.CleanLine(p.Rater)
		if p.Kind == model.RaterMachine {
			name += " (suggestions)"
		}
		open := sty.OK
		if p.Disputed > 0 {
			open = sty.Warn
		}
		lines = append(lines, " "+sty.Subtle.Render(cell(name, labelW))+sty.Text.Render(rcell(humanInt(p.Labeled), colW))+
			sty.Text.Render(rcell(humanInt(p.Confirmed), colW))+open.Render(rcell(humanInt(p.Disputed), colW)))
	}
	return lines
}
