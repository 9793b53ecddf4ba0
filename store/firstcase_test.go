package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// TestFirstEditMakesTheCase: a trace's first edit makes its case (on
// PostgreSQL in the round trip that inserts it, from the trace the
// BEGIN's reads found without one) and returns it as stored; a trace
// whose case id is taken by a case of no trace is refused saying so, as
// before; an unknown trace is not found; and a first edit that changes
// nothing leaves no case behind.
func TestFirstEditMakesTheCase(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		st, _ := openQueue(t, b, 4)
		set := func(v string) func(*CaseRecord) ([]FieldChange, error) {
			return func(*CaseRecord) ([]FieldChange, error) {
				return []FieldChange{{Field: "label.note", Value: json.RawMessage(v)}}, nil
			}
		}
		g, err := st.EditGroup(ctx, "q001", "ann", false, set(`"first"`))
		if err != nil {
			t.Fatal(err)
		}
		stored, err := st.CaseForTrace(ctx, "q001")
		if err != nil || stored == nil {
			t.Fatalf("no case after the first edit: %v", err)
		}
		if g.Case == nil || g.Case.Case.CaseID != "q001" || g.Case.TraceID != "q001" || g.Case.Case.Question != "question 1" ||
			g.Case.Case.Label.Note != "first" || g.Case.Case.Label.Note != stored.Case.Label.Note || g.Case.Status != stored.Status {
			t.Fatalf("first edit returned %+v, stored %+v", g.Case, stored)
		}
		if evs, err := st.Events(ctx, "q001"); err != nil || len(evs) == 0 {
			t.Fatalf("events of the new case: %v %v", evs, err)
		}

		// A first edit that sets only the status keeps the new case's
		// content hash as made: the hash of the trace's empty case.
		if _, err := st.EditGroup(ctx, "q000", "ann", false, func(*CaseRecord) ([]FieldChange, error) {
			return []FieldChange{{Field: "status", Value: json.RawMessage(`"confirmed"`)}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		var sha string
		if err := st.db.QueryRowContext(ctx, `SELECT content_sha FROM cases WHERE case_id = 'q000'`).Scan(&sha); err != nil {
			t.Fatal(err)
		}
		if want := contentSHA(&model.Case{CaseID: "q000", SourceTrace: "q000", Question: "question 0"}); sha != want {
			t.Errorf("content hash of a case made by a confirm: %s, want %s", sha, want)
		}

		// q002's case id is taken by a case that belongs to no trace.
		if _, err := st.db.ExecContext(ctx, `INSERT INTO cases (case_id, question, gold, label, cost, status)
			VALUES ('q002', 'elsewhere', '{}', '{}', '{}', 'suggested')`); err != nil {
			t.Fatal(err)
		}
		if _, err := st.EditGroup(ctx, "q002", "ann", false, set(`"x"`)); err == nil || !strings.Contains(err.Error(), "belongs to another trace") {
			t.Fatalf("edit of a trace whose case id is taken: %v, want it refused", err)
		}
		if _, err := st.EditGroup(ctx, "nosuch", "ann", false, set(`"x"`)); !errors.Is(err, ErrNotFound) {
			t.Fatalf("edit of an unknown trace: %v, want not found", err)
		}
		if g, err := st.EditGroup(ctx, "q003", "ann", false, set(`""`)); err != nil || g.ID != 0 {
			t.Fatalf("edit changing nothing: group %d, %v", g.ID, err)
		}
		if cr, err := st.CaseForTrace(ctx, "q003"); err != nil || cr != nil {
			t.Fatalf("an edit that changed nothing left case %+v (%v)", cr, err)
		}
	})
}
