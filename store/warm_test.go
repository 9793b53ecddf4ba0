package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestWarmEditsWritesNothing: the warm-up reads through an edit's path
// and runs the queue's trigger function, and leaves the database as it
// was, even when a trace has the id it reads (it has no case: an edit of
// it would make one).
func TestWarmEditsWritesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		st := b.open(t)
		var lines strings.Builder
		for _, id := range []string{"w000", warmTraceID} {
			fmt.Fprintf(&lines, `{"trace_id":%q,"server":"s","question":"question %s","steps":[{"kind":"answer","text":"x"}]}`+"\n", id, id)
		}
		if _, err := importString(t, st, "warm.jsonl", lines.String(), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.EditGroup(ctx, "w000", "ana", false, func(*CaseRecord) ([]FieldChange, error) {
			return []FieldChange{{Field: "label.correct", Value: json.RawMessage(`true`)}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Reserve(ctx, "w000", "ana"); err != nil {
			t.Fatal(err)
		}
		before := warmDump(t, st)
		if err := st.WarmEdits(ctx); err != nil {
			t.Fatalf("WarmEdits: %v", err)
		}
		if after := warmDump(t, st); after != before {
			t.Errorf("WarmEdits changed the database:\nbefore %s\nafter  %s", before, after)
		}
	})
}

// warmDump is what an edit, its trigger or a reservation would change:
// the rows of cases, events, groups, raters and reservations, and each
// trace's queue columns.
func warmDump(t *testing.T, st *Store) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT count(*) FROM cases`, `SELECT count(*) FROM events`, `SELECT count(*) FROM event_groups`,
		`SELECT count(*) FROM rater_labels`, `SELECT count(*) FROM reservations`,
	} {
		var n int
		if err := st.db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		fmt.Fprintf(&b, "%d ", n)
	}
	rows, err := st.db.Query(`SELECT trace_id, case_id, case_status, label_class, queue_class, score_ok, teaches FROM traces ORDER BY trace_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, caseID, status, label, queue string
		var ok, teaches int
		if err := rows.Scan(&id, &caseID, &status, &label, &queue, &ok, &teaches); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "[%s %s %s %s %s %d %d]", id, caseID, status, label, queue, ok, teaches)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestWarmEditsRunsTheQueueFunction: on PostgreSQL the warm-up calls the
// function a label edit's trigger calls (its first call in a server
// process is what costs): without it, the warm-up fails.
func TestWarmEditsRunsTheQueueFunction(t *testing.T) {
	b := backends[1]
	st := b.open(t)
	if _, err := st.db.Exec(`DROP FUNCTION tracelab_refresh_queue(BIGINT)`); err != nil {
		t.Fatal(err)
	}
	err := st.WarmEdits(context.Background())
	if err == nil || !strings.Contains(err.Error(), "tracelab_refresh_queue") {
		t.Fatalf("WarmEdits without tracelab_refresh_queue: %v, want its error", err)
	}
}

// TestWarmEditsDoesNotWaitForAnImport: an import holds the writer lock
// the edit path waits for (for --lock-wait, minutes by default); the
// warm-up gives up instead of holding the workbench's first screen, and
// the store works after it.
func TestWarmEditsDoesNotWaitForAnImport(t *testing.T) {
	ctx := context.Background()
	b := backends[1]
	st := b.openAt(t, b.fresh(t), Options{LockWait: time.Hour})
	other := b.openAt(t, st.Path(), Options{})
	tx, err := other.db.BeginTx(ctx, nil) // the writer lock, as an import holds it
	if err != nil {
		t.Fatal(err)
	}
	if err := st.WarmEdits(ctx); err == nil {
		t.Error("WarmEdits with the writer lock held elsewhere: no error, want it to give up")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := st.WarmEdits(ctx); err != nil {
		t.Errorf("WarmEdits after the lock was let go: %v", err)
	}
}
