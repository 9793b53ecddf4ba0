package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"

	"github.com/jackc/pgx/v5"
)

// Writes sent at commit. An edit of a shared case holds the trace's lock
// from its first statement to its commit, and every statement in between
// was a round trip to the server while the others waited. The writes
// whose answer the edit does not need (the rater's row, the case, its
// event, the reservation) are queued instead and sent together with the
// COMMIT, in one round trip (a pgx batch: one pipeline, one Sync). Any
// other statement on the connection sends the queue first, so statements
// still run in the order they were written.

// laterKey marks a context whose writes may wait for the commit (see
// allowLater); laterDest carries where a queued write's one returned row
// goes.
type (
	laterKey  struct{}
	laterDest struct{}
)

// allowLater is ctx for a transaction on PostgreSQL whose writes made
// through execLater and appendEvent may be sent at commit.
func allowLater(ctx context.Context) context.Context {
	return context.WithValue(ctx, laterKey{}, true)
}

func laterAllowed(ctx context.Context) bool {
	ok, _ := ctx.Value(laterKey{}).(bool)
	return ok
}

// execLater runs a write whose result nobody reads: at commit when ctx
// allows it (allowLater), now otherwise.
func execLater(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	if laterAllowed(ctx) {
		ctx = context.WithValue(ctx, laterDest{}, []any{})
	}
	_, err := tx.ExecContext(ctx, query, args...)
	return err
}

// queryRowLater runs a write returning one row scanned into dest: at
// commit when ctx allows it (dest is filled in then), now otherwise.
func queryRowLater(ctx context.Context, tx *sql.Tx, dest []any, query string, args ...any) error {
	if !laterAllowed(ctx) {
		return tx.QueryRowContext(ctx, query, args...).Scan(dest...)
	}
	_, err := tx.ExecContext(context.WithValue(ctx, laterDest{}, dest), query, args...)
	return err
}

// laterStmt is a queued write: its SQL (rebound), arguments, and where
// its returned row goes (none when empty).
type laterStmt struct {
	sql  string
	args []any
	dest []any
}

// queue takes a write marked to wait (execLater) inside a transaction; it
// says false for anything else, which runs now.
func (c *pgConn) queue(ctx context.Context, query string, args []driver.NamedValue) bool {
	dest, ok := ctx.Value(laterDest{}).([]any)
	if !ok || !c.inTx {
		return false
	}
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	c.later = append(c.later, laterStmt{sql: rebind(query), args: vals, dest: dest})
	return true
}

// flush sends the queued writes in one batch, then end (COMMIT, or
// ROLLBACK for a rehearsal) in the same batch when it is not "".
func (c *pgConn) flush(ctx context.Context, end string) error {
	commit := end != ""
	if len(c.later) == 0 && !commit {
		return nil
	}
	stmts := c.later
	c.later = nil
	b := &pgx.Batch{}
	for _, st := range stmts {
		b.Queue(st.sql, st.args...)
	}
	if commit {
		b.Queue(end)
	}
	br := c.Conn.Conn().SendBatch(ctx, b)
	var err error
	for _, st := range stmts {
		if len(st.dest) > 0 {
			err = br.QueryRow().Scan(st.dest...)
		} else {
			_, err = br.Exec()
		}
		if err != nil {
			break
		}
	}
	if err == nil && commit {
		err = ended(br, end)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// ended reads the answer to end (COMMIT, or ROLLBACK for a rehearsal),
// the last statement of br: a COMMIT answered ROLLBACK (the transaction
// had failed) is pgx's error for it, a rehearsal's errRehearsed.
func ended(br pgx.BatchResults, end string) error {
	tag, err := br.Exec()
	switch {
	case err != nil:
		return err
	case end == "ROLLBACK":
		return errRehearsed
	case tag.String() == "ROLLBACK":
		return pgx.ErrTxCommitRollback
	}
	return nil
}

// rehearseKey marks a context whose write transactions run every
// statement and then roll back (rehearse).
type rehearseKey struct{}

// rehearse is ctx for write transactions on PostgreSQL that end in
// ROLLBACK instead of COMMIT, every statement (queued writes too) run
// first: their commit returns errRehearsed. WarmLabeling readies a
// connection so, with real keys' statements and nothing written.
func rehearse(ctx context.Context) context.Context {
	return context.WithValue(ctx, rehearseKey{}, true)
}

// errRehearsed is the commit of a rehearsed transaction: rolled back.
var errRehearsed = errors.New("rehearsal: rolled back")

// endOf is how a write transaction begun with ctx ends.
func endOf(ctx context.Context) string {
	if ok, _ := ctx.Value(rehearseKey{}).(bool); ok {
		return "ROLLBACK"
	}
	return "COMMIT"
}

// discard drops the queued writes (a rollback).
func (c *pgConn) discard() { c.later = nil }

// beginReadsKey carries a *beginReads: reads a write transaction on one
// trace makes first, sent with its BEGIN.
type beginReadsKey struct{}

// beginReads are the first reads of a transaction on one trace's case
// (traceScope), or of one that locks the rows it reads itself (caseScope:
// n's first pick), sent in one batch with BEGIN and the locks, so that
// the moment the locks are granted the server reads on without waiting
// for the client: queue adds the reads to the batch, read takes their
// results, in order, once the locks are held. It runs again for each
// try of the transaction.
type beginReads struct {
	queue func(b *pgx.Batch)
	read  func(br pgx.BatchResults) error
}

// withBeginReads is ctx for a transaction whose BEGIN sends br's reads.
func withBeginReads(ctx context.Context, br *beginReads) context.Context {
	return context.WithValue(ctx, beginReadsKey{}, br)
}

// traceLockParam is traceLock with the key as a parameter (a batch is
// prepared statements: one per trace would fill pgx's statement cache).
const traceLockParam = `SELECT pg_advisory_xact_lock(hashtext('tracelab trace ' || current_schema()), $1::integer)`

// queueBegin queues into the empty batch b what begins a write
// transaction on cases, as BeginTx's one query does: BEGIN at iso, the
// writer lock taken shared, the lock of the trace of key (0: none
// named) and the plans' mode (plansOnce). It returns how many
// statements that is: their results come first (begun).
func queueBegin(ctx context.Context, b *pgx.Batch, iso string, key int32) int {
	b.Queue("BEGIN" + iso)
	b.Queue(caseWriterLock)
	if key != 0 {
		b.Queue(traceLockParam, key)
	}
	if plansOnce(ctx, key) {
		b.Queue(genericPlans)
	}
	return b.Len()
}

// begun reads the results of the n statements queueBegin queued.
func begun(br pgx.BatchResults, n int) error {
	for range n {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	return nil
}

// beginWithReads begins a transaction on the case of one trace (key:
// traceLockKey; 0: on cases it locks the rows of itself, caseScope) as
// BeginTx does, with bw's reads in the same batch.
func (c *pgConn) beginWithReads(ctx context.Context, iso string, key int32, bw *beginReads) (driver.Tx, error) {
	conn := c.Conn.Conn()
	b := &pgx.Batch{}
	begin := queueBegin(ctx, b, iso, key)
	bw.queue(b)
	br := conn.SendBatch(ctx, b)
	err := begun(br, begin)
	if err == nil {
		err = bw.read(br)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// Whatever failed (the lock's wait, a read) did so inside the
		// begun transaction.
		endAborted(ctx, conn)
		return nil, err
	}
	c.inTx, c.later = true, nil
	return pgTx{ctx: ctx, c: c}, nil
}

// oneTrip runs a write transaction of one statement on one case, which
// locks the rows it reads itself (caseScope), in one round trip: its
// beginning (queueBegin), the statement and COMMIT in one batch.
// dest gets the statement's one row. n's pick and reservation are such a
// statement: sent as BEGIN with the pick and then the reservation with
// COMMIT (beginReads, pglater.go), every n waited for the client between
// the two, with the picked trace's row locked.
func (s *Store) oneTrip(ctx context.Context, dest []any, query string, args ...any) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error { return dc.(*pgConn).oneTrip(ctx, dest, query, args) })
}

func (c *pgConn) oneTrip(ctx context.Context, dest []any, query string, args []any) error {
	conn := c.Conn.Conn()
	b := &pgx.Batch{}
	begin := queueBegin(ctx, b, isolationSQL[sql.LevelReadCommitted], 0) // as BeginTx: see there
	b.Queue(rebind(query), args...)
	end := endOf(ctx)
	b.Queue(end)
	br := conn.SendBatch(ctx, b)
	err := begun(br, begin)
	if err == nil {
		err = br.QueryRow().Scan(dest...)
	}
	if err == nil {
		err = ended(br, end)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		endAborted(ctx, conn)
	}
	return err
}

// endAborted ends the transaction a failed statement left open and
// aborted on conn (nothing when none is open, or the connection died),
// or the pool hands the connection out inside it. It runs even when ctx
// was cancelled: the cancellation is often what failed.
func endAborted(ctx context.Context, conn *pgx.Conn) {
	if !conn.IsClosed() && conn.PgConn().TxStatus() != 'I' {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
	}
}
