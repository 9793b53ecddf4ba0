//go:build unix

package importers

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) this process has used, so
// benchmarks can report throughput per CPU second on a shared machine
// where wall-clock time mostly measures the other tenants.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
