package store

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store/pgtest"
)

// labeledFile is a SQLite database with a row in every table: traces and
// their contracts, a suite case, scores, the machine's suggestion, edits
// in groups and an undo, a glossary entry and an approval.
func labeledFile(t *testing.T) *Store {
	t.Helper()
	ctx := context.Background()
	st := backends[0].open(t)
	if _, err := importString(t, st, "a.jsonl", goodTraces, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	c := `{"case_id":"k1","source_trace":"t1","user_role":"r","as_user":"u1","question":"How many?","gold":{"answer":1,"tolerance":0,"required_fields":["a.b"],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":true,"grounded":true,"failure_class":null,"note":""},"cost":{"input_tokens":0,"output_tokens":0,"tool_calls":0,"turns":0,"usd":0}}` + "\n"
	if _, err := importString(t, st, "cases.jsonl", c, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	yes := true
	if err := st.SaveScores(ctx, []ScoreRow{{TraceID: "t1", SuggestedClass: "temporal", Markers: 2, NeedsReview: true, Correct: &yes, GoldSHA: "x", ConfigSHA: "c"},
		{TraceID: "t2", SuggestedClass: "semantic", Detail: json.RawMessage(`{"usd":0.25}`), ConfigSHA: "c"}}, nil); err != nil {
		t.Fatal(err)
	}
	sem := model.ClassSemantic
	if err := st.SuggestCase(ctx, "t2", model.Gold{RequiredFields: []string{"x.y"}}, model.Label{FailureClass: &sem}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.EditGroup(ctx, "t2", "ana", false, func(*CaseRecord) ([]FieldChange, error) {
		return []FieldChange{{Field: "label.correct", Value: json.RawMessage(`false`)}, {Field: "label.note", Value: json.RawMessage(`"too vague"`)}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UndoGroup(ctx, "t2", "ana"); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveGlossary(ctx, GlossaryEntry{Term: "Active customer", Definition: "bought in 90 days", RequiredFields: []string{"orders.at"}}, "ana"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Approve(ctx, []Approval{{Server: "s1", Tool: "run_sql", Fingerprint: "fp", Body: json.RawMessage(`{}`), Source: "test", ApprovedBy: "ana"}}); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestCopyIntoPostgres(t *testing.T) {
	ctx := context.Background()
	src := labeledFile(t)
	dsn := pgtest.DSN(t)
	dst := backends[1].openAt(t, dsn, Options{})
	var seen []string
	rep, err := src.CopyInto(ctx, dst, func(table string, done, total int64) {
		if done == total {
			seen = append(seen, table)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.AlreadyThere {
		t.Error("an empty target reported as already holding the source")
	}
	filled := map[string]bool{"traces": true, "steps": true, "contracts": true, "trace_contracts": true, "cases": true,
		"events": true, "event_groups": true, "glossary": true, "imports": true, "scores": true, "approved_contracts": true}
	for _, c := range rep.Tables {
		if !c.Same() || filled[c.Table] && c.SourceRows == 0 {
			t.Errorf("%+v: the same on both sides, and rows in every table labeledFile fills", c)
		}
		delete(filled, c.Table)
	}
	if len(filled) > 0 {
		t.Errorf("tables not copied: %v", filled)
	}
	if len(seen) != len(rep.Tables) {
		t.Errorf("progress finished %v, want every one of %d tables", seen, len(rep.Tables))
	}
	// What the store reads back is the same on both sides.
	for name, read := range map[string]func(*Store) (any, error){
		"traces":   func(st *Store) (any, error) { ts, _, err := st.ListTraces(ctx, Query{}); return ts, err },
		"cases":    func(st *Store) (any, error) { return st.Cases(ctx, true) },
		"events":   func(st *Store) (any, error) { return st.Events(ctx, "t2") },
		"glossary": func(st *Store) (any, error) { return st.Glossary(ctx) },
		"stale":    func(st *Store) (any, error) { return st.StaleTraces(ctx, "c") },
	} {
		a, errA := read(src)
		b, errB := read(dst)
		if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: sqlite %+v (%v)\npostgres %+v (%v)", name, a, errA, b, errB)
		}
	}
	// The ids go on after the copied ones: a new edit and its group are
	// new rows, and undo finds them.
	if _, err := dst.EditTrace(ctx, "t1", "bo", "label.note", json.RawMessage(`"copied"`)); err != nil {
		t.Fatalf("an edit after the copy: %v", err)
	}
	if g, err := dst.EditGroup(ctx, "t1", "bo", false, func(*CaseRecord) ([]FieldChange, error) {
		return []FieldChange{{Field: "label.note", Value: json.RawMessage(`"again"`)}}, nil
	}); err != nil || g.ID == 0 {
		t.Fatalf("a group after the copy: %+v %v", g, err)
	}

	// Once more: the target now holds other rows than the source.
	if _, err := src.CopyInto(ctx, dst, nil); !errors.Is(err, ErrTargetNotEmpty) {
		t.Errorf("a copy into a changed target: %v, want ErrTargetNotEmpty", err)
	}
	// Into a second, identical copy: nothing to do.
	dst2 := backends[1].openAt(t, pgtest.DSN(t), Options{})
	if _, err := src.CopyInto(ctx, dst2, nil); err != nil {
		t.Fatal(err)
	}
	rep, err = src.CopyInto(ctx, dst2, nil)
	if err != nil || !rep.AlreadyThere {
		t.Errorf("the same copy again: already there %v, %v", rep.AlreadyThere, err)
	}
}

// The hashes tell a changed value, an added row and a value turned NULL
// apart from the source, and a statement that changes nothing does not.
func TestCopyCheckSeesDifferences(t *testing.T) {
	ctx := context.Background()
	src := labeledFile(t)
	tables, err := src.copyOrder(ctx)
	if err != nil {
		t.Fatal(err)
	}
	source, err := src.stats(ctx, tables)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		table, stmt string
		changed     bool
	}{
		{"traces", `UPDATE traces SET answer = answer || ' ' WHERE trace_id = 't2'`, true},
		{"events", `INSERT INTO events (case_id, at, who, field) VALUES ('t2', 'now', 'x', 'label.note')`, true},
		{"scores", `UPDATE scores SET correct = NULL WHERE correct = 1`, true},
		{"glossary", `UPDATE glossary SET updated_by = updated_by`, false},
	} {
		t.Run(tt.table, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "copy.db")
			if _, err := src.db.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
				t.Fatal(err)
			}
			other := backends[0].openAt(t, path, Options{})
			if _, err := other.db.ExecContext(ctx, tt.stmt); err != nil {
				t.Fatal(err)
			}
			rep, err := other.compare(ctx, source, tables)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range rep.Tables {
				if changed := tt.changed && c.Table == tt.table; c.Same() == changed {
					t.Errorf("%s: same %v after %s", c.Table, c.Same(), tt.stmt)
				}
			}
		})
	}
}
