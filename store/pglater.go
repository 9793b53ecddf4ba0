package store

import (
	"context"
	"database/sql"
	"database/sql/driver"

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

// flush sends the queued writes in one batch, then COMMIT in the same
// batch when commit is set.
func (c *pgConn) flush(ctx context.Context, commit bool) error {
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
		b.Queue("COMMIT")
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
		var tag interface{ String() string }
		tag, err = br.Exec()
		if err == nil && tag.String() == "ROLLBACK" {
			err = pgx.ErrTxCommitRollback
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// discard drops the queued writes (a rollback).
func (c *pgConn) discard() { c.later = nil }
