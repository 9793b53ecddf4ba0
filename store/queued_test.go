package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// The queue `tracelab sample` draws is read through its own index
// (migration 0049), not by reading every trace to find the queued ones:
// on PostgreSQL each n on it scanned the whole table (200 ms of the
// server's time at 100,000 traces), and SQLite walked the traces in id
// order to the first one queued.
func TestQueuedQueueReadsItsIndex(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		st := b.open(t)
		const n = 3000
		if _, err := importString(t, st, "many.jsonl", manyTraces(n), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i := 0; i < n; i += 100 {
			ids = append(ids, fmt.Sprintf("t%03d", i))
		}
		if err := st.SetQueue(ctx, ids); err != nil {
			t.Fatal(err)
		}
		queued := Query{Filter: Filter{QueuedOnly: true}}
		if st.d != postgresDialect {
			where, args := queued.Filter.where(st.d)
			if p := queryPlan(t, st.db, `SELECT t.id FROM traces t`+where+` ORDER BY t.id LIMIT 1`, args...); !strings.Contains(p, "traces_queued") {
				t.Errorf("plan of the first queued trace:\n%s\nwant it through traces_queued", p)
			}
			return
		}
		// On PostgreSQL, n itself: the table's count of sequential scans
		// does not move. Each backend sends its counts to the server's
		// now and then; pg_stat_force_next_flush (15 and later) has the
		// one connection send them when its transaction ends.
		var version int
		if err := st.db.QueryRowContext(ctx, `SHOW server_version_num`).Scan(&version); err != nil {
			t.Fatal(err)
		}
		if version < 150000 {
			t.Skipf("PostgreSQL %d: pg_stat_force_next_flush is new in 15", version)
		}
		// One connection, and the ones the pool closes gone from the
		// server first: a backend sends its counts as it exits, and scans
		// they had made before (importing, queueing), arriving after the
		// count taken before the n's, were taken for the n's (7 runs in
		// 25 on a loaded machine).
		onePoolConn(t, st)
		seqScans := func() int64 {
			t.Helper()
			if _, err := st.db.ExecContext(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
				t.Fatal(err)
			}
			var scans int64
			if err := st.db.QueryRowContext(ctx, `SELECT seq_scan FROM pg_stat_user_tables WHERE relid = 'traces'::regclass`).Scan(&scans); err != nil {
				t.Fatal(err)
			}
			return scans
		}
		before := seqScans()
		after := ""
		for i := range 3 {
			next, err := st.NextInQueue(ctx, queued, after, "ann")
			if err != nil {
				t.Fatal(err)
			}
			if next.TraceID != ids[i] {
				t.Fatalf("n %d took %s, want %s (the queue's order)", i, next.TraceID, ids[i])
			}
			after = next.TraceID
		}
		if d := seqScans() - before; d != 0 {
			t.Errorf("3 n's on the queued queue scanned the whole traces table (%d sequential scans), want no scan", d)
		}
	})
}

// onePoolConn narrows st's pool to one connection and waits until the
// server processes of the others have ended.
func onePoolConn(t *testing.T, st *Store) {
	t.Helper()
	ctx := context.Background()
	var pids []int64
	var held []*sql.Conn // held at once: each is another connection
	for range st.db.Stats().OpenConnections {
		c, err := st.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		var pid int64
		if err := c.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	for _, c := range held {
		c.Close()
	}
	st.db.SetMaxOpenConns(1)
	waitUntil(t, "the pool's other connections to end", func() bool {
		var left int
		if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1)`, pids).Scan(&left); err != nil {
			t.Fatal(err)
		}
		return left <= 1 // the one the pool keeps
	})
}
