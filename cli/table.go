package cli

import (
	"bufio"
	"io"
	"text/tabwriter"
)

// table is how every command prints aligned columns: a tabwriter (two
// spaces between columns) over a buffer. tabwriter writes each cell and
// its padding with a write of its own, a system call each on a terminal
// or a pipe: the 100,000 rows of a full rescore took 1.5 CPU-s to print.
type table struct {
	*tabwriter.Writer
	out *bufio.Writer
}

func newTable(w io.Writer, flags uint) *table {
	out := bufio.NewWriterSize(w, 64<<10)
	return &table{Writer: tabwriter.NewWriter(out, 0, 0, 2, ' ', flags), out: out}
}

// Flush aligns and writes out what was written to the table.
func (t *table) Flush() error {
	if err := t.Writer.Flush(); err != nil {
		return err
	}
	return t.out.Flush()
}
