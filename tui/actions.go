package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// labelAction is one labeling key (or one gold-editor save) waiting its
// turn. Each is handed to the engine's queue as it is pressed
// (app.Engine.SubmitEdit), which runs them one at a time in that order,
// each computed from the case as stored, and keeps them through a team
// database's outage: keys pressed faster than the saves (or while the
// server is down) land in order and a toggle pressed twice returns to
// where it started. The screen shows their results in the same order.
type labelAction struct {
	id      string // trace
	note    string // the status line once it landed
	confirm bool   // a confirm: open the next unconfirmed trace after it
	force   bool   // a confirm anyway (after the question), not a plain one
	run     func(eng *app.Engine, ctx context.Context, id, who string) (app.ActionResult, error)
	pending *app.PendingEdit // in the engine's queue (enqueue)
}

// actionMsg is a labeling action that ran.
type actionMsg struct {
	act    labelAction
	res    app.ActionResult
	err    error
	edited bool // the case's edits stand after it (edited.go)
}

// actionWaitMsg: the oldest action has not landed yet; the screen
// redraws (the status line shows the edits waiting for the database) and
// waits again.
type actionWaitMsg struct{ pending *app.PendingEdit }

func (actionWaitMsg) owner() screenID { return screenTrace }

// enqueue hands an action to the engine's queue and waits for it when it
// is the oldest the screen has not shown.
func (ts *traceScreen) enqueue(h host, a labelAction) tea.Cmd {
	if a.confirm && !a.force && ts.confirming(a.id) {
		// enter enter: the first confirm is on its way and asks, if it
		// must, once; a second would open a second question.
		h.setStatus("confirming… (the first enter is being saved)", false)
		return nil
	}
	eng, who := ts.eng, ts.labeler
	a.pending = eng.Labels.SubmitEdit(func(ctx context.Context) (app.ActionResult, error) { return a.run(eng, ctx, a.id, who) })
	ts.actions = append(ts.actions, a)
	if len(ts.actions) == 1 {
		return ts.startAction()
	}
	h.setStatus(fmt.Sprintf("saving… %d key(s) waiting", len(ts.actions)-1), false)
	return nil
}

// confirming says a plain confirm of trace id waits or runs.
func (ts *traceScreen) confirming(id string) bool {
	for _, q := range ts.actions {
		if q.confirm && !q.force && q.id == id {
			return true
		}
	}
	return false
}

// startAction waits, off the UI goroutine, for the oldest action; every
// half second it hands back an actionWaitMsg so the screen shows how many
// wait for the database.
func (ts *traceScreen) startAction() tea.Cmd {
	a := ts.actions[0]
	eng, ctx := ts.eng, ts.ctx
	return func() tea.Msg {
		t := time.NewTimer(500 * time.Millisecond)
		defer t.Stop()
		select {
		case <-a.pending.Done():
			res, err := a.pending.Result()
			return actionMsg{act: a, res: res, err: err, edited: caseEdited(ctx, eng, res.Case)}
		case <-t.C:
			return actionWaitMsg{a.pending}
		case <-ctx.Done():
			return nil
		}
	}
}

// actionWaiting waits again for the oldest action (unless it was dropped
// and the screen moved on).
func (ts *traceScreen) actionWaiting(msg actionWaitMsg) tea.Cmd {
	if len(ts.actions) == 0 || ts.actions[0].pending != msg.pending {
		return nil
	}
	return ts.startAction()
}

// actionDone shows an action's result and starts the next one; after the
// last, a q pressed meanwhile ends the program.
func (ts *traceScreen) actionDone(h host, msg actionMsg) tea.Cmd {
	if len(ts.actions) > 0 {
		ts.actions = ts.actions[1:]
	}
	var next tea.Cmd
	switch {
	case len(ts.actions) > 0:
		next = ts.startAction()
	case h.quitting():
		next = tea.Quit
	}
	return tea.Batch(next, ts.showAction(h, msg))
}

// dropEditsAction is the answer yes to quitting with edits waiting.
type dropEditsAction struct{}

// waitingLine is the status line while edits wait for the database.
func waitingLine(w app.EditsWaiting) string {
	return fmt.Sprintf("%s waiting for the database (try %d, retrying): %s", plural(w.N, "edit"), w.Tries,
		model.CleanLine(app.RedactSecrets(w.Err.Error())))
}

// dropWaiting is the user's answer to quitting with edits waiting for
// the database: the engine drops them and the program ends.
func (ts *traceScreen) dropWaiting() tea.Cmd {
	ts.eng.Labels.DropWaitingEdits()
	ts.actions = nil
	return tea.Quit
}

// showAction shows the case as the engine returned it after the write. The
// queue's rows are not patched here: the queue reads them from the store
// when it is next shown or asked for the next trace.
func (ts *traceScreen) showAction(h host, msg actionMsg) tea.Cmd {
	id, res := msg.act.id, msg.res
	var raters tea.Cmd
	if ts.showCase(id, res.Case, res.Score) {
		if res.Case != nil {
			ts.edited = msg.edited
		}
		// Every edit writes the labeler's own row: the raters change too.
		raters = ts.loadRaters(id)
	}
	if missing, ok := app.IsIncomplete(msg.err); ok {
		if ts.strict {
			h.setStatus("not confirmed (strict): "+strings.Join(missing, "; "), true)
			return raters
		}
		h.pushDialog(screenTrace, newAskDialog("Confirm anyway?", missing, "enter confirms anyway · esc goes back to labeling",
			confirmAnywayAction{id}))
		return raters
	}
	switch {
	case errors.Is(msg.err, app.ErrNothingToUndo):
		h.setStatus("nothing of yours to undo on this case", false)
		return raters
	case errors.Is(msg.err, app.ErrNothingToRedo):
		h.setStatus("nothing to redo: you undid nothing since your last edit", false)
		return raters
	case msg.err != nil:
		ts.editErr = ""
		h.setStatus(errText(msg.err), true)
		ts.editErr = model.CleanLine(app.RedactSecrets(errText(msg.err)))
		return raters
	}
	ts.editErr = "" // this edit landed: an older one's error is history
	note := msg.act.note
	if res.Group == 0 {
		note = "nothing changed"
		if strings.HasPrefix(msg.act.note, "accepted") {
			note = "nothing to accept: the label already matches the suggestions"
		}
	} else if res.Action == "undo" || res.Action == "redo" {
		note = res.Action + " " + strings.Join(res.Changed, ", ")
	}
	h.setStatus(note, false)
	if res.PeersStale {
		// The engine rescores the traces of its question in the
		// background; the queue reads its rows again when that ends.
		raters = tea.Batch(raters, ts.waitPeers())
	}
	if msg.act.confirm && res.Case != nil && res.Case.Status == model.StatusConfirmed {
		return tea.Batch(raters, func() tea.Msg { return queueNextMsg{from: id} })
	}
	return raters
}

// waitPeers waits, off the UI goroutine, for the engine's background
// rescore to end, and tells the queue.
func (ts *traceScreen) waitPeers() tea.Cmd {
	eng, ctx := ts.eng, ts.ctx
	return func() tea.Msg {
		err := eng.WaitIdle(ctx)
		if ctx.Err() != nil {
			return nil // the program is ending
		}
		return peersRescoredMsg{err: err}
	}
}

// showCase puts a trace's case and score (each when not nil) as stored
// on the screen when that trace is open (after this labeler's edit, or
// another's: team.go), and says whether it was.
func (ts *traceScreen) showCase(id string, rec *app.CaseRecord, score *app.TraceScore) bool {
	if id != ts.id {
		return false
	}
	if rec != nil {
		ts.rec = rec
	}
	if score != nil {
		ts.score = score
		ts.invalidate()
	}
	ts.buildItems()
	return true
}

// The actions the trace screen's keys ask for.

// viaLabels runs one of the engine's label actions that takes nothing but
// the trace and the labeler.
func viaLabels(act func(app.LabelService, context.Context, string, string) (app.ActionResult, error)) func(*app.Engine, context.Context, string, string) (app.ActionResult, error) {
	return func(eng *app.Engine, ctx context.Context, id, who string) (app.ActionResult, error) {
		return act(eng.Labels, ctx, id, who)
	}
}

func toggleCorrect(id string) labelAction {
	return labelAction{id: id, note: "correct toggled", run: viaLabels(app.LabelService.ToggleCorrect)}
}

func toggleGrounded(id string) labelAction {
	return labelAction{id: id, note: "grounded toggled", run: viaLabels(app.LabelService.ToggleGrounded)}
}

func setClass(id string, c *model.FailureClass) labelAction {
	note := "no failure class"
	if c != nil {
		note = "class " + string(*c)
	}
	return labelAction{id: id, note: note, run: func(eng *app.Engine, ctx context.Context, id, who string) (app.ActionResult, error) {
		return eng.Labels.SetClass(ctx, id, who, c)
	}}
}

func acceptSuggestion(id string) labelAction {
	return labelAction{id: id, note: "accepted the suggestions", run: viaLabels(app.LabelService.AcceptSuggestion)}
}

// acceptJudge takes the judge's label as the labeler's own (app.AcceptJudge).
func acceptJudge(id, judge string) labelAction {
	return labelAction{id: id, note: "accepted " + judge + "'s label",
		run: func(eng *app.Engine, ctx context.Context, id, who string) (app.ActionResult, error) {
			return eng.Judges.Accept(ctx, id, who, judge)
		}}
}

func markField(id, field string, required bool) labelAction {
	what := "required"
	if !required {
		what = "forbidden"
	}
	return labelAction{id: id, note: field + " " + what + " (again: unmark)",
		run: func(eng *app.Engine, ctx context.Context, id, who string) (app.ActionResult, error) {
			return eng.Labels.MarkField(ctx, id, who, field, required)
		}}
}

func editFields(id string, edits []app.FieldEdit) labelAction {
	return labelAction{id: id, note: fmt.Sprintf("gold saved (%d field(s), one undo)", len(edits)),
		run: func(eng *app.Engine, ctx context.Context, id, who string) (app.ActionResult, error) {
			// EditGold: correct follows a new gold answer at once.
			return eng.Labels.EditGold(ctx, id, who, edits...)
		}}
}

func confirmLabel(id string, force bool) labelAction {
	return labelAction{id: id, note: "confirmed " + id, confirm: true, force: force,
		run: func(eng *app.Engine, ctx context.Context, id, who string) (app.ActionResult, error) {
			return eng.Labels.ConfirmLabel(ctx, id, who, force)
		}}
}

func undoAction(id string) labelAction {
	return labelAction{id: id, run: viaLabels(app.LabelService.Undo)}
}

func redoAction(id string) labelAction {
	return labelAction{id: id, run: viaLabels(app.LabelService.Redo)}
}

// plural is "1 edit" or "n edits".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
