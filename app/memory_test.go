package app

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, maxGCPercent},
		{4 << 20, maxGCPercent}, // a small live heap: at most four times it
		{gcHeadroom / 2, 200},   // the headroom, past Go's default
		{gcHeadroom, 100},
		{1 << 30, 100}, // a large one: Go's default, never less
	} {
		if got := gcPercent(c.live); got != c.want {
			t.Errorf("gcPercent(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

// PaceGC leaves a pace GOGC chose alone; otherwise, after a collection
// that leaves a large heap live, the pace is Go's default.
func TestPaceGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	PaceGC()
	if got := debug.SetGCPercent(50); got != 50 {
		t.Fatalf("with GOGC=50 the collector's percent is %d", got)
	}

	t.Setenv("GOGC", "")
	PaceGC()
	if got := debug.SetGCPercent(maxGCPercent); got != maxGCPercent {
		t.Fatalf("after PaceGC the collector's percent is %d, want %d", got, maxGCPercent)
	}
	live := make([]byte, 2*gcHeadroom)
	for i := range live {
		live[i] = 1 // resident and live across the collections below
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		runtime.GC()
		got := debug.SetGCPercent(-1)
		debug.SetGCPercent(got)
		if got == 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("with %d MiB live the collector's percent stayed %d, want 100", len(live)>>20, got)
		}
		time.Sleep(10 * time.Millisecond) // the finalizer runs on its own goroutine
	}
	runtime.KeepAlive(live)
}
