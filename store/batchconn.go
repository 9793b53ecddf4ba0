package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/tracelab-dev/tracelab/model"
)

// cacheKiB is the page cache of every SQLite connection (as PRAGMA
// cache_size takes it: negative, in KiB): 32 MB, so bulk imports spill less.
const cacheKiB = -32000

// batchCacheKiB is the page cache of a BatchConn. A scoring run reads each
// page of the traces it loads once, and writes each score's pages once: a
// large cache only holds pages that will not be touched again. The 32 MB
// of the loader's and the writer's connections were a third of a 100k
// scoring run's peak memory, and saved no time.
const batchCacheKiB = -4000

// BatchConn reads or writes batch after batch (a scoring run's loader, or
// its writer) on one connection of the pool reserved for it, with a small
// page cache. One goroutine uses it at a time; Close gives the connection
// back to the pool as it was.
type BatchConn struct {
	s      *Store
	conn   *sql.Conn
	sqlite bool
	reads  *stmtCache // the loader's statements, prepared once
}

// stmtCache is a querier on one connection that prepares each distinct
// statement once. A run of batches sends the same few statements again
// and again (the lists of loadBatch parameters have one size but for the
// last batch); preparing a statement of 400 parameters each time was a
// tenth of loading a batch.
type stmtCache struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
}

func (c *stmtCache) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := c.stmts[q]; ok {
		return st, nil
	}
	st, err := c.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	c.stmts[q] = st
	return st, nil
}

func (c *stmtCache) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := c.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (c *stmtCache) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := c.stmt(ctx, q)
	if err != nil {
		// A Row carries its error to Scan: ask the connection, which
		// fails the same way.
		return c.conn.QueryRowContext(ctx, q, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

func (c *stmtCache) close() {
	for _, st := range c.stmts {
		st.Close()
	}
	clear(c.stmts)
}

// BatchConn reserves a connection for a run of batches.
func (s *Store) BatchConn(ctx context.Context) (*BatchConn, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	r := &BatchConn{s: s, conn: conn, sqlite: s.d == sqliteDialect,
		reads: &stmtCache{conn: conn, stmts: map[string]*sql.Stmt{}}}
	if err := r.setCache(ctx, batchCacheKiB); err != nil {
		conn.Close()
		return nil, err
	}
	return r, nil
}

// setCache sets the page cache of the reserved connection (SQLite's; a
// PostgreSQL server keeps its own).
func (r *BatchConn) setCache(ctx context.Context, kib int) error {
	if !r.sqlite {
		return nil
	}
	_, err := r.conn.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = %d", kib))
	return err
}

// LoadTraces is Store.LoadTraces on the reserved connection.
func (r *BatchConn) LoadTraces(ctx context.Context, ids []string) ([]*model.Trace, error) {
	return loadTraces(ctx, r.reads, ids)
}

// SaveScores is Store.SaveScores on the reserved connection.
func (r *BatchConn) SaveScores(ctx context.Context, rows []ScoreRow, suggestions []Suggestion) error {
	return r.s.saveScores(ctx, r.conn, rows, suggestions)
}

// CasesForTraces is Store.CasesForTraces on the reserved connection.
func (r *BatchConn) CasesForTraces(ctx context.Context, traceIDs []string) (map[string]*CaseRecord, error) {
	return casesForTraces(ctx, r.reads, traceIDs)
}

// Close gives the connection back to the pool with the cache every
// connection has.
func (r *BatchConn) Close() error {
	r.reads.close()
	// Not the caller's context: it may be done, and the connection must
	// not go back to the pool with the small cache.
	err := r.setCache(context.Background(), cacheKiB)
	if cerr := r.conn.Close(); err == nil {
		err = cerr
	}
	return err
}
