package app

import (
	"os"
	"runtime/debug"

	"github.com/tracelab-dev/tracelab/importers"
)

// LimitGoMemory sets Go's soft memory limit from the limits the process
// runs under (importers.LimitGoMemory), once at start: the front ends
// call it before any work.
func LimitGoMemory() int64 { return importers.LimitGoMemory() }

// gcPercent is how far Go's heap grows past what it held after a
// collection before the next one starts: Go's default is 100. tracelab's
// live heap is small (the records in flight, the scorer's caches: a few
// MB; most of its memory is SQLite's page caches, outside Go's heap), so
// at 100 the collector ran every few MB allocated. A 100k-trace import
// spent 24-29 s of CPU at 100 and 21-22 s at 300, in the same rounds,
// with the same peak RSS (bench/importab.sh, GOGC set per run); at 400
// the peak rose by 20 MiB. Near the process's memory limit the soft
// limit (LimitGoMemory) still makes the collector run harder.
const gcPercent = 300

// PaceGC sets the collector's pace to gcPercent, once at start, unless
// GOGC chose one.
func PaceGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}
