package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// A database labeled before edit groups existed (schema 2) migrates with
// every old event a group of its own: undo still reverts the newest edit,
// and the events stay append-only.
func TestGroupsMigrationKeepsOldUndo(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		loc := olderDatabase(t, b, 2,
			`INSERT INTO traces (id, trace_id, question, content_sha, imported_at) VALUES (1, 't1', 'How many?', 'x', '2026-08-01T00:00:00Z')`,
			`INSERT INTO cases (case_id, trace_pk, source_trace, question, gold, label, cost, status)
		 VALUES ('t1', 1, 't1', 'How many?', '{}', '{"correct":false,"grounded":null,"failure_class":"semantic","note":""}', '{}', 'suggested')`,
			`INSERT INTO events (case_id, at, who, field, old, new) VALUES ('t1', '2026-08-01T00:00:01Z', 'ann', 'label.correct', 'null', 'true')`,
			`INSERT INTO events (case_id, at, who, field, old, new) VALUES ('t1', '2026-08-01T00:00:02Z', 'ann', 'label.correct', 'true', 'false')`)
		st := b.openAt(t, loc, Options{})
		if v, _ := st.SchemaVersion(ctx); v < 4 {
			t.Fatalf("schema %d after open", v)
		}
		g, err := st.UndoGroup(ctx, "t1", "ann")
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Events) != 1 || string(g.Events[0].New) != "true" || g.Events[0].Undoes != 2 {
			t.Fatalf("undo of the older schema's newest edit: %+v", g)
		}
		cr, _ := st.CaseForTrace(ctx, "t1")
		if c := cr.Case.Label.Correct; c == nil || !*c {
			t.Errorf("label.correct after undo = %v, want true", c)
		}
		if _, err := st.db.Exec(`UPDATE events SET who = 'x'`); err == nil {
			t.Error("events can be updated after the migration")
		}
	})
}

// EditGroup writes one group with one event per changed field, skips
// fields that do not change, and writes nothing at all for no change.
func TestEditGroup(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		st := b.open(t)
		if _, err := importString(t, st, "t.jsonl", goodTraces, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		set := func(cs ...FieldChange) Group {
			t.Helper()
			g, err := st.EditGroup(ctx, "t1", "ann", false, func(*CaseRecord) ([]FieldChange, error) { return cs, nil })
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		if g := set(FieldChange{"label.correct", json.RawMessage("null")}); g.ID != 0 {
			t.Fatalf("a change to nothing wrote group %d", g.ID)
		}
		if cr, _ := st.CaseForTrace(ctx, "t1"); cr != nil {
			t.Fatal("a no-op created a case")
		}
		g := set(FieldChange{"label.correct", json.RawMessage("true")}, FieldChange{"label.grounded", json.RawMessage("null")},
			FieldChange{"label.failure_class", json.RawMessage(`"temporal"`)})
		if len(g.Events) != 2 || g.Events[0].Group != g.ID || g.Events[1].Group != g.ID {
			t.Fatalf("group %+v: want 2 events in it", g)
		}
		boom := errors.New("boom")
		if _, err := st.EditGroup(ctx, "t1", "ann", false, func(*CaseRecord) ([]FieldChange, error) { return nil, boom }); !errors.Is(err, boom) {
			t.Fatalf("error from fn: %v", err)
		}
		u, err := st.UndoGroup(ctx, "t1", "ann")
		if err != nil || len(u.Events) != 2 {
			t.Fatalf("undo: %+v %v", u, err)
		}
		cr, _ := st.CaseForTrace(ctx, "t1")
		if cr.Case.Label.Correct != nil || cr.Case.Label.FailureClass != nil {
			t.Errorf("after undo: %+v", cr.Case.Label)
		}
		if _, err := st.RedoGroup(ctx, "t1", "ann"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.RedoGroup(ctx, "t1", "ann"); !errors.Is(err, ErrNothingToRedo) {
			t.Errorf("second redo: %v", err)
		}
	})
}
