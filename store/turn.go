package store

import "context"

// sqlRescoreTurn takes the session's advisory lock RescoreTurn hands
// out, waiting at most the lock wait (lock_timeout); sqlEndTurn gives it
// back.
const (
	rescoreTurnKey = `hashtext('tracelab rescore ' || current_schema()), 0`
	sqlRescoreTurn = `SELECT pg_advisory_lock(` + rescoreTurnKey + `)`
	sqlEndTurn     = `SELECT pg_advisory_unlock(` + rescoreTurnKey + `)`
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
	// A turn may last longer than the lock wait, and a statement that
	// waits longer than that plus a margin is taken for a silent server
	// (pganswer.go): each try waits at most the lock wait, and one that
	// ran out is tried again, until ctx ends.
	//
	// A try's wait can run out (or be cancelled) at the moment the turn
	// is granted: the statement fails and PostgreSQL keeps the session's
	// lock all the same. So each try that ran out gives back whatever it
	// took (a warning when it took nothing, which nobody reads), or the
	// next try took the lock a second time and the turn's one unlock left
	// it held; and a wait that fails ends its session, which gives it
	// back, instead of putting it back in the pool.
	for {
		if _, err = conn.ExecContext(ctx, sqlRescoreTurn); !IsLocked(err) {
			break
		}
		if _, err = conn.ExecContext(ctx, sqlEndTurn); err != nil {
			break
		}
	}
	if err != nil {
		dropConn(conn)
		return nil, err
	}
	return func() {
		// A connection that failed to give the lock back is closed, and
		// the server gives it back with the session.
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), sqlEndTurn); err != nil {
			dropConn(conn)
			return
		}
		conn.Close()
	}, nil
}
