package store

import (
	"context"
	"database/sql"
	"math/bits"
	"strings"
)

// batchRows is how many rows one multi-row INSERT carries.
const batchRows = 64

// batchBytes is about the most text a batch (or a bulk import's search
// job, pgsearch.go) holds before it is written: at batchRows step bodies
// of up to 4 MiB each, a file of long traces cost a PostgreSQL import
// 1.6 GB at its peak for 156 MB of records (the rows, and the driver's
// encoding of them in one statement). An ordinary trace's body is a few
// KB, so ordinary batches still carry batchRows rows.
const batchBytes = 1 << 20

// full says rows buffered rows holding bytes of text are to be written:
// a batch, or a bulk import's search job, is full at batchRows rows or
// batchBytes of text, whichever comes first.
func full(rows, bytes int) bool { return rows >= batchRows || bytes >= batchBytes }

// batch buffers rows for one table and writes them batchRows at a time in
// a single INSERT … VALUES (…), (…), … statement.
type batch struct {
	ctx   context.Context
	tx    *sql.Tx
	head  string // INSERT INTO t (cols) VALUES
	tail  string // ON CONFLICT … or ""
	cols  int
	args  []any
	bytes int               // the length of the strings in args
	stmts map[int]*sql.Stmt // by row count
	// parent, when set, is the batch of the rows these rows reference:
	// it is written first, so that a foreign key finds its row.
	parent *batch
	// reuse, when set, keeps the statements across transactions (a live
	// batch's); the rows left at a flush are then written in chunks of a
	// power of two, so a few statement shapes serve every count.
	reuse *reuse
}

func newBatch(ctx context.Context, tx *sql.Tx, head string, cols int, tail string) *batch {
	return &batch{ctx: ctx, tx: tx, head: head, tail: tail, cols: cols, stmts: map[int]*sql.Stmt{}}
}

// add buffers one row (cols values) and writes a full batch: batchRows
// rows, or batchBytes of text.
func (b *batch) add(vals ...any) error {
	b.args = append(b.args, vals...)
	for _, v := range vals {
		if s, ok := v.(string); ok {
			b.bytes += len(s)
		}
	}
	if full(len(b.args)/b.cols, b.bytes) {
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
	args := b.args
	defer func() {
		// Drop the values too, not only the length: the array would
		// otherwise keep the last rows' strings (a trace's step body of
		// many megabytes) alive until later rows overwrite them.
		clear(b.args)
		b.args = b.args[:0]
		b.bytes = 0
	}()
	for len(args) > 0 {
		n := len(args) / b.cols
		if b.reuse != nil {
			n = 1 << (bits.Len(uint(n)) - 1) // the largest power of two in n
		}
		st, err := b.stmt(n)
		if err != nil {
			return err
		}
		if _, err := st.ExecContext(b.ctx, args[:n*b.cols]...); err != nil {
			return err
		}
		args = args[n*b.cols:]
	}
	return nil
}

// stmt is the statement that inserts n rows.
func (b *batch) stmt(n int) (*sql.Stmt, error) {
	if st, ok := b.stmts[n]; ok {
		return st, nil
	}
	row := "(" + placeholders(b.cols) + "),"
	st, err := b.reuse.prepare(b.ctx, b.tx, b.head+" "+strings.TrimSuffix(strings.Repeat(row, n), ",")+" "+b.tail)
	if err != nil {
		return nil, err
	}
	b.stmts[n] = st
	return st, nil
}

func (b *batch) close() {
	if b == nil {
		return
	}
	for _, st := range b.stmts {
		st.Close()
	}
}
