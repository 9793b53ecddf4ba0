package store

import (
	"fmt"
	"testing"
)

// An id added is always found, across the filter's growth; ids never
// added are found rarely (each costs the staged writer a lookup).
func TestIDFilter(t *testing.T) {
	f := newIDFilter()
	const n = 5 * idFilterFirst
	for i := 0; i < n; i++ {
		f.add(fmt.Sprintf("trace-%d", i))
		if i%97 == 0 && !f.mayHold(fmt.Sprintf("trace-%d", i/2)) {
			t.Fatalf("after %d ids, trace-%d is not found", i+1, i/2)
		}
	}
	if len(f.parts) < 2 {
		t.Fatalf("%d ids in %d part(s): the filter did not grow", n, len(f.parts))
	}
	wrong := 0
	for i := 0; i < n; i++ {
		if !f.mayHold(fmt.Sprintf("trace-%d", i)) {
			t.Fatalf("trace-%d was added and is not found", i)
		}
		if f.mayHold(fmt.Sprintf("other-%d", i)) {
			wrong++
		}
	}
	if wrong > n/100 {
		t.Errorf("%d of %d ids never added were found", wrong, n)
	}
}
