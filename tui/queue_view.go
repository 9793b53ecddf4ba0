package tui

import (
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// Drawing the queue: the counts, the filter line, the column layout by
// width and the rows.

// queue columns, by terminal width.
type queueCols struct {
	status, caseID, server, question, outcome, class, suggested, markers int
	statusWords                                                          bool
}

func layoutQueue(w int) queueCols {
	// Narrow: ids and servers give way so the question stays readable.
	c := queueCols{status: 2, caseID: 14, server: 11, outcome: 8, class: 10, markers: 3}
	if w >= 100 {
		c.caseID, c.server = 20, 18
	}
	if w >= 120 {
		c = queueCols{status: 12, caseID: 22, server: 22, outcome: 13, class: 11, markers: 4, statusWords: true}
	}
	if w >= 140 {
		// Wide: the label and the machine's suggestion in two columns.
		c.suggested = 11
	}
	if w >= 180 {
		c.caseID, c.server = 30, 26
	}
	fixed := c.status + c.caseID + c.server + c.outcome + c.class + c.markers + 7
	if c.suggested > 0 {
		fixed += c.suggested + 1
	}
	c.question = max(10, w-fixed)
	return c
}

func statusGlyph(s model.Status) string {
	switch s {
	case model.StatusConfirmed:
		return "●"
	case model.StatusPending:
		return "◑"
	case model.StatusSuggested:
		return "◐"
	}
	return "○"
}

func statusStyle(sty *themes.Styles, s model.Status) func(...string) string {
	switch s {
	case model.StatusConfirmed:
		return sty.Confirmed.Render
	case model.StatusSuggested, model.StatusPending:
		return sty.Suggested.Render
	}
	return sty.Unlabeled.Render
}

func classStyle(sty *themes.Styles, class string) func(...string) string {
	for i, c := range model.Classes {
		if string(c) == class {
			return sty.Class[i].Render
		}
	}
	return sty.Subtle.Render
}

func (q *queueScreen) view(sty *themes.Styles, w, h int) string {
	var lines []string
	lines = append(lines, q.countsLine(sty, w), q.filterLine(sty, w))
	cols := layoutQueue(w)
	header := " " + cell("", cols.status) + " " + cell("CASE", cols.caseID) + " " + cell("SERVER", cols.server) + " " +
		cell("QUESTION", cols.question) + " " + cell("OUTCOME", cols.outcome) + " " + cell("CLASS", cols.class) + " "
	if cols.suggested > 0 {
		header += cell("SUGGESTED", cols.suggested) + " "
	}
	header += rcell("◆", cols.markers)
	lines = append(lines, sty.Header.Render(cell(header, w)))
	listH := max(1, h-len(lines))
	switch {
	case q.err != nil:
		lines = append(lines, sty.Error.Render(" cannot list traces: "+model.CleanLine(q.err.Error())))
	case !q.loaded && len(q.rows) == 0:
		lines = append(lines, sty.Subtle.Render(" loading…"))
	case len(q.rows) == 0:
		if filterActive(q.filter) {
			lines = append(lines, sty.Subtle.Render(" no trace matches; esc clears the filters"))
		} else {
			lines = append(lines, sty.Subtle.Render(" no traces yet: tracelab import FILE…, or tracelab demo"))
		}
	}
	end := min(len(q.rows), q.offset+listH)
	for i := q.offset; i < end; i++ {
		line, ok := q.rowCache[q.rowKey(i, w)]
		if !ok {
			line = q.rowView(sty, cols, q.rows[i], i == q.cursor, w)
		}
		lines = append(lines, line)
	}
	if end == len(q.rows) && q.loading && len(q.rows) > 0 && len(lines) < h {
		lines = append(lines, sty.Subtle.Render(" loading more…"))
	}
	return strings.Join(lines, "\n")
}

func (q *queueScreen) rowView(sty *themes.Styles, c queueCols, r app.TraceSummary, selected bool, w int) string {
	caseID := r.CaseID
	if caseID == "" {
		caseID = r.TraceID
	}
	status := statusGlyph(r.Status)
	if c.statusWords {
		status += " " + string(r.Status)
	}
	edited := r.Edited && r.Status == model.StatusSuggested
	if edited {
		status = "✎" // a person's unconfirmed change: not the machine's suggestion (edited.go)
		if c.statusWords {
			status += " edited"
		}
	}
	if r.Review != "" {
		status = "⚑" // changed since a person confirmed it (tracelab serve)
		if c.statusWords {
			status += " changed"
		}
	}
	by := reservedByOther(r, q.labeler)
	if by != "" {
		status = reservedCell(by, c.statusWords)
	}
	class := r.Class()
	classText := class
	switch {
	case c.suggested > 0:
		class, classText = r.LabelClass, r.LabelClass // the suggestion has its own column
		if class == "" {
			classText = "-"
		}
	case class == "":
		classText = "-"
	case r.LabelClass == "":
		classText = class + "?" // a suggestion, not a label
	}
	markers := ""
	if r.Markers > 0 {
		markers = itoa(r.Markers)
	}
	cells := []string{
		cell(status, c.status), cell(model.CleanLine(caseID), c.caseID), cell(model.CleanLine(r.Server), c.server),
		cell(model.CleanLine(r.Question), c.question), cell(string(r.Outcome), c.outcome), cell(classText, c.class),
	}
	if c.suggested > 0 {
		sug := r.SuggestedClass
		if sug == "" {
			sug = "-"
		}
		cells = append(cells, cell(sug, c.suggested))
	}
	cells = append(cells, rcell(markers, c.markers))
	if selected {
		return sty.Selected.Render(cell("▌"+strings.Join(cells, " "), w))
	}
	if by != "" {
		cells[0] = sty.Warn.Render(cells[0]) // someone else's: a warning, whatever its status
	} else if r.Review != "" || edited {
		cells[0] = sty.Warn.Render(cells[0]) // a person must look again, or confirm their change
	} else {
		cells[0] = statusStyle(sty, r.Status)(cells[0])
	}
	cells[1] = sty.Text.Render(cells[1])
	cells[2] = sty.Subtle.Render(cells[2])
	cells[3] = sty.Text.Render(cells[3])
	cells[4] = outcomeStyle(sty, r.Outcome)(cells[4])
	cells[5] = classStyle(sty, class)(cells[5])
	if c.suggested > 0 {
		cells[6] = classStyle(sty, r.SuggestedClass)(cells[6])
	}
	cells[len(cells)-1] = sty.Warn.Render(cells[len(cells)-1])
	return " " + strings.Join(cells, " ")
}

func outcomeStyle(sty *themes.Styles, o model.Outcome) func(...string) string {
	switch o {
	case model.OutcomePass:
		return sty.OK.Render
	case model.OutcomeFailure:
		return sty.Error.Render
	case model.OutcomeRetry, model.OutcomeClarification:
		return sty.Warn.Render
	}
	return sty.Subtle.Render
}

// countsLine is the header: totals per status and per class.
func (q *queueScreen) countsLine(sty *themes.Styles, w int) string {
	if !q.countsLoaded {
		return sty.Subtle.Render(" counting…")
	}
	c := q.counts
	// Under 120 columns the words shorten so every count fits.
	short := w < 120
	parts := []string{sty.Bold.Render(humanInt(c.Total)) + sty.Subtle.Render(" traces")}
	for _, s := range []model.Status{model.StatusNone, model.StatusSuggested, model.StatusPending, model.StatusConfirmed} {
		if s == model.StatusPending && c.ByStatus[s] == 0 {
			continue // shown only where a suite brought gold without labels
		}
		word := " " + string(s) + " "
		if short {
			word = ""
		}
		parts = append(parts, statusStyle(sty, s)(statusGlyph(s)+word+humanInt(c.ByStatus[s])))
	}
	cls := []string{}
	for i, cl := range model.Classes {
		name := string(cl)
		if short {
			name = name[:3]
		}
		cls = append(cls, sty.Class[i].Render(name+" "+humanInt(c.ByClass[string(cl)])))
	}
	cls = append(cls, sty.Subtle.Render("none "+humanInt(c.ByClass["none"])))
	line := " " + strings.Join(parts, "  ") + sty.Faint.Render("  │  ") + strings.Join(cls, " ")
	if c.Disputed > 0 || q.filter.Disputed {
		// The adjudication queue's size (d shows it), next to the others.
		word := " disagree "
		if short {
			word = " "
		}
		line += sty.Faint.Render("  │  ") + sty.Warn.Render("≠"+word+humanInt(c.Disputed))
	}
	return cell(line+q.stepCountText(sty), w)
}

// filterLine shows the search input, the filter chips and the sort.
func (q *queueScreen) filterLine(sty *themes.Styles, w int) string {
	sortText := sty.Subtle.Render("sort " + string(q.sort))
	if q.desc {
		sortText += sty.Subtle.Render(" ↓")
	} else {
		sortText += sty.Subtle.Render(" ↑")
	}
	var left string
	if q.searching {
		left = " " + q.search.View()
	} else {
		chips := q.chips(sty)
		if len(chips) == 0 {
			left = sty.Subtle.Render(" no filter  (/ search  f filter  s sort)")
		} else {
			left = " " + strings.Join(chips, " ")
		}
	}
	return spread(left, sortText+" ", w)
}

func (q *queueScreen) chips(sty *themes.Styles) []string {
	var out []string
	add := func(name string, vals []string) {
		if len(vals) > 0 {
			out = append(out, sty.ChipKey.Render(name+":")+sty.Chip.Render(model.CleanLine(strings.Join(vals, ","))))
		}
	}
	f := q.filter
	if f.Search != "" {
		add("search", []string{strconv.Quote(f.Search)})
	}
	add("class", f.Classes)
	add("status", toStrings(f.Statuses))
	add("server", f.Servers)
	add("tool", f.Tools)
	add("role", f.Roles)
	add("outcome", toStrings(f.Outcomes))
	if f.QueuedOnly {
		add("sample", []string{"queued"})
	}
	if f.Disputed {
		add("raters", []string{"disagree"})
	}
	switch {
	case len(f.TraceIDs) > 0 && q.judgeIDs(f):
		add("judge", []string{"≠ scorer or unsure " + strconv.Itoa(len(f.TraceIDs))})
	case len(f.TraceIDs) > 0:
		add("traces", []string{strconv.Itoa(len(f.TraceIDs)) + " chosen"})
	}
	return out
}

func toStrings[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func (q *queueScreen) rowKey(i, w int) rowKey {
	r := q.rows[i]
	return rowKey{r.TraceID, r.CaseID, r.LabelClass, r.SuggestedClass, reservedByOther(r, q.labeler), r.Status, r.Review != "", r.Edited, r.Markers, i == q.cursor, w}
}

// cacheRows draws the rows on screen that are not drawn yet, after every
// update: view only reads the cache (bubbles' rule: View changes nothing).
func (q *queueScreen) cacheRows() {
	if q.width <= 0 || q.sty == nil {
		return
	}
	if q.rowCache == nil || len(q.rowCache) > 4096 {
		q.rowCache = map[rowKey]string{}
	}
	cols := layoutQueue(q.width)
	for i := q.offset; i < min(len(q.rows), q.offset+q.height); i++ {
		k := q.rowKey(i, q.width)
		if _, ok := q.rowCache[k]; !ok {
			q.rowCache[k] = q.rowView(q.sty, cols, q.rows[i], i == q.cursor, q.width)
		}
	}
}
