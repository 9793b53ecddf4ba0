package importers

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
)

// What a record costs to import, per byte of it, at the peak: the read
// line, the decoded trace, its step body and hashes on the Go side, and
// SQLite's copies of the body as it is staged, copied into the database
// and indexed (modernc's allocator rounds each up to a power of two).
// Measured with a one-record file whose one step is 100 MB, imported
// with scoring (closing note of issue 27, item 10): peak resident set
// 7.4 times the record as a string, 8.3 times as 2.7 million small JSON
// values; peak address space (VmPeak) over the process's own at start,
// 12.5 and 15.8 times. Rounded up, so the estimate errs on refusing.
// Since a big body is copied out of the staging database on its own and
// Go lets go of the record before SQLite's copies (store/staging.go
// copyBigBodies, app/importpipe.go), the resident peak is 4.5 and 5.2
// times (bench/bigrecord.sh), but the address space hardly moved
// (VmPeak 2644 against 2776 MB, 2724 against 2930): modernc's allocator
// keeps the regions it frees mapped. Several such records one after the
// other cost more address space than one: a file of six 16 MB records,
// under a limit that left 15.6 times a record free, ended in Go's fatal
// "out of memory" in 3 of 8 runs even with one record decoded at a time
// (app/budget.go); at 20 times, in none of 16 runs near the edge.
// With a body over 4 MiB written to SQLite a mebibyte at a time
// (store/bodyparts.go), one 100 MB record peaks at 1.7 and 1.8 times its
// size resident and 2.5 and 2.8 times in address space over the start.
// The estimate stays: near the edge what the import's start and the
// records in flight take is not per byte (threads, Go's arenas, SQLite's
// cache), and at 6 times, six 25 MB records under a limit 1 GiB over the
// least start ended in Go's fatal "out of memory".
const (
	residentPerByte = 10
	addressPerByte  = 20
)

// MemoryLimit is the most memory this process may use and what sets it:
// the address-space limit (ulimit -v, prlimit --as), the memory
// controller of its cgroup (memory.max), or the machine's memory and
// swap, whichever is lowest once what the process already uses is taken
// off. 0 when none is known (not Linux).
type MemoryLimit struct {
	Free int64  // bytes the process may still take
	What string // "ulimit -v", "the cgroup's memory.max", "the machine's memory"
	// Total is the limit itself, for SetMemoryLimit.
	Total int64
}

// ProcessMemoryLimit reads the limits that apply to this process now.
func ProcessMemoryLimit() MemoryLimit {
	return processMemoryLimit()
}

// recordBudget is the largest record that fits in lim, given what a
// record costs per byte; math.MaxInt64 with no known limit.
func recordBudget(lim MemoryLimit, perByte int64) int64 {
	if lim.What == "" {
		return math.MaxInt64
	}
	return max(lim.Free/perByte, 0)
}

// perByte is what a record costs per byte against lim: address space
// under ulimit -v, resident memory under the others.
func perByte(lim MemoryLimit) int64 {
	if lim.What == "ulimit -v" {
		return addressPerByte
	}
	return residentPerByte
}

// recordLimit is the most one record of a parse may take, and why: the
// record cap (--max-record), or, when it is lower, what the process's
// memory allows.
type recordLimit struct {
	max    int64
	memory MemoryLimit // set (What != "") when memory, not the cap, bounds max
}

// limitFor is the record limit of a parse under the cap maxRecord: the
// cap, lowered to what lim leaves room for, so a record the process
// cannot hold is refused with a message before it is read in, rather
// than ending the process with Go's fatal "out of memory".
func limitFor(maxRecord int64, lim MemoryLimit) recordLimit {
	if b := recordBudget(lim, perByte(lim)); b < maxRecord {
		// At least a byte: a limit of 0 reads as "no limit set".
		return recordLimit{max: max(b, 1), memory: lim}
	}
	return recordLimit{max: maxRecord}
}

// over is the message for a record past the limit: size is its length
// in bytes when the reader counted it to its end, 0 when it stopped at
// the limit.
func (l recordLimit) over(size int64) string {
	limit := sizeString(l.max)
	if l.memory.What != "" {
		limit = mbString(l.max) // computed, not typed
	}
	head := "record is over " + limit
	if size > l.max {
		head = "record is " + mbString(size) + ", over " + limit
	}
	if l.memory.What != "" {
		return fmt.Sprintf("%s, the most this process can import within its memory (%s free under %s; a record takes about %d times its size): raise that limit or split the record",
			head, mbString(l.memory.Free), l.memory.What, perByte(l.memory))
	}
	return head + ", the cap on one record (raise it with --max-record)"
}

// mbString says a byte count in MB with one decimal, as a size read from
// a file is reported.
func mbString(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// goMemoryLimit is the soft limit for Go's runtime (debug.SetMemoryLimit)
// under lim, given that Go's runtime maps goNow bytes now: what it has
// plus three quarters of what the process may still take. The quarter
// left is for the memory Go does not manage and the collector cannot
// free: SQLite's (modernc's allocator maps its own), the threads' stacks.
// 0 when no limit is known.
func goMemoryLimit(lim MemoryLimit, goNow int64) int64 {
	if lim.What == "" {
		return 0
	}
	return goNow + lim.Free/4*3
}

// LimitGoMemory sets Go's soft memory limit from the process's limits
// (ulimit -v, the cgroup's memory.max, the machine's memory and swap),
// unless GOMEMLIMIT already set one: near the ceiling the collector
// then runs harder rather than letting the heap grow to twice what it
// holds and the next allocation end the process with Go's fatal "out of
// memory", which no caller can recover from. It returns the limit set,
// 0 when none was.
func LimitGoMemory() int64 {
	if debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return 0 // GOMEMLIMIT, or a caller, chose
	}
	var st runtime.MemStats
	runtime.ReadMemStats(&st)
	limit := goMemoryLimit(ProcessMemoryLimit(), int64(st.Sys))
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return limit
}

// InFlightBudget is the most bytes of records an import should hold
// decoded at once under the record cap maxRecord (0: DefaultMaxRecord)
// and the process's memory lim: the cap, at least DefaultMaxRecord so
// small records flow as many at a time as before, but no more than the
// largest record lim leaves room for (the record limit of a parse, see
// limitFor). A record of the cap's size takes at most all of it, and the
// parser waits for room before it decodes the next big line (Options.Room),
// so at most one such record is decoded at once, beside the line the
// parser reads.
func InFlightBudget(maxRecord int64, lim MemoryLimit) int64 {
	if maxRecord <= 0 {
		maxRecord = DefaultMaxRecord
	}
	b := max(maxRecord, DefaultMaxRecord)
	if m := recordBudget(lim, perByte(lim)); m < b {
		b = max(m, 1)
	}
	return b
}
