package tui

import (
	"strings"
	"testing"
)

// TestEditedState: "◐ suggested" is the machine's suggestion. A labeler's
// change reads "✎ edited" until every change is undone, when it is the
// suggestion again; confirming makes it confirmed.
func TestEditedState(t *testing.T) {
	d := openAt(t, 120, 40)
	label := func() string {
		for _, l := range strings.Split(d.plain(), "\n") {
			if strings.HasPrefix(l, " Label ") {
				return l
			}
		}
		t.Fatalf("no label line:\n%s", d.plain())
		return ""
	}
	want := func(step, s string) {
		t.Helper()
		if l := label(); !strings.Contains(l, s) {
			t.Fatalf("%s: label line %q lacks %q", step, l, s)
		}
	}
	want("opened", "◐ suggested")
	d.key("c")
	want("c", "✎ edited")
	d.key("4")
	want("c 4", "✎ edited")
	d.key("u")
	want("c 4 u", "✎ edited")
	d.key("u")
	want("c 4 u u", "◐ suggested")
	d.key("U")
	want("redo", "✎ edited")
	d.key("u")
	want("redo undone", "◐ suggested")
	// Opened again, the state is read from the store.
	d.key("c")
	d.run(d.m.trace.openTrace("trace_9f31c2"))
	want("reopened", "✎ edited")
	d.keys("1", "enter")
	d.run(d.m.trace.openTrace("trace_9f31c2"))
	want("confirmed", "● confirmed")
}

// TestEditedStateInTheQueue: the queue shows a labeler's unconfirmed
// change as "✎ edited" too (it showed ◐, the machine's glyph), and the
// suggestion again once every change is undone.
func TestEditedStateInTheQueue(t *testing.T) {
	d := newDriver(t, openDemoLikeStore(t), 120, 40)
	row := func() string {
		for _, l := range strings.Split(d.plain(), "\n") {
			if strings.Contains(l, "trace_9f31c2") {
				return l
			}
		}
		t.Fatalf("trace_9f31c2 not in the queue:\n%s", d.plain())
		return ""
	}
	want := func(step, s string) {
		t.Helper()
		if l := row(); !strings.Contains(l, s) {
			t.Fatalf("%s: queue row %q lacks %q", step, l, s)
		}
	}
	want("opened", "◐ suggested")
	d.run(d.m.trace.openTrace("trace_9f31c2"))
	d.mustSee("trace_9f31c2")
	d.keys("c", "esc")
	want("c, back to the queue", "✎ edited")
	d.run(d.m.trace.openTrace("trace_9f31c2"))
	d.keys("u", "esc")
	want("undone, back to the queue", "◐ suggested")
}
