package store

import (
	"context"
	"database/sql"
	"strings"
)

// batchRows is how many rows one multi-row INSERT carries.
const batchRows = 64

// batch buffers rows for one table and writes them batchRows at a time in
// a single INSERT … VALUES (…), (…), … statement.
type batch struct {
	ctx   context.Context
	tx    *sql.Tx
	head  string // INSERT INTO t (cols) VALUES
	tail  string // ON CONFLICT … or ""
	cols  int
	args  []any
	stmts map[int]*sql.Stmt // by row count
	// parent, when set, is the batch of the rows these rows reference:
	// it is written first, so that a foreign key finds its row.
	parent *batch
}

func newBatch(ctx context.Context, tx *sql.Tx, head string, cols int, tail string) *batch {
	return &batch{ctx: ctx, tx: tx, head: head, tail: tail, cols: cols, stmts: map[int]*sql.Stmt{}}
}

// add buffers one row (cols values) and writes a full batch.
func (b *batch) add(vals ...any) error {
	b.args = append(b.args, vals...)
	if len(b.args) >= batchRows*b.cols {
		return b.flush()
	}
	return nil
}

// pending is how many rows are buffered.
func (b *batch) pending() int { return len(b.args) / b.cols }

// flush writes the buffered rows (none for a nil batch).
func (b *batch) flush() error {
	if b == nil {
		return nil
	}
	if err := b.parent.flush(); err != nil {
		return err
	}
	n := len(b.args) / b.cols
	if n == 0 {
		return nil
	}
	st, ok := b.stmts[n]
	if !ok {
		row := "(" + placeholders(b.cols) + "),"
		var err error
		st, err = b.tx.PrepareContext(b.ctx, b.head+" "+strings.TrimSuffix(strings.Repeat(row, n), ",")+" "+b.tail)
		if err != nil {
			return err
		}
		b.stmts[n] = st
	}
	_, err := st.ExecContext(b.ctx, b.args...)
	b.args = b.args[:0]
	return err
}

func (b *batch) close() {
	if b == nil {
		return
	}
	for _, st := range b.stmts {
		st.Close()
	}
}
