package store

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"
)

// A batch with kept statements writes every row, in chunks of a power of
// two, and a second transaction prepares nothing new.
func TestReuseKeepsBatchStatements(t *testing.T) {
	st := sqliteStore(t)
	ctx := context.Background()
	if _, err := st.db.ExecContext(ctx, `CREATE TABLE reuse_rows (tx INTEGER, n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	write := func(tx int, rows int) {
		t.Helper()
		sqlTx, err := st.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer sqlTx.Rollback()
		b := newBatch(ctx, sqlTx, `INSERT INTO reuse_rows (tx, n) VALUES`, 2, "")
		b.reuse = st.reuse
		for n := range rows {
			if err := b.add(tx, n); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.flush(); err != nil {
			t.Fatal(err)
		}
		b.close()
		if err := sqlTx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	shapes := func() []int {
		var out []int
		for q := range st.reuse.m {
			if strings.HasPrefix(q, "INSERT INTO reuse_rows") {
				out = append(out, strings.Count(q, "("))
			}
		}
		sort.Ints(out)
		return out
	}
	write(1, 71) // 64, then 4, 2, 1
	got := shapes()
	if want := []int{1 + 1, 2 + 1, 4 + 1, 64 + 1}; !slices.Equal(got, want) { // the column list's "(" too
		t.Fatalf("statement shapes (parentheses) %v, want %v", got, want)
	}
	write(2, 7)
	if again := shapes(); !slices.Equal(again, got) {
		t.Fatalf("a second transaction prepared %v, want the kept %v", again, got)
	}
	for tx, want := range map[int]int{1: 71, 2: 7} {
		var n, distinct int
		if err := st.db.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT n) FROM reuse_rows WHERE tx = ?`, tx).Scan(&n, &distinct); err != nil {
			t.Fatal(err)
		}
		if n != want || distinct != want {
			t.Errorf("transaction %d: %d rows (%d distinct), want %d", tx, n, distinct, want)
		}
	}
}

// With a pool of one connection (the transaction's), nothing is kept:
// preparing on the pool would wait for that connection forever.
func TestReuseNeedsAnUnlimitedPool(t *testing.T) {
	st := sqliteStore(t)
	ctx := context.Background()
	st.db.SetMaxOpenConns(1)
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	before := len(st.reuse.m)
	stmt, err := st.reuse.prepare(ctx, tx, `SELECT COUNT(*) FROM traces`)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := stmt.QueryRowContext(ctx).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if len(st.reuse.m) != before {
		t.Fatalf("kept %d statement(s) with a pool of one", len(st.reuse.m)-before)
	}
}
