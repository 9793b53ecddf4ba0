package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
)

// `/` in the queue finds traces by their steps and says how many; on the
// trace screen n / N jump between the steps holding the search.
func TestSearchStepsAndJumpBetweenHits(t *testing.T) {
	st, _ := openUnlabeledStore(t)
	ctx := context.Background()
	inSteps, err := st.Traces.SearchTraceCount(ctx, "is_active", app.Filter{})
	if err != nil || inSteps == 0 {
		t.Fatalf("the sample traces' steps hold is_active in %d traces (%v)", inSteps, err)
	}
	d := newDriver(t, st, 140, 40)
	d.key("/")
	d.typeText("is_active")
	d.key("enter")
	if n := len(d.m.queue.rows); n != inSteps {
		t.Fatalf("the queue lists %d traces, want the %d whose steps hold is_active", n, inSteps)
	}
	for _, r := range d.m.queue.rows {
		if strings.Contains(r.Question, "is_active") {
			t.Errorf("%s: its question holds is_active: the test needs a search only steps hold", r.TraceID)
		}
	}
	d.mustSee(fmt.Sprintf("%d match in their steps", inSteps))

	id := d.m.queue.rows[0].TraceID
	want, err := st.Traces.SearchSteps(ctx, id, "is_active")
	if err != nil || len(want) < 2 {
		t.Fatalf("%s: steps holding is_active %v (%v): the test needs two", id, want, err)
	}
	d.key("enter")
	if d.m.trace.id != id {
		t.Fatalf("opened %q, want %s", d.m.trace.id, id)
	}
	d.key("n")
	if d.m.trace.step != want[0] {
		t.Fatalf("n went to step %d, want %d", d.m.trace.step, want[0])
	}
	d.mustSee(fmt.Sprintf("hit 1/%d: step %d", len(want), want[0]))
	d.key("n")
	if d.m.trace.step != want[1] {
		t.Errorf("n again went to step %d, want %d", d.m.trace.step, want[1])
	}
	d.key("N")
	if d.m.trace.step != want[0] {
		t.Errorf("N went to step %d, want %d", d.m.trace.step, want[0])
	}
	d.key("N") // wraps to the last hit
	if d.m.trace.step != want[len(want)-1] {
		t.Errorf("N from the first hit went to step %d, want the last, %d", d.m.trace.step, want[len(want)-1])
	}
}

// Without a search, n on the trace screen says how to get one.
func TestJumpHitWithoutSearch(t *testing.T) {
	st, _ := openUnlabeledStore(t)
	d := newDriver(t, st, 140, 40)
	d.key("enter")
	step := d.m.trace.step
	d.key("n")
	if d.m.trace.step != step {
		t.Errorf("n moved to step %d without a search", d.m.trace.step)
	}
	d.mustSee("no search: / in the queue searches the steps")
}

// V saves the queue's filter and search as a view; the filter menu lists
// it, and space on it shows the queue under it again.
func TestSaveAndPickView(t *testing.T) {
	st, _ := openUnlabeledStore(t)
	ctx := context.Background()
	d := newDriver(t, st, 140, 40)
	d.key("/")
	d.typeText("is_active")
	d.key("enter")
	want := len(d.m.queue.rows)
	d.key("V")
	d.typeText(" guesses") // after the search the prompt starts with
	d.key("enter")
	d.mustSee(`view "is_active guesses" saved`)
	v, err := st.Traces.View(ctx, "is_active guesses")
	if err != nil || v.Filter.Search != "is_active" || v.SavedBy != "tester" {
		t.Fatalf("saved view %+v %v", v, err)
	}
	d.key("esc") // clears the search
	if d.m.queue.filter.Search != "" || len(d.m.queue.rows) == want {
		t.Fatalf("esc left search %q and %d rows", d.m.queue.filter.Search, len(d.m.queue.rows))
	}
	d.key("f")
	d.key("h") // the last group: the saved views
	d.mustSee("is_active guesses")
	d.key("space")
	if d.m.queue.filter.Search != "is_active" || len(d.m.queue.rows) != want {
		t.Errorf("the view shows search %q and %d rows, want is_active and %d", d.m.queue.filter.Search, len(d.m.queue.rows), want)
	}
}
