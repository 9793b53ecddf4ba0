package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"tracelab/app"
	"tracelab/model"
)

// labelAction is one labeling key (or one gold-editor save) waiting its
// turn. Actions run one at a time in the order they were pressed, each
// computed by the engine from the case as stored, so keys pressed faster
// than the saves (or while another process holds the database) land in
// order and a toggle pressed twice returns to where it started.
type labelAction struct {
	id      string // trace
	note    string // the status line once it landed
	confirm bool   // a confirm: open the next unconfirmed trace after it
	run     func(eng *app.Engine, ctx context.Context, id, who string) (app.ActionResult, error)
}

// actionMsg is a labeling action that ran.
type actionMsg struct {
	act labelAction
	res app.ActionResult
	err error
}

// enqueue adds an action to the queue and starts it when nothing runs.
func (m *Model) enqueue(a labelAction) tea.Cmd {
	m.actions = append(m.actions, a)
	if len(m.actions) == 1 {
		return m.startAction()
	}
	m.setStatus(fmt.Sprintf("saving… %d key(s) waiting", len(m.actions)-1), false)
	return nil
}

// quit ends the program once every key pressed is saved.
func (m *Model) quit() tea.Cmd {
	if len(m.actions) == 0 {
		return tea.Quit
	}
	m.quitting = true
	m.setStatus(fmt.Sprintf("saving %d key(s) before quitting…", len(m.actions)), false)
	return nil
}

func (m *Model) startAction() tea.Cmd {
	a := m.actions[0]
	eng, ctx, who := m.eng, m.ctx, m.opts.Labeler
	return func() tea.Msg {
		res, err := a.run(eng, ctx, a.id, who)
		return actionMsg{act: a, res: res, err: err}
	}
}

// actionDone shows an action's result and starts the next one.
func (m *Model) actionDone(msg actionMsg) tea.Cmd {
	if len(m.actions) > 0 {
		m.actions = m.actions[1:]
	}
	var next tea.Cmd
	switch {
	case len(m.actions) > 0:
		next = m.startAction()
	case m.quitting:
		next = tea.Quit
	}
	return tea.Batch(next, m.showAction(msg))
}

func (m *Model) showAction(msg actionMsg) tea.Cmd {
	id, res := msg.act.id, msg.res
	if res.Case != nil || msg.err == nil {
		m.showCase(id, res.Case, res.Score)
	}
	if missing, ok := app.IsIncomplete(msg.err); ok {
		if m.opts.Strict {
			m.setStatus("not confirmed (strict): "+strings.Join(missing, "; "), true)
			return nil
		}
		m.pushDialog(newAskDialog("Confirm anyway?", missing, "enter confirms anyway · esc goes back to labeling",
			confirmAnywayAction{id}))
		return nil
	}
	switch {
	case errors.Is(msg.err, app.ErrNothingToUndo):
		m.setStatus("nothing of yours to undo on this case", false)
		return nil
	case errors.Is(msg.err, app.ErrNothingToRedo):
		m.setStatus("nothing to redo: you undid nothing since your last edit", false)
		return nil
	case msg.err != nil:
		m.setStatus(msg.err.Error(), true)
		return nil
	}
	note := msg.act.note
	if res.Group == 0 {
		note = "nothing changed"
		if strings.HasPrefix(msg.act.note, "accepted") {
			note = "nothing to accept: the label already matches the suggestions"
		}
	} else if res.Action == "undo" || res.Action == "redo" {
		note = res.Action + " " + strings.Join(res.Changed, ", ")
	}
	m.setStatus(note, false)
	if msg.act.confirm && res.Case != nil && res.Case.Status == model.StatusConfirmed {
		i := indexOf(m.queue.rows, id)
		if i < 0 {
			i = m.queue.cursor
		}
		return m.nextUnconfirmed(i, true)
	}
	return nil
}

// showCase puts a trace's case (and score, when not nil) as stored on
// the queue row and, when it is open, on the trace screen.
func (m *Model) showCase(id string, rec *app.CaseRecord, score *app.TraceScore) {
	m.queue.setRowCase(id, rec)
	if score != nil {
		m.queue.setRowScore(id, score)
	}
	ts := m.trace
	if id == ts.id {
		if rec != nil {
			ts.rec = rec
		}
		if score != nil {
			ts.score = score
			ts.invalidate()
		}
		ts.buildItems()
	}
}

// The actions the trace screen's keys ask for.

func toggleCorrect(id string) labelAction {
	return labelAction{id: id, note: "correct toggled", run: (*app.Engine).ToggleCorrect}
}

func toggleGrounded(id string) labelAction {
	return labelAction{id: id, note: "grounded toggled", run: (*app.Engine).ToggleGrounded}
}

func setClass(id string, c *model.FailureClass) labelAction {
	note := "no failure class"
	if c != nil {
		note = "class " + string(*c)
	}
	return labelAction{id: id, note: note, run: func(eng *app.Engine, ctx context.Context, id, who string) (app.ActionResult, error) {
		return eng.SetClass(ctx, id, who, c)
	}}
}

func acceptSuggestion(id string) labelAction {
	return labelAction{id: id, note: "accepted the suggestions", run: (*app.Engine).AcceptSuggestion}
}

func markField(id, field string, required bool) labelAction {
	what := "required"
	if !required {
		what = "forbidden"
	}
	return labelAction{id: id, note: field + " " + what + " (again: unmark)",
		run: func(eng *app.Engine, ctx context.Context, id, who string) (app.ActionResult, error) {
			return eng.MarkField(ctx, id, who, field, required)
		}}
}

func editFields(id string, edits []app.FieldEdit) labelAction {
	return labelAction{id: id, note: fmt.Sprintf("gold saved (%d field(s), one undo)", len(edits)),
		run: func(eng *app.Engine, ctx context.Context, id, who string) (app.ActionResult, error) {
			return eng.EditFields(ctx, id, who, edits...)
		}}
}

func confirmLabel(id string, force bool) labelAction {
	return labelAction{id: id, note: "confirmed " + id, confirm: true,
		run: func(eng *app.Engine, ctx context.Context, id, who string) (app.ActionResult, error) {
			return eng.ConfirmLabel(ctx, id, who, force)
		}}
}

func undoAction(id string) labelAction {
	return labelAction{id: id, run: (*app.Engine).UndoAction}
}

func redoAction(id string) labelAction {
	return labelAction{id: id, run: (*app.Engine).RedoAction}
}
