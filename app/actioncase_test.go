package app

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
)

// TestActionReturnsTheCaseAsStored: the case an action returns is the
// case as its transaction left it (the store hands it back instead of the
// engine reading it again), so it must be what reading the case right
// after says, field for field, for every kind of action: a first edit
// that makes the case, label edits by two labelers (the settled label,
// disputed), gold edits, accepting a suggestion, an adjudication (which
// reads the case again inside its transaction), confirming and taking it
// back, and a key that changes nothing on a trace with no case yet.
func TestActionReturnsTheCaseAsStored(t *testing.T) {
	eachTeamBackend(t, func(t *testing.T, loc string) {
		teamDatabase(t, loc)
		ctx := context.Background()
		a, b := labelerEngine(t, loc), labelerEngine(t, loc)
		const id, other = "trace_9f31c2", "trace_e7c3b5"
		entity, semantic := model.ClassEntity, model.ClassSemantic
		steps := []struct {
			name string
			run  func() (ActionResult, error)
		}{
			{"first edit", func() (ActionResult, error) { return a.Labels.SetClass(ctx, id, "ann", &entity) }},
			{"toggle", func() (ActionResult, error) { return a.Labels.ToggleCorrect(ctx, id, "ann") }},
			{"second labeler", func() (ActionResult, error) { return b.Labels.SetClass(ctx, id, "bob", &semantic) }},
			{"second labeler again", func() (ActionResult, error) { return b.Labels.ToggleGrounded(ctx, id, "bob") }},
			{"mark field", func() (ActionResult, error) { return a.Labels.MarkField(ctx, id, "ann", "customers.region", true) }},
			{"gold and label", func() (ActionResult, error) {
				return a.Labels.EditFields(ctx, id, "ann", FieldEdit{"gold.definition", jsonOf("active: status in (A)")},
					FieldEdit{"label.grounded", jsonOf(false)})
			}},
			{"accept", func() (ActionResult, error) { return b.Labels.AcceptSuggestion(ctx, other, "bob") }},
			{"accept again", func() (ActionResult, error) { return a.Labels.AcceptSuggestion(ctx, other, "ann") }},
			{"adjudicate", func() (ActionResult, error) {
				return a.Raters.Adjudicate(ctx, id, "lead", AdjudicateRequest{Pick: "bob", Note: "bob is right"})
			}},
			{"confirm", func() (ActionResult, error) { return b.Labels.ConfirmLabel(ctx, id, "bob", true) }},
			{"unconfirm", func() (ActionResult, error) {
				return a.Labels.EditFields(ctx, id, "ann", FieldEdit{"status", jsonOf(model.StatusSuggested)})
			}},
			{"undo", func() (ActionResult, error) { return a.Labels.Undo(ctx, id, "ann") }},
			{"confirm other", func() (ActionResult, error) { return a.Labels.ConfirmLabel(ctx, other, "ann", true) }},
			{"no change, no case", func() (ActionResult, error) { return a.Labels.SetClass(ctx, "trace_3a6e0f", "ann", nil) }},
		}
		for _, s := range steps {
			res, err := s.run()
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			tid := id
			if res.Case != nil {
				tid = res.Case.TraceID
			} else if s.name != "no change, no case" {
				t.Fatalf("%s: no case returned", s.name)
			}
			if s.name == "no change, no case" {
				tid = "trace_3a6e0f"
			}
			stored, err := a.Traces.CaseForTrace(ctx, tid)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := caseJSON(t, res.Case), caseJSON(t, stored); got != want {
				t.Errorf("%s: the action returned\n%s\nthe store holds\n%s", s.name, got, want)
			}
		}
	})
}

// TestEditGroupReturnsItsCase: the store hands back the case an edit
// wrote (what spares the engine a read after every key), and none when
// the edit changed nothing and rolled back.
func TestEditGroupReturnsItsCase(t *testing.T) {
	eachTeamBackend(t, func(t *testing.T, loc string) {
		teamDatabase(t, loc)
		ctx := context.Background()
		e := labelerEngine(t, loc)
		set := func(v any) func(*store.CaseRecord) ([]store.FieldChange, error) {
			return func(*store.CaseRecord) ([]store.FieldChange, error) {
				return []store.FieldChange{{Field: "label.correct", Value: jsonOf(v)}}, nil
			}
		}
		g, err := e.st.EditGroup(ctx, "trace_9f31c2", "ann", false, set(true))
		if err != nil {
			t.Fatal(err)
		}
		if g.Case == nil || g.Case.Case.Label.Correct == nil || !*g.Case.Case.Label.Correct || g.Case.UpdatedBy != "ann" {
			t.Fatalf("edit returned case %+v, want ann's correct = true", g.Case)
		}
		if g, err = e.st.EditGroup(ctx, "trace_9f31c2", "ann", false, set(true)); err != nil || g.Case != nil || g.ID != 0 {
			t.Fatalf("no-change edit: group %d case %v err %v, want none", g.ID, g.Case, err)
		}
		g, err = e.st.EditGroup(ctx, "trace_9f31c2", "ann", false, func(*store.CaseRecord) ([]store.FieldChange, error) {
			return nil, errors.New("refused")
		})
		if err == nil || g.Case != nil {
			t.Fatalf("refused edit: case %v err %v, want an error and no case", g.Case, err)
		}
	})
}

func caseJSON(t *testing.T, cr *CaseRecord) string {
	t.Helper()
	b, err := json.MarshalIndent(cr, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
