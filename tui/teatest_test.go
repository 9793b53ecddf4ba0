package tui

import (
	"bytes"
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
)

// TestProgramFlow runs the real program (teatest/v2: a Bubble Tea program
// on a fake terminal) through the labeler's path: filter to a class, open
// a trace, jump to a marker, label it, confirm it, undo.
func TestProgramFlow(t *testing.T) {
	st, _ := openUnlabeledStore(t)
	ctx := context.Background()
	tm := teatest.NewTestModel(t, New(st, Options{Labeler: "tester", Theme: "dark"}),
		teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	// The output is read once into all; each wait looks past the end of
	// the previous match, so two texts drawn in one frame are both seen.
	var all []byte
	mark := 0
	waitFor := func(s string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		buf := make([]byte, 64<<10)
		for {
			n, _ := tm.Output().Read(buf)
			all = append(all, buf[:n]...)
			if i := bytes.Index(all[mark:], []byte(s)); i >= 0 {
				mark += i + len(s)
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%q not drawn within 5s; output since the last match:\n%q", s, all[mark:])
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	send := func(keys ...string) {
		for _, k := range keys {
			tm.Send(keyMsg(k))
		}
	}
	// The renderer redraws only the cells that changed, so each wait looks
	// for text that is new on screen, and edits are checked in the store.
	eventually := func(what string, cond func(*store.CaseRecord) bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			rec, err := st.Traces.CaseForTrace(ctx, "trace_9f31c2")
			if err == nil && rec != nil && cond(rec) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not in the store after 5s: %+v %v", what, rec, err)
			}
		}
	}
	waitFor("33 traces")
	send("f", "j", "space", "enter")
	waitFor("class:semantic")
	send("enter")
	waitFor("Steps 9")
	send("]")
	waitFor("is_active sounds like") // the marker's step drawn in full
	send("c")
	eventually("correct", func(r *store.CaseRecord) bool { return r.Case.Label.Correct != nil && *r.Case.Label.Correct })
	send("2")
	eventually("class", func(r *store.CaseRecord) bool {
		return r.Case.Label.FailureClass != nil && *r.Case.Label.FailureClass == model.ClassSemantic
	})
	send("enter")
	eventually("confirmed", func(r *store.CaseRecord) bool { return r.Status == model.StatusConfirmed })
	// Confirming moves on to the next unconfirmed trace.
	waitFor("North America last quarter?")
	send("ctrl+p")
	waitFor("finance_analyst as fin.analyst.02")
	send("u")
	eventually("undo", func(r *store.CaseRecord) bool { return r.Status == model.StatusSuggested })
	send("q")
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if fm.trace.id != "trace_9f31c2" || fm.screen != screenTrace {
		t.Errorf("final model on %q screen %d", fm.trace.id, fm.screen)
	}
	rec, err := st.Traces.CaseForTrace(ctx, "trace_9f31c2")
	if err != nil || rec.Status != model.StatusSuggested {
		t.Fatalf("after undo: %+v %v", rec, err)
	}
	if c := rec.Case.Label; c.Correct == nil || !*c.Correct || c.FailureClass == nil || *c.FailureClass != model.ClassSemantic {
		t.Errorf("label after the flow: %+v", c)
	}
}
