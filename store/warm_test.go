package store

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestWarmLabelingWritesNothing: the warm-up rehearses n and a labeling
// edit and leaves the database as it was, whichever trace it edits (one
// with a case, one reserved, one with neither: an edit of it would make
// its case), in either queue; and the edits after it are written.
func TestWarmLabelingWritesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		st, clk := openQueue(t, b, 3)
		if _, err := st.EditGroup(ctx, "q000", "ana", false, func(*CaseRecord) ([]FieldChange, error) {
			return []FieldChange{{Field: "label.correct", Value: json.RawMessage(`true`)}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Reserve(ctx, "q001", "ana"); err != nil {
			t.Fatal(err)
		}
		before := snapshotOf(t, st, warmTables...)
		for _, q := range []Query{{}, {Filter: Filter{QueuedOnly: true}}, {Sort: SortClass, Desc: true}} {
			for range 3 { // the clock picks each trace in turn
				clk.add(time.Millisecond)
				if err := st.WarmLabeling(ctx, q); err != nil {
					t.Fatalf("WarmLabeling(%+v): %v", q, err)
				}
			}
		}
		if after := snapshotOf(t, st, warmTables...); after != before {
			t.Errorf("WarmLabeling changed the database:\nbefore %s\nafter  %s", before, after)
		}
		if _, err := st.EditGroup(ctx, "q002", "bo", false, func(*CaseRecord) ([]FieldChange, error) {
			return []FieldChange{{Field: "label.grounded", Value: json.RawMessage(`true`)}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		if after := snapshotOf(t, st, warmTables...); after == before {
			t.Error("an edit after WarmLabeling left the database as it was: was it rolled back too?")
		}
	})
}

// warmTables are those an edit, its triggers or a reservation write.
var warmTables = []string{"traces", "cases", "events", "event_groups", "rater_labels", "reservations"}

// TestWarmLabelingRunsTheKeys: on PostgreSQL the warm-up runs n's pick
// and an edit whose trigger fires (their first runs in a server process
// are what cost): without the function each calls, it fails with that
// function's error.
func TestWarmLabelingRunsTheKeys(t *testing.T) {
	for _, fn := range []string{"tracelab_free_now(BIGINT, BIGINT, TEXT)", "tracelab_refresh_queue(BIGINT)"} {
		t.Run(fn, func(t *testing.T) {
			st, _ := openQueue(t, backends[1], 1)
			if _, err := st.db.Exec(`DROP FUNCTION ` + fn); err != nil {
				t.Fatal(err)
			}
			name := fn[:strings.IndexByte(fn, '(')]
			if err := st.WarmLabeling(context.Background(), Query{}); err == nil || !strings.Contains(err.Error(), name) {
				t.Fatalf("WarmLabeling without %s: %v, want its error", name, err)
			}
		})
	}
}

// TestWarmLabelingDoesNotWaitForAnImport: an import holds the writer lock
// the edit path waits for (for --lock-wait, minutes by default); the
// warm-up gives up instead of holding the workbench's first screen, and
// the store works after it.
func TestWarmLabelingDoesNotWaitForAnImport(t *testing.T) {
	ctx := context.Background()
	b := backends[1]
	queue, _ := openQueue(t, b, 1)
	st := b.openAt(t, queue.Path(), Options{LockWait: time.Hour})
	other := b.openAt(t, st.Path(), Options{})
	tx, err := other.db.BeginTx(ctx, nil) // the writer lock, as an import holds it
	if err != nil {
		t.Fatal(err)
	}
	if err := st.WarmLabeling(ctx, Query{}); err == nil {
		t.Error("WarmLabeling with the writer lock held elsewhere: no error, want it to give up")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := st.WarmLabeling(ctx, Query{}); err != nil {
		t.Errorf("WarmLabeling after the lock was let go: %v", err)
	}
}
