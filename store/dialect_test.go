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
	if got := RedactDSN("postgres://ana:s3cret@db.example/team"); got != "postgres://ana:xxxxx@db.example/team" {
		t.Errorf("RedactDSN = %q", got)
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

// A NUL character in text is stored by SQLite; PostgreSQL cannot store it,
// so there the record is refused with its path like any bad record, and
// --skip-bad imports the rest.
func TestNULInText(t *testing.T) {
	const body = `{"trace_id":"ok","question":"q","steps":[{"kind":"answer","text":"x"}]}
{"trace_id":"n1","question":"q","steps":[{"kind":"tool_call","id":"c","tool":"t"},{"kind":"answer","text":"a\u0000b"}]}
`
	const suite = `{"case_id":"k\u0000","question":"q","gold":{"answer":1,"tolerance":0,"required_fields":[],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":null,"grounded":null,"failure_class":null,"note":""},"cost":{"input_tokens":0,"output_tokens":0,"tool_calls":0,"turns":0,"usd":0}}` + "\n"
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		res, err := importString(t, st, "n.jsonl", body, ImportOptions{SkipBad: true})
		if err != nil {
			t.Fatal(err)
		}
		cres, err := importString(t, st, "c.jsonl", suite, ImportOptions{SkipBad: true})
		if err != nil {
			t.Fatal(err)
		}
		if st.d.nulInText {
			if res.New != 2 || len(res.Bad) != 0 || cres.New != 1 {
				t.Errorf("sqlite: %+v %+v, want both traces and the case stored", res, cres)
			}
			return
		}
		want := "n.jsonl:2: steps[1].text: " + errNUL
		if res.New != 1 || len(res.Bad) != 1 || res.Bad[0].Error() != want {
			t.Errorf("postgres: %+v, want one trace and %q", res, want)
		}
		if want := "c.jsonl:1: case_id: " + errNUL; len(cres.Bad) != 1 || cres.Bad[0].Error() != want {
			t.Errorf("postgres case: %+v, want %q", cres, want)
		}
	})
}
