package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// The adjudicator opens the disagreements queue (d), opens the disputed
// trace, and picks ben's label (A, then 2): the disagreement is settled,
// the queue's count of disagreements drops to 0, and ben's label is final.
func TestProgramPickRaterResolvesDisagreement(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	const id = "trace_9f31c2"
	disagree(t, eng, id)
	ctx := context.Background()
	p := newProgram(t, eng, Options{Labeler: "lead"}, 160, 48)
	p.waitScreen("one disagreement counted", func(f string) bool { return strings.Contains(f, "≠ disagree 1") })
	p.send("d")
	p.waitScreen("the disagreements queue", func(f string) bool {
		return strings.Contains(f, "raters:disagree") && strings.Contains(f, " 1 traces") && strings.Contains(lineWith(f, "▌"), id)
	})
	p.send("enter")
	p.waitScreen("the raters side by side", func(f string) bool {
		return strings.Contains(f, "─ Steps ") && strings.Contains(f, "≠ disagree on correct, class") &&
			strings.Contains(lineWith(f, "Raters"), "2 ben")
	})
	p.send("A")
	p.waitScreen("the adjudication dialog", func(f string) bool { return strings.Contains(f, "Adjudicate "+id) })
	p.send("2")
	p.waitScreen("settled", func(f string) bool {
		return strings.Contains(f, "⚖ settled by lead") && strings.Contains(f, "picked ben")
	})
	p.send("esc")
	p.waitScreen("the queue with no disagreement left", func(f string) bool {
		return !strings.Contains(f, "─ Steps ") && strings.Contains(f, " 0 traces") && strings.Contains(f, "≠ disagree 0")
	})
	p.quit()
	if c, err := eng.Traces.Counts(ctx, app.Filter{}); err != nil || c.Disputed != 0 {
		t.Errorf("disagreements after the pick: %d %v", c.Disputed, err)
	}
	rec, _ := eng.Traces.CaseForTrace(ctx, id)
	if l := rec.Case.Label; classText(l.FailureClass) != "temporal" {
		t.Errorf("final label after picking ben: class %s, want ben's temporal", classText(l.FailureClass))
	}
}

// Writing the final label by hand (A, e, the label editor): a note is
// required, and the label and the note land in the event log as one
// adjudication by the adjudicator.
func TestProgramWriteFinalLabelWithNote(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	const id, note = "trace_9f31c2", "filters on is_active, not the governed definition"
	disagree(t, eng, id)
	ctx := context.Background()
	p := newProgram(t, eng, Options{Labeler: "lead"}, 80, 24)
	p.waitFor("33 traces")
	p.openByID(id)
	p.waitScreen("the raters", func(f string) bool { return strings.Contains(f, "≠ disagree on") })
	p.send("A", "e")
	p.waitScreen("the label editor", func(f string) bool { return strings.Contains(f, "Final label") })
	for _, field := range []string{"no", "no", "semantic"} {
		p.typeText(field)
		p.send("tab")
	}
	p.send("ctrl+s") // refused: no note
	p.waitScreen("the note asked for", func(f string) bool { return strings.Contains(f, "1 field(s) need fixing") })
	p.typeText(note)
	p.send("ctrl+s")
	p.waitScreen("settled", func(f string) bool { return strings.Contains(f, "⚖ settled by lead") })
	p.quit()
	rec, err := eng.Traces.CaseForTrace(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := eng.Traces.Events(ctx, rec.Case.CaseID)
	if err != nil {
		t.Fatal(err)
	}
	var adj *model.Adjudication
	for _, e := range evs {
		if e.Field == "adjudication" && e.Who == "lead" {
			adj = &model.Adjudication{}
			if err := json.Unmarshal(e.New, adj); err != nil {
				t.Fatal(err)
			}
		}
	}
	if adj == nil {
		t.Fatalf("no adjudication by lead in the event log: %+v", evs)
	}
	if adj.Note != note || adj.Picked != "" || classText(adj.Label.FailureClass) != "semantic" ||
		boolText(adj.Label.Correct) != "no" || boolText(adj.Label.Grounded) != "no" {
		t.Errorf("adjudication logged: %+v", adj)
	}
	if l := rec.Case.Label; classText(l.FailureClass) != "semantic" || l.Note != note {
		t.Errorf("final label: %+v", l)
	}
}
