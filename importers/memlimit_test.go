package importers

import (
	"strings"
	"testing"
)

// The record limit of a parse is the cap unless the process's memory
// holds less, and its message says which, with the record's size when
// the reader knows it.
func TestRecordLimit(t *testing.T) {
	for _, tt := range []struct {
		name      string
		cap       int64
		lim       MemoryLimit
		size      int64
		wantMax   int64
		wantWords string
	}{
		{"no limit known", 64 << 20, MemoryLimit{}, 0, 64 << 20,
			"record is over 64 MiB, the cap on one record (raise it with --max-record)"},
		{"size known", 64 << 20, MemoryLimit{}, 100_000_000, 64 << 20,
			"record is 100.0 MB, over 64 MiB, the cap on one record (raise it with --max-record)"},
		{"memory above the cap", 64 << 20, MemoryLimit{Free: 8 << 30, What: "the machine's memory and swap"}, 0, 64 << 20,
			"the cap on one record"},
		{"resident limit below the cap", 200_000_000, MemoryLimit{Free: 1_000_000_000, What: "the cgroup's memory.max"}, 300_000_000, 100_000_000,
			"record is 300.0 MB, over 100.0 MB, the most this process can import within its memory (1000.0 MB free under the cgroup's memory.max; a record takes about 10 times its size): raise that limit or split the record"},
		{"address space counts more per byte", 200_000_000, MemoryLimit{Free: 2_000_000_000, What: "ulimit -v"}, 0, 100_000_000,
			"record is over 100.0 MB, the most this process can import within its memory (2000.0 MB free under ulimit -v; a record takes about 20 times its size)"},
		{"nothing free", 64 << 20, MemoryLimit{Free: 0, What: "ulimit -v"}, 0, 1, "(0.0 MB free under ulimit -v"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := limitFor(tt.cap, tt.lim)
			if l.max != tt.wantMax {
				t.Errorf("max %d, want %d", l.max, tt.wantMax)
			}
			if got := l.over(tt.size); !strings.Contains(got, tt.wantWords) {
				t.Errorf("message %q, want it to hold %q", got, tt.wantWords)
			}
		})
	}
}

// On Linux the machine's memory is always known, so a parse's limit never
// falls back to "no limit" there.
func TestProcessMemoryLimitIsKnown(t *testing.T) {
	lim := ProcessMemoryLimit()
	if lim.What == "" {
		t.Skip("no memory limit known on this system (not Linux)")
	}
	if lim.Free <= 0 || lim.Total < lim.Free {
		t.Errorf("limit %+v: free must be positive and under the total", lim)
	}
}

// Go's soft memory limit is what Go's runtime holds plus three quarters
// of what the process may still take; none without a known limit.
func TestGoMemoryLimit(t *testing.T) {
	if got := goMemoryLimit(MemoryLimit{}, 10<<20); got != 0 {
		t.Errorf("no limit known: %d, want 0", got)
	}
	if got, want := goMemoryLimit(MemoryLimit{Free: 1 << 30, What: "ulimit -v", Total: 2 << 30}, 10<<20), int64(10<<20+768<<20); got != want {
		t.Errorf("1 GiB free: %d, want %d", got, want)
	}
}
