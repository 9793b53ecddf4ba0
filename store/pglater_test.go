package store

import (
	"context"
	"database/sql"
	"reflect"
	"testing"
	"time"
)

// The writes an edit sends with its COMMIT (pglater.go), on PostgreSQL:
// a statement after them in the transaction sees them; one that fails
// fails the commit, keeps none of the transaction, and leaves the
// connection usable; and an edit group's events carry the ids the log
// gave them although they were written at the commit.
func TestLaterWritesGoWithCommit(t *testing.T) {
	st := backends[1].open(t)
	db := st.db
	db.SetMaxOpenConns(1) // every transaction on the one connection
	ctx := allowLater(context.Background())
	if _, err := db.ExecContext(ctx, `CREATE TABLE later_t (k BIGINT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		t.Helper()
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM later_t`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	err := inTxOn(ctx, db, func(tx *sql.Tx) error {
		for _, k := range []int{1, 2} {
			if err := execLater(ctx, tx, `INSERT INTO later_t (k) VALUES (?)`, k); err != nil {
				return err
			}
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM later_t`).Scan(&n); err != nil {
			return err
		}
		if n != 2 {
			t.Errorf("a read after two queued inserts saw %d rows, want 2", n)
		}
		return execLater(ctx, tx, `INSERT INTO later_t (k) VALUES (?)`, 3)
	})
	if err != nil || count() != 3 {
		t.Fatalf("commit: %v, %d rows, want 3", err, count())
	}

	err = inTxOn(ctx, db, func(tx *sql.Tx) error {
		if err := execLater(ctx, tx, `INSERT INTO later_t (k) VALUES (?)`, 4); err != nil {
			return err
		}
		// A duplicate key: not sent yet, so no error until the commit.
		return execLater(ctx, tx, `INSERT INTO later_t (k) VALUES (?)`, 1)
	})
	if pgCode(err) != "23505" {
		t.Fatalf("commit of a duplicate key: %v, want SQLSTATE 23505", err)
	}
	if n := count(); n != 3 {
		t.Fatalf("after the failed commit %d rows, want 3 (none of its writes)", n)
	}
	// The connection is not left in the aborted transaction.
	if err := inTxOn(ctx, db, func(tx *sql.Tx) error {
		return execLater(ctx, tx, `INSERT INTO later_t (k) VALUES (?)`, 5)
	}); err != nil || count() != 4 {
		t.Fatalf("the next transaction: %v, %d rows, want 4", err, count())
	}
	db.SetMaxOpenConns(0)

	// The first edit creates the case (read after BEGIN); the second
	// finds it in the reads sent with BEGIN (beginWithReads).
	st2, _ := openQueue(t, backends[1], 1)
	var want []Event
	for round, v := range []string{"n", "m"} {
		before, err := st2.CaseForTrace(context.Background(), "q000")
		if err != nil {
			t.Fatal(err)
		}
		g, err := st2.EditGroup(context.Background(), "q000", "ann", false, func(cr *CaseRecord) ([]FieldChange, error) {
			if round == 1 && (cr.Case.Label.Note != "n" || cr.Case.Gold.Definition != "n" || cr.Status != "confirmed") {
				t.Errorf("the second edit read %+v, status %s: not what the first wrote", cr.Case, cr.Status)
			}
			// Read through pgx with BEGIN, the case is what database/sql reads.
			if round == 1 && !reflect.DeepEqual(*cr, *before) {
				t.Errorf("read with BEGIN:\n%+v\nread alone:\n%+v", *cr, *before)
			}
			return []FieldChange{{"label.note", jsonValue(v)}, {"gold.definition", jsonValue(v)},
				{"status", jsonValue(map[string]string{"n": "confirmed", "m": "suggested"}[v])}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if g.ID == 0 || len(g.Events) != 3 {
			t.Fatalf("edit %d: group %d with %d events, want 3", round, g.ID, len(g.Events))
		}
		for _, ev := range g.Events {
			if ev.Group != g.ID {
				t.Errorf("edit %d: event %s in group %d, want %d", round, ev.Field, ev.Group, g.ID)
			}
		}
		want = append(want, g.Events...)
	}
	evs, err := st2.Events(context.Background(), "q000")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events stored, %d returned", len(evs), len(want))
	}
	for i, ev := range want {
		if ev.ID == 0 || ev.ID != evs[i].ID || ev.Field != evs[i].Field || ev.Group != evs[i].Group || string(ev.New) != string(evs[i].New) {
			t.Errorf("event %d: returned %d %s group %d %s, stored %d %s group %d %s", i, ev.ID, ev.Field, ev.Group, ev.New,
				evs[i].ID, evs[i].Field, evs[i].Group, evs[i].New)
		}
	}
}

// A write transaction that fails inside its beginning (here: the writer
// lock's wait runs out) is ended there, so its connection goes back to
// the pool usable: pgx's pool closes one left in a transaction, and the
// next action would pay for a new server process. Each way a write
// begins on PostgreSQL is covered: BeginTx's one query (a queue change),
// an edit's BEGIN with its reads (beginWithReads) and n's one round trip
// (oneTrip, then the transaction it falls back to).
func TestFailedBeginKeepsItsConnection(t *testing.T) {
	b := backends[1]
	ctx := context.Background()
	loc := b.fresh(t)
	waiter := b.openAt(t, loc, Options{LockWait: 100 * time.Millisecond})
	if _, err := importString(t, waiter, "q.jsonl",
		`{"trace_id":"q000","question":"q","steps":[{"kind":"answer","text":"x"}]}`+"\n", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	waiter.db.SetMaxOpenConns(1) // every action on the one connection
	pid := func() int {
		t.Helper()
		var p int
		if err := waiter.db.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := pid()
	holder := b.openAt(t, loc, Options{})
	tx, err := holder.db.BeginTx(ctx, nil) // holds the writer lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, c := range []struct {
		name string
		do   func() error
	}{
		{"BeginTx", func() error { return waiter.SetQueue(ctx, nil) }},
		{"beginWithReads", func() error {
			_, err := waiter.EditTrace(ctx, "q000", "ann", "label.note", jsonValue("n"))
			return err
		}},
		{"oneTrip", func() error { _, err := waiter.NextInQueue(ctx, Query{}, "", "ann"); return err }},
	} {
		if err := c.do(); !IsLocked(err) {
			t.Fatalf("%s while another writer holds the lock: %v, want a locked-database error", c.name, err)
		}
		if p := pid(); p != first {
			t.Errorf("%s failed in its beginning and its connection was replaced (server process %d, was %d)", c.name, p, first)
			first = p
		}
	}
	tx.Rollback()
	if _, err := waiter.NextInQueue(ctx, Query{}, "", "ann"); err != nil {
		t.Fatalf("after the writer finished: %v", err)
	}
}
