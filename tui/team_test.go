package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/model"
)

// A trace another labeler holds is marked in the queue, `n` passes it by,
// and opening it says whose it is.
func TestQueueAndNextRespectOthersReservations(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	ctx := context.Background()
	d := newDriver(t, eng, 120, 30)
	q := d.m.queue
	held := q.rows[1].TraceID
	if r, err := eng.Queue.Reserve(ctx, held, "ana"); err != nil || r.Labeler != "ana" {
		t.Fatalf("ana reserving %s: %+v %v", held, r, err)
	}
	d.run(d.m.queue.reload()) // as applying a filter would
	if !strings.Contains(d.plain(), "⊘ ana") {
		t.Fatalf("the queue does not mark ana's trace:\n%s", d.plain())
	}
	d.keys("j", "n")
	if r, _ := q.current(); r.TraceID == held || q.cursor != 2 || d.m.trace.id != r.TraceID {
		t.Errorf("n from row 1 stopped at row %d (%s) and opened %s; ana holds row 1, want row 2", q.cursor, r.TraceID, d.m.trace.id)
	}
	d.key("esc")
	if r, err := eng.Queue.Reserve(ctx, q.rows[2].TraceID, "someone else"); err != nil || r.Labeler != "tester" {
		t.Errorf("n did not reserve row 2 for the tester: %+v %v", r, err)
	}
	d.m.queue.cursor = 1
	d.key("enter")
	if !strings.Contains(d.m.status, "reserved by ana until") {
		t.Errorf("opening ana's trace says %q", d.m.status)
	}
	// At 80 columns the marker stands alone.
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.key("esc")
	if !strings.Contains(d.plain(), "⊘") || strings.Contains(d.plain(), "⊘ ana") {
		t.Errorf("narrow queue marker:\n%s", d.plain())
	}
}

// While a trace is open the poll shows another labeler's edit, with their
// value on the screen, and never the labeler's own.
func TestPollShowsAnotherLabelersEdit(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	ctx := context.Background()
	d := newDriver(t, eng, 120, 30)
	id := d.m.queue.rows[0].TraceID
	d.key("enter")
	ts := d.m.trace
	ts.poll = time.Hour // the ticks are run by hand below
	_, since, err := eng.Queue.ChangesSince(ctx, id, "tester", -1)
	if err != nil {
		t.Fatal(err)
	}
	ts.opened(d.m, traceMsg{id: id, since: since})
	poll := func() {
		t.Helper()
		cmd := ts.pollTick(d.m, pollTickMsg{ts.watch})
		if cmd == nil {
			t.Fatal("no poll for the open trace")
		}
		ts.changesDone(d.m, cmd().(changesMsg))
	}
	d.m.setStatus("", false)
	d.key("c") // the tester's own edit
	poll()
	if strings.Contains(d.m.status, "changed by") {
		t.Errorf("own edit reported as someone else's: %q", d.m.status)
	}
	class := model.ClassTemporal
	if _, err := eng.Labels.SetClass(ctx, id, "ana", &class); err != nil {
		t.Fatal(err)
	}
	poll()
	if d.m.status != "label.failure_class changed by ana just now" {
		t.Errorf("status %q", d.m.status)
	}
	// Ana's label is her own row: the raters block shows it beside the
	// tester's (the case's final label is the rule's, disputed here).
	if ana := ts.raters.Rater("ana"); ana == nil || ana.Label.FailureClass == nil || *ana.Label.FailureClass != class {
		t.Errorf("the screen shows ana's label as %+v, she set class %s", ana, class)
	}
	if !strings.Contains(d.plain(), "1 ana") || !strings.Contains(d.plain(), string(class)) {
		t.Errorf("the raters block does not show ana:\n%s", d.plain())
	}
	// A trace closed or reopened ends its poll chain.
	old := ts.watch
	ts.opened(d.m, traceMsg{id: id})
	if ts.pollTick(d.m, pollTickMsg{old}) != nil {
		t.Error("a stale poll chain went on")
	}
}
