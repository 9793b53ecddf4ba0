package app

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"github.com/tracelab-dev/tracelab/importers"
)

// LimitGoMemory sets Go's soft memory limit from the limits the process
// runs under (importers.LimitGoMemory), once at start: the front ends
// call it before any work.
func LimitGoMemory() int64 { return importers.LimitGoMemory() }

// Go starts a collection when its heap has grown by GOGC percent (100 by
// default) of what the last one left live. An import's live heap is a
// few MB (the records in flight, the scorer's caches; most of the
// process's memory is SQLite's page caches, outside Go's heap), so at
// 100 the collector ran every few MB allocated: a 100k-trace import took
// 24-29 s of CPU at 100 and 21-22 s at 300, with the same peak RSS
// (bench/importab.sh, GOGC set per run). A fixed 300 grows a large live
// heap fourfold, though: importing 10,000 cases into a million traces
// peaked at 380 MiB at 300 against 274 MiB at 100. So the percent is
// set after each collection from what it left live: gcHeadroom of growth
// at least, as a percent between Go's 100 and maxGCPercent.
const (
	gcHeadroom   = 64 << 20
	maxGCPercent = 300
)

// gcPercent is the pace for a live heap of live bytes.
func gcPercent(live uint64) int {
	if live == 0 {
		return maxGCPercent
	}
	return int(min(max(gcHeadroom*100/live, 100), maxGCPercent))
}

// PaceGC keeps the collector's pace at gcPercent of the live heap from
// now on, unless GOGC chose one: it sets it after every collection.
func PaceGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(maxGCPercent) // nothing is live yet
	watchCollections()
}

// collected is allocated to be found unreachable by the next collection:
// its finalizer then runs once, after it.
type collected struct{ _ [32]byte }

// watchCollections sets the pace after the next collection, and again
// after each one that follows.
func watchCollections() {
	runtime.SetFinalizer(new(collected), func(*collected) {
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(live)
		if live[0].Value.Kind() == metrics.KindUint64 {
			debug.SetGCPercent(gcPercent(live[0].Value.Uint64()))
		}
		watchCollections()
	})
}
