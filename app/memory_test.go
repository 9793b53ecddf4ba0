package app

import (
	"runtime/debug"
	"testing"
)

// PaceGC sets the collector's pace, unless GOGC set it.
func TestPaceGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, c := range []struct {
		gogc string
		want int
	}{{"", gcPercent}, {"100", 100}, {"off", 100}} {
		t.Setenv("GOGC", c.gogc)
		debug.SetGCPercent(100)
		PaceGC()
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC=%q: the collector's percent is %d, want %d", c.gogc, got, c.want)
		}
	}
}
