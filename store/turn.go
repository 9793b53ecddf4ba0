package store

import (
	"context"
	"database/sql"
)

// sqlRescoreTurn takes, in a transaction of its own so that its wait
// has no lock_timeout (SET LOCAL), the session's advisory lock that
// RescoreTurn hands out: a lock of the session, it outlives the COMMIT.
const (
	rescoreTurnKey   = `hashtext('tracelab rescore ' || current_schema()), 0`
	sqlRescoreTurn   = `SELECT pg_advisory_lock(` + rescoreTurnKey + `)`
	sqlNoLockTimeout = `SET LOCAL lock_timeout = 0`
	sqlEndTurn       = `SELECT pg_advisory_unlock(` + rescoreTurnKey + `)`
)

// RescoreTurn waits for the database's one turn to rescore in the
// background and returns what gives it back. Every labeler's workbench
// rescores the traces their actions marked stale (app: the background),
// and each lists every marked trace, so at 8 labelers on a shared
// PostgreSQL store eight rescores wrote the same traces at once, each
// batch holding the rows of the traces before it while it waited for
// the next: the labelers' edits of those traces, and n passing them,
// waited behind the batches. In turn, a rescore finds the marks the
// one before it cleared gone. SQLite has one writer already: no turn.
// The wait ends with ctx.
func (s *Store) RescoreTurn(ctx context.Context) (release func(), err error) {
	if s.d != postgresDialect {
		return func() {}, nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	// Read-only: it writes nothing, so it takes no writer lock.
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err == nil {
		if _, err = tx.ExecContext(ctx, sqlNoLockTimeout); err == nil {
			_, err = tx.ExecContext(ctx, sqlRescoreTurn)
		}
		if err == nil {
			err = tx.Commit()
		} else {
			_ = tx.Rollback()
		}
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return func() {
		// A connection that failed to give the lock back is closed, and
		// the server gives it back with the session.
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), sqlEndTurn); err != nil {
			_ = conn.Raw(func(dc any) error { return dc.(*pgConn).Close() })
		}
		conn.Close()
	}, nil
}
