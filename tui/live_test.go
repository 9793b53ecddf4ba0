package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/store/livetest"
)

// TestQueueSeesLiveTraces: a trace another engine (its own connections to
// the same SQLite file, as tracelab serve has) writes shows in the queue
// and its counts at the next look at the change mark, and the labeler's
// selection stays on the trace it was on.
func TestQueueSeesLiveTraces(t *testing.T) {
	eng, path := openFixtureStore(t)
	d := newDriver(t, eng, 120, 40)
	d.send(storeTickMsg{}) // the first look takes the mark
	q := d.m.queue
	q.cursor = 2
	selected := q.rows[2].TraceID
	before := len(q.rows)
	total := q.counts.Total

	writer, err := app.Open(context.Background(), path, app.Files{})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	const tid = "7c8efff798038103d269b633813fc60c"
	if _, err := writer.Imports.IngestLive(context.Background(), "otlp", []app.LiveSpan{livetest.ChatSpan(tid, "eee19b7ec3c1b174", 1, "12")}); err != nil {
		t.Fatal(err)
	}
	d.send(storeTickMsg{})
	q = d.m.queue
	if len(q.rows) != before+1 || indexOf(q.rows, tid) < 0 {
		t.Fatalf("queue has %d rows (was %d), live trace listed: %v", len(q.rows), before, indexOf(q.rows, tid) >= 0)
	}
	if q.counts.Total != total+1 {
		t.Fatalf("header counts %d traces, want %d", q.counts.Total, total+1)
	}
	if cur, ok := q.current(); !ok || cur.TraceID != selected {
		t.Fatalf("selection moved to %v, was %s", cur.TraceID, selected)
	}
	if !strings.Contains(d.plain(), fmt.Sprint(total+1)) {
		t.Fatalf("screen does not show %d traces:\n%s", total+1, d.plain())
	}
	// Nothing changed: another look does not reread.
	seq := q.seq
	d.send(storeTickMsg{})
	if d.m.queue.seq != seq {
		t.Fatal("an unchanged mark reread the queue")
	}
}

// TestConfirmedTraceChangedLiveIsFlagged: new spans for a trace a person
// confirmed leave the label alone but reach the labeler: the queue row is
// marked, and opening the trace says what changed and how to clear it.
func TestConfirmedTraceChangedLiveIsFlagged(t *testing.T) {
	eng, _ := openFixtureStore(t)
	ctx := context.Background()
	const tid = "8c8efff798038103d269b633813fc60c"
	if _, err := eng.Imports.IngestLive(ctx, "otlp", []app.LiveSpan{livetest.ChatSpan(tid, "eee19b7ec3c1b174", 1, "12")}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Labels.ConfirmLabel(ctx, tid, "tester", true); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Imports.IngestLive(ctx, "otlp", []app.LiveSpan{livetest.ChatSpan(tid, "fff19b7ec3c1b174", 2, "13")}); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, eng, 120, 40)
	q := d.m.queue
	i := indexOf(q.rows, tid)
	if i < 0 {
		t.Fatalf("live trace not listed")
	}
	if q.rows[i].Review == "" {
		t.Fatal("queue row carries no review note")
	}
	if row := stripStyles(q.rowView(&d.m.sty, layoutQueue(120), q.rows[i], false, 120)); !strings.Contains(row, "⚑ changed") {
		t.Fatalf("queue row not marked changed: %q", row)
	}
	q.cursor = i
	d.key("enter")
	if !strings.Contains(d.m.status, "final answer changed") || !strings.Contains(d.m.status, "enter") {
		t.Fatalf("status on open = %q", d.m.status)
	}
	d.mustSee("⚑ changed since")
}
