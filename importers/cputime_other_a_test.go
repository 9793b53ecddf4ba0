//go:build !unix

package importers

import "time"

// processCPU is unknown here; benchmarks then skip the per-CPU figure.
func processCPU() time.Duration { return 0 }
