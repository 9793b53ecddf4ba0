package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/store/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// backend is one kind of database the store's tests run against.
type backend struct {
	name string
	// fresh names a new empty database for t (a file, a schema).
	fresh func(t *testing.T) string
}

var backends = []backend{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "t.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.DSN(t) }},
}

// eachBackend runs fn as one subtest per backend: the store behaves the
// same on a SQLite file and on PostgreSQL. The postgres subtest skips,
// saying why, only when no server can be had (see pgtest).
func eachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { fn(t, b) })
	}
}

// open opens a store on a new empty database with a fixed clock.
func (b backend) open(t *testing.T) *Store {
	t.Helper()
	return b.openAt(t, b.fresh(t), Options{})
}

// openAt opens the database at loc, closed when t ends.
func (b backend) openAt(t *testing.T, loc string, opts Options) *Store {
	t.Helper()
	st, err := OpenWith(context.Background(), loc, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	st.SetClock(func() time.Time { return time.Date(2026, 7, 4, 10, 0, 0, 0, time.UTC) })
	return st
}

// sqliteStore opens a store on a new SQLite file: for the tests of what
// only a file does (staging imports beside it).
func sqliteStore(t *testing.T) *Store {
	t.Helper()
	return backends[0].open(t)
}

// sqliteTx is a transaction on a store on a new SQLite file, rolled back
// when t ends.
func sqliteTx(t *testing.T) (context.Context, *sql.Tx) {
	t.Helper()
	ctx := context.Background()
	tx, err := sqliteStore(t).db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	return ctx, tx
}
