package store

import (
	"context"
	"database/sql"
	"sync"
)

// reuse keeps statements prepared on the store's pool across
// transactions. A live intake batch (tracelab serve) is a transaction of
// a few dozen rows, one after another; preparing its writer's statements,
// its multi-row inserts and its scores' statements anew each time was a
// tenth of the receiver's CPU, and more of a small batch's latency. A
// statement is prepared once on the pool and bound to each transaction
// (sql.Tx.StmtContext), which database/sql prepares once per connection.
type reuse struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// reuseMax bounds the statements kept (each is prepared on every
// connection that runs it); past it a statement is prepared per
// transaction, as without the cache.
const reuseMax = 256

func newReuse(db *sql.DB) *reuse { return &reuse{db: db, m: map[string]*sql.Stmt{}} }

// prepare is q prepared for tx, which must be a transaction of r's pool
// (a nil r prepares it on tx alone). The statement is tx's: it closes
// with tx, and closing it leaves the kept one open. A statement is kept
// only while the pool's connections are unlimited (as the store opens
// it): preparing it on the pool takes a connection besides tx's, which a
// pool of one would wait for forever.
func (r *reuse) prepare(ctx context.Context, tx *sql.Tx, q string) (*sql.Stmt, error) {
	if r == nil || r.db.Stats().MaxOpenConnections != 0 {
		return tx.PrepareContext(ctx, q)
	}
	r.mu.Lock()
	st, ok := r.m[q]
	if !ok && len(r.m) < reuseMax {
		var err error
		if st, err = r.db.PrepareContext(ctx, q); err != nil {
			r.mu.Unlock()
			return nil, err
		}
		r.m[q] = st
	}
	r.mu.Unlock()
	if st == nil {
		return tx.PrepareContext(ctx, q)
	}
	return tx.StmtContext(ctx, st), nil
}
