package store

import (
	"strings"
	"testing"
)

// A batch writes its rows at batchRows rows, or sooner once their text
// reaches batchBytes: a file of long traces must not hold 64 step bodies
// of megabytes each (and the driver's copy of them) at once.
func TestBatchWritesAtRowsOrBytes(t *testing.T) {
	tests := []struct {
		name    string
		text    int // bytes of text in each row
		written int // rows written by the time of the add that writes
	}{
		{"short rows", 100, batchRows},
		{"long rows", batchBytes/3 + 1, 3},
		{"a row over the limit", batchBytes + 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, tx := sqliteTx(t)
			if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE rows (n INTEGER, text TEXT)`); err != nil {
				t.Fatal(err)
			}
			b := newBatch(ctx, tx, `INSERT INTO rows (n, text) VALUES`, 2, "")
			defer b.close()
			text := strings.Repeat("x", tc.text)
			for i := 1; i <= tc.written; i++ {
				if err := b.add(i, text); err != nil {
					t.Fatal(err)
				}
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM rows`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				want := 0
				if i == tc.written {
					want = tc.written
				}
				if n != want {
					t.Fatalf("after %d rows of %d bytes, %d written, want %d", i, tc.text, n, want)
				}
			}
			if b.bytes != 0 {
				t.Errorf("%d bytes counted after the write, want 0", b.bytes)
			}
		})
	}
}
