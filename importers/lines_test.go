package importers

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// readLines is lines over in through a reader of 4 KiB, the file at
// given as Options.At is (nil: none); it returns each line as fn saw it
// and how much room fn saw after it, past its line end.
func readLines(t *testing.T, in string, at io.ReaderAt, max int64) (got []string, spare []int, err error) {
	t.Helper()
	br := bufio.NewReaderSize(strings.NewReader(in), 4096)
	ctx := context.WithValue(context.Background(), maxRecordKey{}, recordLimit{max: max})
	if at != nil {
		ctx = context.WithValue(ctx, inputAtKey{}, inputAt{r: at, br: br})
	}
	err = lines(ctx, br, func(n int, line []byte) error {
		got = append(got, string(line))
		spare = append(spare, cap(line)-len(line))
		return nil
	})
	return got, spare, err
}

// TestLinesLongLineSizedOnce: lines gives the same lines with the file
// to measure them in as without, and a line longer than its reader's
// buffer is read into a buffer of exactly its size; where the file does
// not hold what the reader reads, lines reads as it did without it.
func TestLinesLongLineSizedOnce(t *testing.T) {
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	tests := []struct {
		name string
		in   string
	}{
		{"short lines", "a\nbb\n\nccc\n"},
		{"one long line", long("x", 10000) + "\n"},
		{"long last line, no line end", "a\n" + long("y", 9000)},
		{"long lines among short", "a\n" + long("x", 4095) + "\n" + long("z", 4096) + "\r\n" + long("w", 20000) + "\nb\n"},
		{"a line end at the buffer's edge", long("q", 4095) + "\n" + long("r", 8191) + "\n"},
		{"blank long line", long(" ", 9000) + "\nx\n"},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "in"+string(rune('a'+i)))
			if err := os.WriteFile(path, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			want, _, werr := readLines(t, tt.in, nil, 1<<20)
			got, spare, err := readLines(t, tt.in, f, 1<<20)
			if err != nil || werr != nil || strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("with the file: %d lines (%v), without: %d (%v)", len(got), err, len(want), werr)
			}
			for j, l := range got {
				if len(l) > 4096 && spare[j] > 2 {
					t.Errorf("line %d of %d bytes had %d bytes spare, want its size (and line end)", j, len(l), spare[j])
				}
			}
			// Another file: not what the reader reads.
			other := strings.NewReader(strings.Repeat("-", len(tt.in)))
			got, _, err = readLines(t, tt.in, other, 1<<20)
			if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("with another file: %d lines (%v), want %d", len(got), err, len(want))
			}
		})
	}
	// Over the cap: the same error with the file as without.
	in := "a\n" + long("x", 10000) + "\n"
	f := strings.NewReader(in)
	_, _, err := readLines(t, in, f, 5000)
	_, _, werr := readLines(t, in, nil, 5000)
	if err == nil || werr == nil || err.Error() != werr.Error() {
		t.Errorf("over the cap with the file: %v; without: %v", err, werr)
	}
}

// TestParseLongLineHeap: a file of one 32 MiB native line, parsed with
// the file to measure it in, costs the Go heap the line once: its result
// is kept in it (decodeNativeInPlace). Gathered in pieces and joined, as
// without the file, twice; before either, three times (98 MiB).
func TestParseLongLineHeap(t *testing.T) {
	const size = 32 << 20
	line := nativeLine("t1", strings.Repeat("x", size))
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, withFile := range []bool{false, true} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{MaxRecord: 2 * size}
		if withFile {
			opts.At = f
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		n := 0
		_, err = ParseWith(context.Background(), f, path, opts, func(r Record) error {
			if r.Err != nil {
				return r.Err
			}
			n++
			return nil
		})
		runtime.ReadMemStats(&after)
		f.Close()
		if err != nil || n != 1 {
			t.Fatalf("%d records, %v", n, err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("with the file %v: %d MiB allocated for a %d MiB line", withFile, alloc>>20, size>>20)
		// With the file, the line made once, the result kept in it;
		// without, the pieces and the line they are joined into.
		want := uint64(size + size/4)
		if !withFile {
			want = 2*size + size/4
		}
		if alloc > want {
			t.Errorf("with the file %v: %d MiB allocated for a %d MiB line, want under %d", withFile, alloc>>20, size>>20, want>>20)
		}
	}
}
