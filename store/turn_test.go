package store

import (
	"context"
	"testing"
	"time"
)

// Two workbenches on one PostgreSQL store rescore in turn: the second
// waits, past its lock wait, until the first gives the turn back; a
// cancelled wait ends. SQLite gives the turn at once. (The turn is
// waited for in tries of one lock wait each: one statement waiting
// longer than the lock wait plus 5 s was taken for a silent server,
// pganswer.go.)
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
		got := takeTurnAside(ctx, second)
		// It waits on the server, and through four of its lock waits
		// (50 ms): each try that runs out is tried again.
		waitUntil(t, "the second waiting for the turn", func() bool {
			return count(t, first, sqlTurnWaiters) == 1
		})
		select {
		case err := <-got:
			t.Fatalf("the second stopped waiting while the first held the turn: %v", err)
		case <-time.After(4 * 50 * time.Millisecond):
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
			until(10*time.Second, func() bool {
				var n int
				err := first.db.QueryRowContext(ctx, sqlTurnWaiters).Scan(&n)
				return err == nil && n == 1
			})
		}()
		if _, err := second.RescoreTurn(cctx); err == nil {
			t.Fatal("a cancelled wait took the turn")
		}
	})
}

// A try of RescoreTurn whose wait ran out at the moment the turn was
// granted leaves the turn with the session all the same (PostgreSQL
// keeps a session's advisory lock granted as its statement failed), and
// the next try took it a second time: the turn's one unlock left it held,
// and every other workbench's rescore waited for that connection's end
// (TestRescoreTurnIsOneAtATime hung so under a loaded machine). Tries of
// 1 ms make the race likely; after each turn, nobody holds it.
func TestRescoreTurnLeavesNoTurnBehind(t *testing.T) {
	ctx := context.Background()
	b := backends[1]
	loc := b.fresh(t)
	holder := b.openAt(t, loc, Options{})
	waiter := b.openAt(t, loc, Options{LockWait: time.Millisecond})
	for i := range 200 {
		release, err := holder.RescoreTurn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := takeTurnAside(ctx, waiter)
		waitUntil(t, "the waiter waiting for the turn", func() bool { return count(t, holder, sqlTurnWaiters) == 1 })
		release()
		if err := <-got; err != nil {
			t.Fatalf("turn %d: the waiter, once the turn was given back: %v", i, err)
		}
		if n := count(t, holder, sqlTurnHeld); n != 0 {
			t.Fatalf("turn %d: given back by both, and still held by %d session(s)", i, n)
		}
	}
}

// takeTurnAside waits for st's rescore turn in a goroutine, gives it
// back as soon as it has it, and then sends the wait's error (nil: it
// had the turn).
func takeTurnAside(ctx context.Context, st *Store) <-chan error {
	got := make(chan error, 1)
	go func() {
		release, err := st.RescoreTurn(ctx)
		if err == nil {
			release()
		}
		got <- err
	}()
	return got
}

// sqlTurnHeld counts the sessions holding the rescore turn of the
// asking session's schema.
const sqlTurnHeld = `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted
	AND classid = hashtext('tracelab rescore ' || current_schema())::oid AND objid = 0`

// count runs a query of one count on st.
func count(t *testing.T, st *Store, q string) int {
	t.Helper()
	var n int
	if err := st.db.QueryRowContext(context.Background(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// sqlTurnWaiters counts the sessions waiting for an advisory lock.
const sqlTurnWaiters = `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`

// waitUntil waits for cond, looking every 10 ms, and fails the test
// after 10 s with what it waited for.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !until(10*time.Second, cond) {
		t.Fatalf("gave up waiting for %s", what)
	}
}

// until looks for cond every 10 ms for at most d and says whether it
// held.
func until(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			return false
		}
	}
	return true
}
