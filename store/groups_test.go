package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
)

// A database labeled before edit groups existed (schema 2) migrates with
// every old event a group of its own: undo still reverts the newest edit,
// and the events stay append-only.
func TestGroupsMigrationKeepsOldUndo(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v2.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"migrations/0001_init.sql", "migrations/0002_drift.sql"} {
		body, err := migrations.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(body)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for _, q := range []string{
		`PRAGMA user_version = 2`,
		`INSERT INTO traces (id, trace_id, question, content_sha, imported_at) VALUES (1, 't1', 'How many?', 'x', '2026-08-01T00:00:00Z')`,
		`INSERT INTO cases (case_id, trace_pk, source_trace, question, gold, label, cost, status)
		 VALUES ('t1', 1, 't1', 'How many?', '{}', '{"correct":false,"grounded":null,"failure_class":"semantic","note":""}', '{}', 'suggested')`,
		`INSERT INTO events (case_id, at, who, field, old, new) VALUES ('t1', '2026-08-01T00:00:01Z', 'ann', 'label.correct', 'null', 'true')`,
		`INSERT INTO events (case_id, at, who, field, old, new) VALUES ('t1', '2026-08-01T00:00:02Z', 'ann', 'label.correct', 'true', 'false')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
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
}

// EditGroup writes one group with one event per changed field, skips
// fields that do not change, and writes nothing at all for no change.
func TestEditGroup(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
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
}
