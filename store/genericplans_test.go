package store

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestTraceTransactionsPlanOnce: on PostgreSQL a transaction on one
// trace's case (an edit, an undo, a reservation) runs with generic plans,
// whether it begins with its reads (beginReads) or alone; one that is
// not on one trace (n's) keeps the server's choice, and the setting ends
// with the transaction.
func TestTraceTransactionsPlanOnce(t *testing.T) {
	ctx := context.Background()
	st := backends[1].open(t)
	st.db.SetMaxOpenConns(1) // one connection: what a transaction set is seen after it
	mode := func(tx *sql.Tx) string {
		var m string
		if err := tx.QueryRowContext(ctx, `SHOW plan_cache_mode`).Scan(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	withReads := withBeginReads(ctx, &beginReads{
		queue: func(b *pgx.Batch) { b.Queue(`SELECT 1`) },
		read: func(br pgx.BatchResults) error {
			var one int
			return br.QueryRow().Scan(&one)
		},
	})
	for _, tc := range []struct {
		name string
		run  func(func(*sql.Tx) error) error
		want string
	}{
		{"one trace", func(fn func(*sql.Tx) error) error { return st.inTraceTx(ctx, "t1", fn) }, "force_generic_plan"},
		{"one trace, reads with the BEGIN", func(fn func(*sql.Tx) error) error { return st.inTraceTx(withReads, "t1", fn) }, "force_generic_plan"},
		{"rows it locks itself (n)", func(fn func(*sql.Tx) error) error { return st.inCaseTx(ctx, fn) }, "auto"},
		{"n, reads with the BEGIN", func(fn func(*sql.Tx) error) error { return st.inCaseTx(withReads, fn) }, "auto"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			if err := tc.run(func(tx *sql.Tx) error { got = mode(tx); return nil }); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("plan_cache_mode in the transaction: %s, want %s", got, tc.want)
			}
			var after string
			if err := st.db.QueryRowContext(ctx, `SHOW plan_cache_mode`).Scan(&after); err != nil {
				t.Fatal(err)
			}
			if after != "auto" {
				t.Errorf("plan_cache_mode after the transaction: %s, want auto", after)
			}
		})
	}
}

// TestQueuePickPlansOnce: on PostgreSQL, n's pick on a queue whose
// filter binds no values runs on a generic plan from its first run
// (planOnce); one whose filter binds values (a server) keeps the server's
// choice, a plan made for those values. Both paths of n plan alike: the
// pick that takes a trace in one round trip (oneTrip), and the one that
// finds nothing free and looks again with the BEGIN (beginReads).
func TestQueuePickPlansOnce(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name        string
		q           Query
		after       string
		wantGeneric bool
	}{
		{"the whole queue, from the top", Query{}, "", true},
		{"the whole queue, after a trace", Query{}, "q001", true},
		{"queued only, nothing queued", Query{Filter: Filter{QueuedOnly: true}}, "", true},
		{"one server", Query{Filter: Filter{Servers: []string{"s1"}}}, "", false},
		{"one server, after a trace", Query{Filter: Filter{Servers: []string{"s1"}}}, "q001", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _ := openQueue(t, backends[1], 4)
			st.db.SetMaxOpenConns(1) // the statements prepared, and seen, on one connection
			if _, err := st.NextInQueue(ctx, tc.q, tc.after, "ann"); err != nil && !errors.Is(err, ErrQueueDone) {
				t.Fatal(err)
			}
			var generic, custom int64
			if err := st.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(generic_plans), 0), COALESCE(SUM(custom_plans), 0)
				FROM pg_prepared_statements WHERE statement LIKE '%tracelab_free_now%'`).Scan(&generic, &custom); err != nil {
				t.Fatal(err)
			}
			if generic+custom == 0 {
				t.Fatal("no pick was run on the connection")
			}
			if got := custom == 0; got != tc.wantGeneric {
				t.Errorf("the pick's plans: %d generic, %d custom; want only generic: %v", generic, custom, tc.wantGeneric)
			}
		})
	}
}
