package tui

import (
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

// The scoring pane scrolls to its last line and says what a accepts
// wherever it is cut: a never sets what the labeler could not see.

// sideBySide says whether the scoring pane is drawn beside the step's
// detail (wide screens) rather than in its place.
func (ts *traceScreen) sideBySide() bool {
	_, _, score := ts.widths(ts.width)
	return score > 0
}

// scoreScrollKey handles the keys that scroll the focused scoring pane
// past its cursor: j on the last item, pgdn/pgup and J/K. It says whether
// it used the key.
func (ts *traceScreen) scoreScrollKey(msg tea.KeyPressMsg) bool {
	if ts.focus != paneScore {
		return false
	}
	k := ts.keys.Trace
	page := max(1, ts.height/2)
	switch {
	case key.Matches(msg, k.Down) && ts.item >= len(ts.items)-1:
		ts.scrollScore(1)
	case key.Matches(msg, k.Up) && ts.itemOff > 0 && (ts.item == 0 || ts.scoreFree && ts.itemOff > ts.scoreSel):
		// Back up to the cursor before moving it.
		ts.scrollScore(-1)
	case key.Matches(msg, k.PageDown):
		ts.scrollScore(page)
	case key.Matches(msg, k.PageUp):
		ts.scrollScore(-page)
	case key.Matches(msg, k.Scroll):
		ts.scrollScore(1)
	case key.Matches(msg, k.ScrollUp):
		ts.scrollScore(-1)
	default:
		if key.Matches(msg, k.Down, k.Up) {
			ts.scoreFree = false // the cursor moves: the pane follows it
		}
		return false
	}
	return true
}

// scoreDrawn is a drawn scoring pane with the scroll state the draw left.
type scoreDrawn struct {
	s             string
	off, sel, max int
}

// scrollScore moves the scoring pane's first line by d. Its rows are
// known when the pane is drawn, which keeps the last line at the bottom
// (placeScoreRows); keys may arrive faster than frames.
func (ts *traceScreen) scrollScore(d int) {
	ts.itemOff = max(0, ts.itemOff+d)
	ts.scoreFree = true
}

// enterActsOnLine says whether enter acts on the scoring pane's line
// (the pane replaces the detail) rather than confirming.
func (ts *traceScreen) enterActsOnLine() bool { return ts.focus == paneScore && !ts.sideBySide() }

// showEvidenceStep puts the step of the evidence under the scoring cursor
// in the detail pane, when the two are side by side: moving through the
// evidence shows each step next to it, and enter stays confirm.
func (ts *traceScreen) showEvidenceStep() {
	if !ts.sideBySide() || ts.focus != paneScore || ts.t == nil {
		return
	}
	it, ok := ts.currentItem()
	if !ok || it.field != "" || it.step < 0 || it.step >= len(ts.t.Steps) || it.step == ts.step {
		return
	}
	ts.step, ts.detailOff, ts.hoff = it.step, 0, 0
}

// placeScoreRows chooses the scoring pane's first line: the cursor's row
// stays in view unless the pane was scrolled past it, and the last line
// never leaves the bottom. It says the cursor's row and the last first
// row too, which the keys need; update keeps all three (syncScorePane).
func (ts *traceScreen) placeScoreRows(rows []panelRow, viewH int) (off, sel, last int) {
	for i, r := range rows {
		if r.item == ts.item {
			sel = i
		}
	}
	last = max(0, len(rows)-viewH)
	off = ts.itemOff
	if !ts.scoreFree {
		show := sel
		if ts.item == 0 {
			show = 0 // the first item shows the pane's head above it
		}
		off = scrollInto(off, show, viewH)
	}
	return clamp(off, 0, last), sel, last
}

// suggestionRows are the lines of the suggested gold the sources do not
// give: the window and the answer a leaves, wrapped to w.
func (ts *traceScreen) suggestionRows(sty *themes.Styles, w int) []string {
	g := app.AcceptPreview(ts.rec, ts.score)
	var out []string
	win := "no window"
	if g.Window != nil {
		win = "window " + windowText(g.Window, false)
		if g.Window.Calendar != "" {
			win += " (" + model.CleanLine(g.Window.Calendar) + ")"
		}
	}
	ans := "answer not set: a leaves it (e sets it)"
	if a := answerOf(g); a != "" {
		ans = "answer " + a + " (kept)"
		if ts.rec == nil || answerOf(ts.rec.Case.Gold) == "" {
			ans = "answer " + a + " (a sets it: a person's, same question and period)"
		}
	}
	for _, s := range []string{win, ans} {
		for i, l := range strings.Split(ansi.Wrap(s, max(8, w-3), ""), "\n") {
			lead := " · "
			if i > 0 {
				lead = "   "
			}
			out = append(out, sty.Subtle.Render(lead)+sty.Text.Render(l))
		}
	}
	return out
}

// acceptSummary is the one line that says what a sets, as wide as fits in
// w: the gold's required and forbidden fields, its window, its answer.
// "" when there is no suggestion to accept.
func (ts *traceScreen) acceptSummary(w int) string {
	if ts.score == nil || ts.score.SuggestedGold == nil || len(ts.score.GoldSources) == 0 {
		return "" // no suggested gold block: a sets the label alone
	}
	g := app.AcceptPreview(ts.rec, ts.score)
	ans, tiny := answerOf(g), ""
	if ans == "" {
		ans, tiny = "not set", "no answer"
	} else {
		tiny = "answer " + ans
	}
	long, short := "no window", "no window"
	if g.Window != nil {
		long, short = "window "+windowText(g.Window, false), windowText(g.Window, true)
	}
	req, forb := len(g.RequiredFields), len(g.ForbiddenFields)
	for _, s := range []string{
		fmt.Sprintf("a sets %d required, %d forbidden · %s · answer %s", req, forb, long, ans),
		fmt.Sprintf("a sets %d required, %d forbidden · %s · answer %s", req, forb, short, ans),
		fmt.Sprintf("a sets ✓%d ✗%d · %s · answer %s", req, forb, short, ans),
		fmt.Sprintf("a: ✓%d ✗%d · %s · %s", req, forb, short, tiny),
	} {
		if ansi.StringWidth(s) <= w {
			return s
		}
	}
	return ansiTruncate(fmt.Sprintf("a: ✓%d ✗%d · %s · %s", req, forb, short, tiny), w)
}

// answerOf is a gold's answer as one line, "" when it has none.
func answerOf(g model.Gold) string {
	if len(g.Answer) == 0 || string(g.Answer) == "null" {
		return ""
	}
	a := model.CleanLine(answerText(g.Answer))
	if g.Tolerance != nil && *g.Tolerance != 0 {
		a += " ±" + floatText(g.Tolerance)
	}
	return a
}

// windowText is a window's dates; short drops the end's year when it is
// the start's.
func windowText(w *model.Window, short bool) string {
	start, end := model.CleanLine(w.Start), model.CleanLine(w.End)
	if short && len(start) >= 5 && len(end) >= 5 && start[:5] == end[:5] {
		end = end[5:]
	}
	return start + "→" + end
}

// drawPaneFoot is drawPane with foot written in the bottom border.
func drawPaneFoot(bs lipgloss.Style, sty *themes.Styles, title, foot, content string, w, h int) string {
	s := drawPane(bs, title, content, w, h)
	if foot == "" || w < 8 || h < 3 {
		return s
	}
	i := strings.LastIndexByte(s, '\n')
	f := " " + ansiTruncate(foot, w-6) + " "
	if strings.HasPrefix(foot, "a ") || strings.HasPrefix(foot, "a:") {
		f = " " + sty.Accent.Render(foot[:1]) + sty.Bold.Render(ansiTruncate(foot[1:], w-7)) + " "
	}
	rest := max(0, w-3-ansi.StringWidth(f))
	return s[:i+1] + bs.Render("╰─") + f + bs.Render(strings.Repeat("─", rest)+"╯")
}
