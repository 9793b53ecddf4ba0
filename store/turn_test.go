package store

import (
	"context"
	"testing"
	"time"
)

// Two workbenches on one PostgreSQL store rescore in turn: the second
// waits, past its lock wait, until the first gives the turn back; a
// cancelled wait ends. SQLite gives the turn at once.
func TestRescoreTurnIsOneAtATime(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		loc := b.fresh(t)
		first := b.openAt(t, loc, Options{})
		second := b.openAt(t, loc, Options{LockWait: 50 * time.Millisecond})
		release, err := first.RescoreTurn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if first.d != postgresDialect {
			release2, err := second.RescoreTurn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			release2()
			release()
			return
		}
		got := make(chan error, 1)
		go func() {
			release2, err := second.RescoreTurn(ctx)
			if err == nil {
				release2()
			}
			got <- err
		}()
		// Still waiting 200 ms into its wait, past its lock wait (50 ms),
		// which does not apply to the turn.
		waitUntil(t, "the second waiting for the turn for 200 ms", func() bool {
			return count(t, first, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'
				AND wait_event = 'advisory' AND clock_timestamp() - query_start > interval '200 milliseconds'`) == 1
		})
		select {
		case err := <-got:
			t.Fatalf("the second took the turn while the first held it: %v", err)
		default:
		}
		release()
		if err := <-got; err != nil {
			t.Fatalf("the second, once the first gave the turn back: %v", err)
		}
		// A wait ends with its context.
		release, err = first.RescoreTurn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		cctx, cancel := context.WithCancel(ctx)
		go func() { // not the test's goroutine: nothing here may fail it
			defer cancel()
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
				var n int
				err := first.db.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&n)
				if err == nil && n == 1 {
					return
				}
			}
		}()
		if _, err := second.RescoreTurn(cctx); err == nil {
			t.Fatal("a cancelled wait took the turn")
		}
	})
}

// count runs a query of one count on st.
func count(t *testing.T, st *Store, q string) int {
	t.Helper()
	var n int
	if err := st.db.QueryRowContext(context.Background(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitUntil waits for cond, looking every 10 ms, and fails the test
// after 10 s with what it waited for.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
