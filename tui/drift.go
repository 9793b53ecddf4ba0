package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// toolDriftScreen lists the tools whose contract changed between two
// consecutive imported runs of a server (app.DriftAcrossRuns), each with
// its lane, its findings and the labeled cases it affects by evidence
// tier. enter asks the root to open the queue filtered to the traces of
// those cases (driftOpenQueueMsg).
//
// The screen is self-contained: it handles its own keys and its load
// result in update, and the root only routes to it. Loading runs in a
// tea.Cmd through load; Update and View never touch the store.
type toolDriftScreen struct {
	load func(ctx context.Context) (app.DriftOverview, error)
	ctx  context.Context
	keys driftKeys
	back key.Binding // esc, a global key the drift screen answers

	ov      app.DriftOverview
	seq     int // the load whose answer is awaited; older answers are dropped
	loading bool
	loaded  bool
	err     error

	cursor    int // change under the cursor
	offset    int // first change drawn in the list
	detailOff int // first detail line drawn

	// detail caches the wrapped detail lines of one change at one width
	// and palette: a tool listed on every trace of a large run can affect
	// thousands of cases, too many to wrap again on every frame.
	detail driftDetailCache
	// breaking and affected are counted once per load for the header.
	breaking, affected int
}

type driftDetailCache struct {
	cursor, w int
	pal       themes.Palette
	lines     []string
}

// newToolDriftScreen builds the screen; load computes the overview (the
// root passes app.DriftAcrossRuns over its store). A nil load shows how
// to get drift from the command line.
func newToolDriftScreen(ctx context.Context, load func(context.Context) (app.DriftOverview, error)) *toolDriftScreen {
	if ctx == nil {
		ctx = context.Background()
	}
	km := newKeyMap()
	return &toolDriftScreen{load: load, ctx: ctx, keys: km.Drift, back: km.Global.Back}
}

// driftLoadedMsg carries the overview of one load.
type driftLoadedMsg struct {
	seq int
	ov  app.DriftOverview
	err error
}

// driftOpenQueueMsg asks the root to show the queue filtered to traceIDs
// (app.Filter{TraceIDs: …}); the root owns the queue.
type driftOpenQueueMsg struct {
	server, tool string
	traceIDs     []string
}

// refresh starts a load; the answer comes back as a driftLoadedMsg.
func (d *toolDriftScreen) refresh() tea.Cmd {
	d.seq++
	d.loading = true
	seq, load, ctx := d.seq, d.load, d.ctx
	return func() tea.Msg {
		if load == nil {
			return driftLoadedMsg{seq: seq, err: errNoDriftLoader}
		}
		ov, err := load(ctx)
		return driftLoadedMsg{seq: seq, ov: ov, err: err}
	}
}

var errNoDriftLoader = fmt.Errorf("no drift in this build: run tracelab drift history, or tracelab drift --cases db:SERVER@previous db:SERVER")

func (driftLoadedMsg) owner() screenID { return screenDrift }

func (d *toolDriftScreen) update(h host, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case shownMsg:
		if !d.loaded && !d.loading {
			return d.refresh()
		}
		return nil
	case tea.KeyPressMsg:
		if key.Matches(msg, d.back) {
			return h.back()
		}
	}
	return d.handle(msg)
}

// handle handles the screen's keys and its load result; it returns the
// command to run (a reload, or the request to open the queue).
func (d *toolDriftScreen) handle(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case driftLoadedMsg:
		if msg.seq != d.seq {
			return nil
		}
		d.loading, d.loaded = false, true
		d.ov, d.err = msg.ov, loadErr(msg.err)
		d.cursor = clamp(d.cursor, 0, max(0, len(d.ov.Changes)-1))
		d.detailOff = 0
		d.detail = driftDetailCache{}
		d.breaking, d.affected = 0, 0
		cases := map[string]bool{}
		for _, ch := range d.ov.Changes {
			if ch.Lane == app.LaneBreaking {
				d.breaking++
			}
			for _, c := range ch.Cases {
				cases[c.CaseID] = true
			}
		}
		d.affected = len(cases)
	case tea.KeyPressMsg:
		k := d.keys
		switch {
		case key.Matches(msg, k.Down):
			d.move(1)
		case key.Matches(msg, k.Up):
			d.move(-1)
		case key.Matches(msg, k.Scroll):
			d.detailOff += 5
		case key.Matches(msg, k.ScrollUp):
			d.detailOff = max(0, d.detailOff-5)
		case key.Matches(msg, k.Reload):
			return d.refresh()
		case key.Matches(msg, k.Open):
			return d.openQueue()
		}
	}
	return nil
}

func (d *toolDriftScreen) move(delta int) {
	if len(d.ov.Changes) == 0 {
		return
	}
	c := clamp(d.cursor+delta, 0, len(d.ov.Changes)-1)
	if c != d.cursor {
		d.cursor, d.detailOff = c, 0
	}
}

// openQueue asks for the queue filtered to the affected cases' traces.
func (d *toolDriftScreen) openQueue() tea.Cmd {
	if d.cursor >= len(d.ov.Changes) {
		return nil
	}
	ch := d.ov.Changes[d.cursor]
	msg := driftOpenQueueMsg{server: ch.Server, tool: ch.Tool, traceIDs: append([]string(nil), ch.TraceIDs...)}
	return func() tea.Msg { return msg }
}

func laneStyle(sty *themes.Styles, l app.Lane) lipgloss.Style {
	switch l {
	case app.LaneBreaking:
		return sty.Error
	case app.LaneRisky:
		return sty.Warn
	}
	return sty.OK
}

// view draws a header, then the list of changes beside (or, when narrow,
// above) the details of the change under the cursor.
func (d *toolDriftScreen) view(sty *themes.Styles, w, h int) string {
	head := sty.Bold.Render(" Tool-contract drift across imported runs")
	if w < lipgloss.Width(head) {
		head = cell(head, w)
	}
	switch {
	case d.err != nil:
		return fitBlock(head+"\n\n"+sty.Error.Render(" "+model.CleanLine(d.err.Error())), w, h)
	case !d.loaded:
		return fitBlock(head+"\n\n"+sty.Subtle.Render(" comparing each run's tool contracts with the run before it…"), w, h)
	case len(d.ov.Changes) == 0:
		servers := map[string]bool{}
		for _, r := range d.ov.Runs {
			servers[r.Server] = true
		}
		lines := []string{head, ""}
		for _, l := range wrapCells(fmt.Sprintf("No tool contract changed across imported runs (%d run(s) of %d server(s) compared).",
			len(d.ov.Runs), len(servers)), w-2) {
			lines = append(lines, " "+sty.Text.Render(l))
		}
		for _, l := range wrapCells("tracelab drift history lists the contracts each run saw; ctrl+r reloads after an import.", w-2) {
			lines = append(lines, " "+sty.Subtle.Render(l))
		}
		return fitBlock(strings.Join(lines, "\n"), w, h)
	}
	head = cell(head+sty.Subtle.Render(fmt.Sprintf("  %d tool(s) changed, %d breaking, %d labeled case(s) affected",
		len(d.ov.Changes), d.breaking, d.affected)), w)
	bodyH := h - 1
	if bodyH < 3 {
		return head
	}
	if w >= 100 {
		listW := min(56, w*2/5)
		list := drawPane(sty.PaneFocused, "Changed tools "+itoa(len(d.ov.Changes)), d.listView(sty, listW-2, bodyH-2), listW, bodyH)
		det := drawPane(sty.Pane, d.detailTitle(), d.detailView(sty, w-listW-2, bodyH-2), w-listW, bodyH)
		return head + "\n" + joinH(list, det)
	}
	listH := min(2*len(d.ov.Changes)+2, max(4, bodyH/3))
	list := drawPane(sty.PaneFocused, "Changed tools "+itoa(len(d.ov.Changes)), d.listView(sty, w-2, listH-2), w, listH)
	det := drawPane(sty.Pane, d.detailTitle(), d.detailView(sty, w-2, bodyH-listH-2), w, bodyH-listH)
	return head + "\n" + list + "\n" + det
}

func (d *toolDriftScreen) detailTitle() string {
	ch := d.ov.Changes[d.cursor]
	return model.CleanLine(ch.Tool) + " · " + model.CleanLine(ch.Server) + " " + model.CleanLine(ch.OldRun) + "→" + model.CleanLine(ch.NewRun)
}

// listView draws two lines per change (lane and tool; server, runs and
// case counts), keeping the cursor in view.
func (d *toolDriftScreen) listView(sty *themes.Styles, w, h int) string {
	rows := max(1, h/2)
	if d.cursor < d.offset {
		d.offset = d.cursor
	}
	if d.cursor >= d.offset+rows {
		d.offset = d.cursor - rows + 1
	}
	d.offset = clamp(d.offset, 0, max(0, len(d.ov.Changes)-rows))
	var lines []string
	for i := d.offset; i < len(d.ov.Changes) && len(lines) < h; i++ {
		ch := d.ov.Changes[i]
		failing := 0
		for _, c := range ch.Cases {
			if c.Tier <= app.TierOutputFails {
				failing++
			}
		}
		mark, name := "  ", cell(model.CleanLine(ch.Tool), max(0, w-11))
		if i == d.cursor {
			mark, name = sty.Cursor.Render("❯ "), sty.Selected.Render(name)
		}
		lines = append(lines, mark+laneStyle(sty, ch.Lane).Render(cell(strings.ToUpper(string(ch.Lane)), 8))+" "+name)
		sub := fmt.Sprintf("%s %s→%s · %d case(s)", model.CleanLine(ch.Server), model.CleanLine(ch.OldRun), model.CleanLine(ch.NewRun), len(ch.Cases))
		if failing > 0 {
			sub += fmt.Sprintf(", %d failing", failing)
		}
		lines = append(lines, "  "+sty.Subtle.Render(cell(sub, max(0, w-2))))
	}
	return strings.Join(lines, "\n")
}

// detailView draws the findings and the affected cases by tier of the
// change under the cursor, wrapped to w and scrolled by detailOff.
func (d *toolDriftScreen) detailView(sty *themes.Styles, w, h int) string {
	c := &d.detail
	if c.lines == nil || c.cursor != d.cursor || c.w != w || c.pal != sty.Palette {
		*c = driftDetailCache{cursor: d.cursor, w: w, pal: sty.Palette, lines: d.detailLines(sty, w)}
	}
	lines := c.lines
	d.detailOff = clamp(d.detailOff, 0, max(0, len(lines)-h))
	return strings.Join(lines[d.detailOff:min(len(lines), d.detailOff+max(0, h))], "\n")
}

// detailLines builds every detail line of the change under the cursor.
func (d *toolDriftScreen) detailLines(sty *themes.Styles, w int) []string {
	ch := d.ov.Changes[d.cursor]
	var lines []string
	add := func(st lipgloss.Style, indent, s string) {
		for _, l := range wrapCells(s, max(8, w-len(indent))) {
			lines = append(lines, indent+st.Render(l))
		}
	}
	sec := ""
	if ch.Security {
		sec = " · security"
	}
	lines = append(lines, laneStyle(sty, ch.Lane).Render(strings.ToUpper(string(ch.Lane)))+sty.Subtle.Render(sec+
		fmt.Sprintf(" · wire %s → %s", shortFP(ch.OldWire), shortFP(ch.NewWire))))
	lines = append(lines, "", sty.Bold.Render("Findings"))
	for _, f := range ch.Findings {
		add(laneStyle(sty, f.Lane), " ", fmt.Sprintf("%s: %s", f.Lane, model.CleanLine(f.Message)))
		add(sty.Subtle, "   ", fmt.Sprintf("%s at %s [%s]", f.ID, model.CleanLine(findingPath(f)), f.Fingerprint))
	}
	lines = append(lines, "")
	if len(ch.Cases) == 0 {
		lines = append(lines, sty.Bold.Render("Affected cases")+sty.Subtle.Render("  none among the labeled cases"))
	} else {
		lines = append(lines, sty.Bold.Render("Affected cases")+sty.Subtle.Render(fmt.Sprintf("  %d · enter opens the queue on their %d trace(s)",
			len(ch.Cases), len(ch.TraceIDs))))
		var tier app.Tier
		for _, c := range ch.Cases { // sorted by tier, then case
			if c.Tier != tier {
				tier = c.Tier
				st := sty.Subtle
				if tier <= app.TierOutputFails {
					st = sty.Error
				}
				lines = append(lines, st.Render(fmt.Sprintf(" tier %d · %s", tier, tier)))
			}
			if tier <= app.TierCalled {
				add(sty.Text, "   ", model.CleanLine(c.CaseID)+": "+model.CleanLine(c.Evidence))
			} else {
				add(sty.Text, "   ", model.CleanLine(c.CaseID))
			}
		}
	}
	return lines
}

func findingPath(f app.DriftFinding) string {
	if f.Path == "" {
		return "(tool)"
	}
	return f.Path
}

func shortFP(fp string) string {
	if fp == "" {
		return "–"
	}
	return fp[:min(12, len(fp))]
}

// wrapCells wraps plain text at spaces to at most w cells per line,
// breaking words longer than a line.
func wrapCells(s string, w int) []string {
	return strings.Split(ansi.Wrap(s, max(1, w), ""), "\n")
}
