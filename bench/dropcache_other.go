//go:build !linux

package main

import (
	"errors"
	"time"
)

// dropCache is Linux only (posix_fadvise).
func dropCache(string) error { return errors.New("-drop-cache needs Linux") }

// cpuTime is not read here: the rows show 0.
func cpuTime() time.Duration { return 0 }
