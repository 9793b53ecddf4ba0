//go:build linux

package main

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// dropCache evicts a database file's pages (and its WAL's) from the OS
// page cache, so the next read comes from the disk: a cold start measured
// without dropping every other process's cache on a shared machine.
func dropCache(path string) error {
	for _, p := range []string{path, path + "-wal"} {
		f, err := os.Open(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		err = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
