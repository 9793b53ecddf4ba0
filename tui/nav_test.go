package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// Navigation as the issue lists it, on the sample data with its cases
// (28 of 33 traces confirmed).
func TestNavigation(t *testing.T) {
	eng, _ := openFixtureStore(t)
	d := newDriver(t, eng, 100, 30)
	q := d.m.queue
	if len(q.rows) != 33 {
		t.Fatalf("%d rows", len(q.rows))
	}

	d.key("T")
	if d.m.screen != screenQueue || !strings.Contains(d.m.status, "no trace open") {
		t.Errorf("T with no trace open: screen %d status %q", d.m.screen, d.m.status)
	}
	// G goes to the bottom, g to the top.
	d.key("G")
	if q.cursor != len(q.rows)-1 {
		t.Fatalf("G: cursor %d of %d", q.cursor, len(q.rows))
	}
	// n from the bottom opens the last row when it waits for a label
	// (the selected row is included), else wraps to the first above.
	first := -1
	for i, r := range q.rows {
		if r.Status != model.StatusConfirmed {
			first = i
			break
		}
	}
	if first < 0 {
		t.Fatal("the fixture needs an unconfirmed trace")
	}
	want, wrapped := first, true
	if q.rows[q.cursor].Status != model.StatusConfirmed {
		want, wrapped = q.cursor, false
	}
	d.key("n")
	if q.cursor != want || d.m.screen != screenTrace || d.m.trace.id != q.rows[want].TraceID ||
		strings.Contains(d.m.status, "wrapped") != wrapped {
		t.Errorf("n at the bottom: cursor %d on screen %d with %s (status %q), want row %d opened", q.cursor, d.m.screen,
			d.m.trace.id, d.m.status, want)
	}
	d.key("esc")
	d.key("g")
	if q.cursor != 0 {
		t.Fatalf("g: cursor %d", q.cursor)
	}

	// Sorting keeps the selected trace selected.
	d.keys("j", "j", "j", "j", "j")
	id := q.rows[q.cursor].TraceID
	d.key("s")
	if got := q.rows[q.cursor].TraceID; got != id {
		t.Errorf("after s the cursor is on %s, was %s", got, id)
	}
	d.key("S")
	if got := q.rows[q.cursor].TraceID; got != id {
		t.Errorf("after S the cursor is on %s, was %s", got, id)
	}

	// Clearing a search keeps the selection too.
	d.key("/")
	d.typeText("revenue")
	d.keys("enter", "j")
	id = q.rows[q.cursor].TraceID
	d.key("esc")
	if filterActive(q.filter) || len(q.rows) != 33 || q.rows[q.cursor].TraceID != id {
		t.Errorf("esc after a search: filter %+v, %d rows, cursor on %s (want %s)", q.filter, len(q.rows),
			q.rows[q.cursor].TraceID, id)
	}

	// T goes back to the open trace from the report; esc from the report
	// returns where it was opened from.
	d.key("enter")
	open := d.m.trace.id
	d.key("R")
	d.key("T")
	if d.m.screen != screenTrace || d.m.trace.id != open {
		t.Errorf("T from the report: screen %d trace %s, want the trace %s", d.m.screen, d.m.trace.id, open)
	}
	d.key("R")
	d.key("esc")
	if d.m.screen != screenTrace {
		t.Errorf("esc from the report opened from the trace went to screen %d", d.m.screen)
	}
	d.key("D")
	d.key("esc")
	if d.m.screen != screenTrace {
		t.Errorf("esc from drift went to screen %d", d.m.screen)
	}

	// Help lists every global key on every screen.
	for _, k := range []string{"Q", "T", "R", "D"} {
		d.key(k)
		d.key("?")
		v := d.plain()
		for _, g := range []string{"queue", "open trace", "report", "drift"} {
			if !strings.Contains(v, g) {
				t.Errorf("help on %s does not list %q", d.m.screenName(), g)
			}
		}
		d.key("space") // any key closes help
	}
}

// The drift screen's choice of traces is a filter like the others: a chip,
// a group in the f dialog, cleared by esc.
func TestDriftFilterIsAFilter(t *testing.T) {
	eng, _ := openFixtureStore(t)
	d := newDriver(t, eng, 120, 30)
	d.send(driftOpenQueueMsg{server: "task-specific", tool: "active_customer_count", traceIDs: []string{"trace_4be07a", "trace_07b9c4"}})
	if len(d.m.queue.rows) != 2 {
		t.Fatalf("%d rows under the drift filter", len(d.m.queue.rows))
	}
	d.mustSee("traces:2 chosen")
	d.key("f")
	d.mustSee("traces (1)")
	d.key("h") // the last group
	d.mustSee("2 chosen from the drift screen")
	d.key("esc") // close the dialog, the filter stays
	if len(d.m.queue.filter.TraceIDs) != 2 {
		t.Fatal("closing the dialog dropped the filter")
	}
	d.key("esc")
	if filterActive(d.m.queue.filter) || len(d.m.queue.rows) != 33 {
		t.Errorf("esc left filter %+v with %d rows", d.m.queue.filter, len(d.m.queue.rows))
	}
	// Unticked in the dialog, it goes too.
	d.send(driftOpenQueueMsg{server: "task-specific", tool: "active_customer_count", traceIDs: []string{"trace_4be07a"}})
	d.keys("f", "h", "space", "enter")
	if len(d.m.queue.filter.TraceIDs) != 0 || len(d.m.queue.rows) != 33 {
		t.Errorf("unticking the drift group left %v (%d rows)", d.m.queue.filter.TraceIDs, len(d.m.queue.rows))
	}
}

// A row is drawn again when anything it shows changes, the suggestion and
// the marker count included (the drawn-row cache is keyed by all of it).
func TestQueueRowRedrawsWhatChanged(t *testing.T) {
	sty := newTestStyles()
	base := app.TraceSummary{TraceID: "t1", Server: "s", Question: "How many?", Status: model.StatusSuggested,
		SuggestedClass: "temporal", Markers: 1}
	cases := []struct {
		name string
		edit func(*app.TraceSummary)
		want string
	}{
		{"suggested class", func(r *app.TraceSummary) { r.SuggestedClass = "semantic" }, "semantic"},
		{"markers", func(r *app.TraceSummary) { r.Markers = 7 }, "7"},
		{"label class", func(r *app.TraceSummary) { r.LabelClass = "policy" }, "policy"},
		{"status", func(r *app.TraceSummary) { r.Status = model.StatusConfirmed }, "confirmed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := newQueueScreen(&env{}, 10)
			q.rows, q.loaded = []app.TraceSummary{base}, true
			before := stripStyles(q.view(&sty, 160, 10))
			if strings.Contains(lineWith(before, "t1"), c.want) {
				t.Fatalf("%q already drawn:\n%s", c.want, before)
			}
			c.edit(&q.rows[0])
			if after := stripStyles(q.view(&sty, 160, 10)); !strings.Contains(lineWith(after, "t1"), c.want) {
				t.Errorf("the row does not show %q after the change:\n%s", c.want, after)
			}
		})
	}
}

// enter pressed after typing a search but before its rows arrive opens the
// row the search selects, not the row of the list it is about to replace
// (TestProgramAcceptThenConfirm once opened the wrong trace this way when
// a loaded machine delayed the search's query).
func TestOpenWaitsForTheSearchRows(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	d := newDriver(t, eng, 100, 30)
	const id = "trace_e7c3b5"
	stale := d.m.queue.rows[0].TraceID
	if stale == id {
		t.Fatal("the search's trace is already the first row")
	}
	d.key("/")
	for _, r := range id {
		// The typing's commands (the search's timer among them) are held.
		d.m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.m.Update(keyMsg("enter")) // leaves the input; the query has not run
	_, cmd := d.m.Update(keyMsg("enter"))
	d.run(cmd)
	if d.m.screen == screenTrace || d.m.trace.pending != "" {
		t.Fatalf("enter opened %q from the rows of the old list", d.m.trace.pending)
	}
	d.send(searchTickMsg{d.m.queue.seq}) // typing paused: the search runs
	if d.m.screen != screenTrace || d.m.trace.id != id {
		t.Errorf("after the search's rows arrived: screen %d, trace %q, want %s", d.m.screen, d.m.trace.id, id)
	}
}
