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
		st, _ := openQueue(t, b, 1)
		line := fmt.Sprintf(`{"trace_id":%q,"question":"warm","steps":[{"kind":"answer","text":"x"}]}`, warmTraceID)
		if _, err := importString(t, st, "warm.jsonl", line+"\n", ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.EditGroup(ctx, "q000", "ana", false, func(*CaseRecord) ([]FieldChange, error) {
			return []FieldChange{{Field: "label.correct", Value: json.RawMessage(`true`)}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Reserve(ctx, "q000", "ana"); err != nil {
			t.Fatal(err)
		}
		before := snapshotOf(t, st, warmTables...)
		if err := st.WarmEdits(ctx); err != nil {
			t.Fatalf("WarmEdits: %v", err)
		}
		if after := snapshotOf(t, st, warmTables...); after != before {
			t.Errorf("WarmEdits changed the database:\nbefore %s\nafter  %s", before, after)
		}
	})
}

// warmTables are those an edit, its triggers or a reservation write.
var warmTables = []string{"traces", "cases", "events", "event_groups", "rater_labels", "reservations"}

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
