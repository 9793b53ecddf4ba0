package store

import (
	"context"
	"database/sql"
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
