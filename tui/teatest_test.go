package tui

import (
	"context"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// TestProgramFlow runs the real program (teatest/v2: a Bubble Tea program
// on a fake terminal) through the labeler's path: filter to a class, open
// a trace, jump to a marker, label it, confirm it, undo.
func TestProgramFlow(t *testing.T) {
	st, _ := openUnlabeledStore(t)
	ctx := context.Background()
	const id = "trace_9f31c2"
	p := newProgram(t, st, Options{}, 100, 30)
	// The renderer redraws only the cells that changed, so each wait looks
	// for text that is new on screen, and edits are checked in the store.
	p.waitFor("33 traces")
	p.send("f", "j", "space", "enter")
	p.waitFor("class:semantic")
	p.send("enter")
	p.waitFor("Steps 9")
	p.send("]")
	p.waitFor("is_active sounds like") // the marker's step drawn in full
	p.send("c")
	p.eventually(id, "correct", func(r *app.CaseRecord) bool { return r.Case.Label.Correct != nil && *r.Case.Label.Correct })
	p.send("2")
	p.eventually(id, "class", func(r *app.CaseRecord) bool {
		return r.Case.Label.FailureClass != nil && *r.Case.Label.FailureClass == model.ClassSemantic
	})
	p.send("enter")
	p.eventually(id, "confirmed", func(r *app.CaseRecord) bool { return r.Status == model.StatusConfirmed })
	// Confirming moves on to the next unconfirmed trace.
	p.waitFor("North America last quarter?")
	p.send("ctrl+p")
	p.waitFor("finance_analyst as fin.analyst.02")
	p.send("u")
	p.eventually(id, "undo", func(r *app.CaseRecord) bool { return r.Status == model.StatusSuggested })
	fm := p.quit()
	if fm.trace.id != id || fm.screen != screenTrace {
		t.Errorf("final model on %q screen %d", fm.trace.id, fm.screen)
	}
	rec, err := st.Traces.CaseForTrace(ctx, id)
	if err != nil || rec.Status != model.StatusSuggested {
		t.Fatalf("after undo: %+v %v", rec, err)
	}
	if c := rec.Case.Label; c.Correct == nil || !*c.Correct || c.FailureClass == nil || *c.FailureClass != model.ClassSemantic {
		t.Errorf("label after the flow: %+v", c)
	}
}
