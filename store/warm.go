package store

import (
	"context"
	"errors"
	"time"
)

// warmTraceID is the trace WarmEdits reads through an edit's path: one
// that should not exist, though nothing is written if it does (an edit
// that changes nothing is rolled back, a case it made with it).
const warmTraceID = "tracelab warm-up: no such trace"

// warmWait bounds WarmEdits: an edit waits for the writer lock that an
// import or a migration holds, and the warm-up must not hold the
// workbench's first screen behind one (its first key then pays the first
// use, as without it).
const warmWait = time.Second

// sqlWarmQueue runs the function a label edit's trigger calls
// (tracelab_refresh_queue, the migrations') for a trace that does not
// exist: its statements are compiled and planned, no row is read or
// written.
const sqlWarmQueue = `SELECT tracelab_refresh_queue(-1)`

// WarmEdits readies the connection the next edit will use on
// PostgreSQL, so that a labeler's first keys cost what the later ones
// do. A new server process reads the catalog of every table and index
// it touches, and compiles a trigger's function the first time the
// trigger fires: measured, a new connection's first edit took 8.7 ms on
// the server against about 1 ms for the next, and with 50 labelers
// starting at once those first keys were the slowest tenth of all. Here
// that happens before the first key: the edit's reads run (BEGIN, the
// trace's locks and the three reads of EditGroup, in one round trip) for
// a trace no one has, and the queue function the edit's trigger calls
// runs for none. Nothing is written; the key of a trace that does not
// exist is locked for a moment. SQLite has no such first cost: nothing
// to do.
func (s *Store) WarmEdits(ctx context.Context) error {
	if s.d != postgresDialect {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, warmWait)
	defer cancel()
	_, err := s.EditGroup(ctx, warmTraceID, "", false, func(*CaseRecord) ([]FieldChange, error) {
		return nil, nil
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	_, err = s.db.ExecContext(ctx, sqlWarmQueue)
	return err
}
