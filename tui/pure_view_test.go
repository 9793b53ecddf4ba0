package tui

import (
	"fmt"
	"testing"
)

// View changes nothing, as bubbles/viewport's does not: the scroll
// offsets are kept by update, and the queue's drawn rows are cached by
// update too. Scrolling past the end stays at the end in the state, so
// one K after many J moves the detail up at once.
func TestViewIsPure(t *testing.T) {
	eng, _ := openFixtureStore(t)
	d := newDriver(t, eng, 80, 24)
	state := func() string {
		q, ts, r := d.m.queue, d.m.trace, d.m.report
		return fmt.Sprint(q.offset, len(q.rowCache), ts.stepOff, ts.detailOff, ts.itemOff, len(ts.scoreCache), r.offset)
	}
	check := func(where string) {
		t.Helper()
		before := state()
		a := d.view()
		if b := d.view(); a != b || state() != before {
			t.Errorf("%s: View changed the model: %s → %s", where, before, state())
		}
	}
	check("queue")
	d.keys("G")
	check("queue at the bottom")
	d.keys("g", "enter", "j", "j", "j", "j") // describe_table's result, taller than the pane
	check("trace")
	for range 200 {
		d.key("J")
	}
	end := d.m.trace.detailOff
	check("detail scrolled to its end")
	d.key("K")
	if end == 0 || d.m.trace.detailOff != end-1 {
		t.Errorf("K after scrolling past the end: offset %d, want %d", d.m.trace.detailOff, end-1)
	}
	d.keys("tab", "tab")
	for range 40 {
		d.key("j")
	}
	check("scoring pane at its last item")
	d.keys("R", "j", "j", "j", "j")
	check("report scrolled")
	if d.m.report.offset == 0 {
		t.Error("the report did not scroll to the class under the cursor at 80x24")
	}
}
