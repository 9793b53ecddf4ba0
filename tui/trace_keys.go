package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/model"
)

// The help columns of the trace screen: the labeling keys first, which
// a small window keeps longest.
const (
	groupLabel = iota
	groupMove
)

// key runs a key on the trace screen. Keys pressed while a trace loads
// wait for it and then run on it, in order (replayHeld): a labeler who
// opens a trace and types c 2 enter at once labels that trace, not the
// one before nor nothing.
func (ts *traceScreen) key(h host, msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, ts.keys.Global.Back) {
		if ts.loading || ts.opening {
			// Esc while a trace opens gives up opening it and the keys
			// held for it.
			ts.pending, ts.loading, ts.opening, ts.held = "", false, false, nil
		}
		return h.show(screenQueue)
	}
	if ts.loading || ts.opening {
		ts.held = append(ts.held, msg)
		return nil
	}
	if ts.t == nil {
		return nil
	}
	cmd, _ := ts.commands().dispatch(h, msg)
	return cmd
}

// replayHeld runs the keys pressed while the trace loaded, on it.
func (ts *traceScreen) replayHeld(h host, loaded bool) tea.Cmd {
	held := ts.held
	ts.held = nil
	if !loaded {
		if len(held) > 0 {
			h.setStatus(fmt.Sprintf("%d key(s) pressed while the trace loaded were dropped: it did not open", len(held)), true)
		}
		return nil
	}
	cmds := make([]tea.Cmd, 0, len(held))
	for _, k := range held {
		cmds = append(cmds, ts.key(h, k))
	}
	return tea.Sequence(cmds...)
}

// commands is the trace screen's keys (built once: the handlers read the
// screen when they run).
func (ts *traceScreen) commands() commands {
	if ts.cmds == nil {
		ts.cmds = ts.buildCommands()
	}
	return ts.cmds
}

func (ts *traceScreen) help(keyMap) helpKeys {
	t, g := ts.keys.Trace, ts.keys.Global
	// The keys that matter first: a narrow status bar cuts the rest.
	short := []key.Binding{g.Help, t.Confirm, t.Undo, t.Accept, t.Correct, t.Grounded, t.Class, t.Focus, t.NextMarker, g.Back}
	return ts.commands().help(short, g.all())
}

func (ts *traceScreen) buildCommands() commands {
	k := ts.keys.Trace
	do := func(f func()) func(host, tea.KeyPressMsg) tea.Cmd {
		return func(host, tea.KeyPressMsg) tea.Cmd { f(); return nil }
	}
	// label enqueues a labeling action on the open trace.
	label := func(a func(id string) labelAction) func(host, tea.KeyPressMsg) tea.Cmd {
		return func(h host, _ tea.KeyPressMsg) tea.Cmd { return ts.enqueue(h, a(ts.id)) }
	}
	writes := ts.env.readOnly
	cs := commands{
		{key: k.Up, group: groupMove, run: do(func() { ts.moveIn(-1); ts.showEvidenceStep() })},
		{key: k.Down, group: groupMove, run: do(func() { ts.moveIn(1); ts.showEvidenceStep() })},
		{key: k.Focus, group: groupMove, run: do(func() { ts.focus = (ts.focus + 1) % 3 })},
		{key: k.PageUp, group: groupMove, run: do(func() { ts.scrollDetail(-max(1, ts.height/2)) })},
		{key: k.PageDown, group: groupMove, run: do(func() { ts.scrollDetail(max(1, ts.height/2)) })},
		{key: k.Scroll, group: groupMove, run: do(func() { ts.scrollDetail(1) })},
		{key: k.ScrollUp, group: groupMove, run: do(func() { ts.scrollDetail(-1) })},
		{key: k.Left, group: groupMove, run: do(func() { ts.hoff = max(0, ts.hoff-8) })},
		// resultTable stops it at the table's last column.
		{key: k.Right, group: groupMove, run: do(func() { ts.hoff += 8 })},
		{key: k.PrevMarker, group: groupMove, run: func(h host, _ tea.KeyPressMsg) tea.Cmd { ts.markerKey(h, -1); return nil }},
		{key: k.NextMarker, group: groupMove, run: func(h host, _ tea.KeyPressMsg) tea.Cmd { ts.markerKey(h, 1); return nil }},
		{key: k.NextHit, group: groupMove, run: func(h host, _ tea.KeyPressMsg) tea.Cmd { ts.jumpHit(h, 1); return nil }},
		{key: k.PrevHit, group: groupMove, run: func(h host, _ tea.KeyPressMsg) tea.Cmd { ts.jumpHit(h, -1); return nil }},
		{key: k.Next, group: groupMove, run: func(host, tea.KeyPressMsg) tea.Cmd { return ts.stepQueue(1) }},
		{key: k.Prev, group: groupMove, run: func(host, tea.KeyPressMsg) tea.Cmd { return ts.stepQueue(-1) }},

		{key: k.Correct, group: groupLabel, run: label(toggleCorrect), disabled: writes},
		{key: k.Grounded, group: groupLabel, run: label(toggleGrounded), disabled: writes},
	}
	for i, ck := range k.ClassKeys {
		c := model.Classes[i]
		cs = append(cs, command{key: ck, group: groupLabel, disabled: writes,
			run: label(func(id string) labelAction { return setClass(id, &c) })})
	}
	return append(cs, commands{
		{key: k.NoClass, group: groupLabel, run: label(func(id string) labelAction { return setClass(id, nil) }), disabled: writes},
		{key: k.Accept, group: groupLabel, run: label(acceptSuggestion), disabled: writes},
		{key: k.AcceptJudge, group: groupLabel, run: ts.acceptJudgeKey, disabled: whyNot(writes, ts.noJudge)},
		{key: k.Required, group: groupLabel, run: ts.markKey, disabled: whyNot(writes, ts.noField)},
		{key: k.Forbidden, group: groupLabel, run: ts.markKey, disabled: whyNot(writes, ts.noField)},
		{key: k.Edit, group: groupLabel, run: ts.editKey, disabled: writes},
		{key: k.Confirm, group: groupLabel, run: ts.confirmKey},
		{key: k.Undo, group: groupLabel, run: label(undoAction), disabled: writes},
		{key: k.Redo, group: groupLabel, run: label(redoAction), disabled: writes},
		{key: k.Glossary, group: groupLabel, run: ts.glossaryKey, disabled: whyNot(writes, ts.noGlossary)},
		{key: k.Adjudicate, group: groupLabel, run: ts.adjudicateKey, disabled: whyNot(writes, ts.noRaters)},
	}...)
}

func (ts *traceScreen) markerKey(h host, dir int) {
	_, detailW, _ := ts.widths(ts.width)
	if !ts.jumpMarker(dir, detailW, ts.sty) {
		h.setStatus("no guess marker in this trace", false)
		return
	}
	mk := ts.score.Markers[ts.marker]
	h.setStatus(fmt.Sprintf("marker %d/%d: %q in step %d", ts.marker+1, len(ts.score.Markers),
		model.CleanLine(mk.Text), mk.Step), false)
}

// stepQueue opens the trace d rows away in the queue.
func (ts *traceScreen) stepQueue(d int) tea.Cmd {
	id := ts.id
	return func() tea.Msg { return queueStepMsg{from: id, d: d} }
}

func (ts *traceScreen) noJudge() string {
	if ts.raters == nil || ts.raters.FirstJudge() == nil {
		return "no judge labeled this trace (tracelab judge --endpoint …)"
	}
	return ""
}

func (ts *traceScreen) acceptJudgeKey(h host, _ tea.KeyPressMsg) tea.Cmd {
	return ts.enqueue(h, acceptJudge(ts.id, ts.raters.FirstJudge().Rater))
}

// noField: r and x edit only what is on screen, the field under the
// cursor of the scoring pane, when that pane has the focus.
func (ts *traceScreen) noField() string {
	if ts.focus != paneScore {
		return "r/x mark the field under the scoring cursor: tab to the scoring pane first"
	}
	if it, ok := ts.currentItem(); !ok || it.field == "" {
		return "the scoring cursor is not on a field (j/k to one)"
	}
	return ""
}

func (ts *traceScreen) markKey(h host, msg tea.KeyPressMsg) tea.Cmd {
	it, _ := ts.currentItem()
	return ts.enqueue(h, markField(ts.id, it.field, key.Matches(msg, ts.keys.Trace.Required)))
}

func (ts *traceScreen) noRaters() string {
	if ts.raters == nil || len(ts.raters.Labels) == 0 || ts.rec == nil {
		return "nobody labeled this trace yet: nothing to adjudicate"
	}
	return ""
}

func (ts *traceScreen) adjudicateKey(h host, _ tea.KeyPressMsg) tea.Cmd {
	h.pushDialog(screenTrace, newAdjudicateDialog(*ts.raters))
	return nil
}

func (ts *traceScreen) editKey(h host, _ tea.KeyPressMsg) tea.Cmd {
	ed := newGoldEditor(ts.rec, ts.sty)
	h.pushDialog(screenTrace, ed)
	return ed.focusCmd()
}

func (ts *traceScreen) noGlossary() string {
	switch {
	case ts.rec == nil || ts.rec.Status != model.StatusConfirmed:
		return "confirm the case (enter) before saving its definition to the glossary"
	case strings.TrimSpace(ts.rec.Case.Gold.Definition) == "":
		return "the gold has no definition to save (e edits it)"
	}
	return ""
}

func (ts *traceScreen) glossaryKey(h host, _ tea.KeyPressMsg) tea.Cmd {
	p := newTermPrompt(ts.rec.Case.Gold.Definition)
	h.pushDialog(screenTrace, p)
	return p.input.Focus()
}

// confirmKey: in the scoring pane enter acts on the line under the
// cursor; everywhere else it confirms. It never means both.
func (ts *traceScreen) confirmKey(h host, _ tea.KeyPressMsg) tea.Cmd {
	// In the scoring pane that replaces the detail, enter acts on the line
	// under the cursor; beside the detail (which shows the evidence's step
	// already) and everywhere else it confirms. It never means both.
	if !ts.enterActsOnLine() {
		if why := ts.readOnly(); why != "" {
			h.setStatus(why, true)
			return nil
		}
		return ts.enqueue(h, confirmLabel(ts.id, false))
	}
	it, ok := ts.currentItem()
	switch {
	case ok && it.field == "" && it.step >= 0 && it.step < len(ts.t.Steps):
		ts.step, ts.detailOff, ts.focus = it.step, 0, paneSteps
	case ok && it.field != "":
		// The whole line, which a narrow pane cuts.
		h.setStatus(fmt.Sprintf("%s: %s, used as %s — r required, x forbidden; tab leaves the pane to confirm",
			it.field, it.status, strings.Join(toStrings(it.roles), ", ")), false)
	}
	return nil
}
