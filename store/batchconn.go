package store

import (
	"context"
	"database/sql"

	"github.com/tracelab-dev/tracelab/model"
)

// cacheKiB is the page cache of every SQLite connection (as PRAGMA
// cache_size takes it: negative, in KiB): 4 MB. It was 32 MB, for bulk
// imports, which no longer gain from it (the 100k corpus: 1.68–1.75×
// the floor either way), while a connection's cache costs at both ends
// of its life: every page it holds is memory faulted in when the page
// is first read, and given back page by page when the connection closes
// (modernc's allocator: a madvise each, a TLB flush across the cores).
// 1,000 new traces into the scored 100k took 0.49 s with 32 MB, 0.42 s
// with 4 MB (medians of six runs, alternated; 2 MB: 0.43 s). At a
// million traces (bench ops) opening a trace took 1.4 ms against 4.7–6.2
// ms and the operations' peak memory was 49 MiB against 80–162 MiB; a
// rare phrase's search page, whose pages a large cache kept, took 9.8
// ms against 6.2 ms, and the other operations the same.
const cacheKiB = -4000

// BatchConn reads or writes batch after batch (a scoring run's loader, or
// its writer) on one connection of the pool reserved for it, its
// statements prepared once. One goroutine uses it at a time; Close gives
// the connection back to the pool.
type BatchConn struct {
	s     *Store
	conn  *sql.Conn
	reads *stmtCache // the loader's statements, prepared once
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
	return &BatchConn{s: s, conn: conn, reads: &stmtCache{conn: conn, stmts: map[string]*sql.Stmt{}}}, nil
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

// Close gives the connection back to the pool.
func (r *BatchConn) Close() error {
	r.reads.close()
	return r.conn.Close()
}
