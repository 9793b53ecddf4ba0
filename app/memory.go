package app

import "github.com/tracelab-dev/tracelab/importers"

// LimitGoMemory sets Go's soft memory limit from the limits the process
// runs under (importers.LimitGoMemory), once at start: the front ends
// call it before any work.
func LimitGoMemory() int64 { return importers.LimitGoMemory() }
