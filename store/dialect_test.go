package store

import (
	"context"
	"testing"
	"time"
)

func TestRebind(t *testing.T) {
	tests := []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT ? , ?`, `SELECT $1 , $2`},
		{`WHERE a = ?1 AND b = ?2 OR a = ?1`, `WHERE a = $1 AND b = $2 OR a = $1`},
		{`VALUES (?2, ?, ?)`, `VALUES ($2, $3, $4)`}, // SQLite: a bare ? is one past the largest so far
		{`SELECT '?', "a?b", ? -- what?` + "\n" + `, ?`, `SELECT '?', "a?b", $1 -- what?` + "\n" + `, $2`},
		{`SELECT 'it''s ?', ?`, `SELECT 'it''s ?', $1`},
		{`/* ? */ SELECT ?`, `/* ? */ SELECT $1`},
		{`SELECT $$ ? $$, $tag$ ? $tag$, ?`, `SELECT $$ ? $$, $tag$ ? $tag$, $1`},
		{`SELECT $1, ?`, `SELECT $1, $1`}, // "$1" is not a dollar quote (and not ours to number)
		{`SELECT '?`, `SELECT '?`},        // unterminated: copied as is, the server says what is wrong
		{`x LIKE ? ESCAPE '\'`, `x LIKE $1 ESCAPE '\'`},
	}
	for _, tt := range tests {
		if got := rebind(tt.in); got != tt.want {
			t.Errorf("rebind(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIsPostgres(t *testing.T) {
	for in, want := range map[string]bool{
		"postgres://u@h/db": true, "postgresql://h/db": true, "tracelab.db": false,
		"postgres.db": false, "./postgres://x": false, "": false,
	} {
		if got := IsPostgres(in); got != want {
			t.Errorf("IsPostgres(%q) = %v", in, got)
		}
	}
	if got := redactDSN("postgres://ana:s3cret@db.example/team"); got != "postgres://ana:xxxxx@db.example/team" {
		t.Errorf("redactDSN = %q", got)
	}
}

// Both dialects have the same migrations by number: a schema version
// means one schema whichever backend holds it.
func TestMigrationsMatchAcrossDialects(t *testing.T) {
	lite, err := migrationList(sqliteDialect)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := migrationList(postgresDialect)
	if err != nil {
		t.Fatal(err)
	}
	nums := func(ms []migration) (out []int) {
		for _, m := range ms {
			out = append(out, m.n)
		}
		return out
	}
	if a, b := nums(lite), nums(pg); len(a) != len(b) {
		t.Fatalf("sqlite migrations %v, postgres %v: every migration needs both", a, b)
	}
	for i := range lite {
		if lite[i] != pg[i] {
			t.Errorf("migration %d: sqlite %s, postgres %s", i, lite[i].name, pg[i].name)
		}
	}
}

// A writer waits for another's write transaction up to the lock wait and
// then fails with an error IsLocked recognises; a reader does not wait.
func TestWriterWaitsThenIsLocked(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		loc := b.fresh(t)
		holder := b.openAt(t, loc, Options{})
		waiter := b.openAt(t, loc, Options{LockWait: 300 * time.Millisecond})
		tx, err := holder.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `UPDATE traces SET queued = 0`); err != nil {
			t.Fatal(err)
		}
		if _, err := waiter.CountTraces(ctx); err != nil {
			t.Errorf("a reader waited for the writer: %v", err)
		}
		start := time.Now()
		err = waiter.SetQueue(ctx, nil)
		if !IsLocked(err) {
			t.Fatalf("a second writer: %v, want a locked-database error", err)
		}
		if waited := time.Since(start); waited < 250*time.Millisecond {
			t.Errorf("gave up after %v, before the lock wait", waited)
		}
		tx.Rollback()
		if err := waiter.SetQueue(ctx, nil); err != nil {
			t.Errorf("after the first writer finished: %v", err)
		}
	})
}
