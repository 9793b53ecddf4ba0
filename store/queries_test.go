package store

import (
	"errors"
	"reflect"
	"testing"
)

// inLists hands every id to fn once, in order, in lists of at most
// loadBatch, and stops at fn's first error.
func TestInLists(t *testing.T) {
	for _, n := range []int{0, 1, loadBatch, loadBatch + 1, 2*loadBatch + 3} {
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = int64(i)
		}
		var got []any
		var sizes []int
		if err := inLists(ids, func(list []any) error {
			sizes = append(sizes, len(list))
			got = append(got, list...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != n || n > 0 && !reflect.DeepEqual(got, anys(ids)) {
			t.Errorf("n=%d: got %d ids out of order or missing", n, len(got))
		}
		for _, s := range sizes {
			if s == 0 || s > loadBatch {
				t.Errorf("n=%d: a list of %d", n, s)
			}
		}
		if want := (n + loadBatch - 1) / loadBatch; len(sizes) != want {
			t.Errorf("n=%d: %d lists, want %d", n, len(sizes), want)
		}
	}
	stop := errors.New("stop")
	calls := 0
	err := inLists(make([]string, 3*loadBatch), func([]any) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("after an error: %v, %d calls", err, calls)
	}
}
