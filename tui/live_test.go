package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
)

// liveChatSpan is the OTLP JSON record of one chat span: a trace of its own.
func liveChatSpan(tid string) app.LiveSpan {
	sv := func(v string) map[string]any { return map[string]any{"stringValue": v} }
	msg := func(role, text string) string {
		b, _ := json.Marshal([]any{map[string]any{"role": role, "parts": []any{map[string]any{"type": "text", "content": text}}}})
		return string(b)
	}
	span := map[string]any{"traceId": tid, "spanId": "eee19b7ec3c1b174", "name": "chat", "startTimeUnixNano": "1751533921000000000",
		"attributes": []any{
			map[string]any{"key": "gen_ai.operation.name", "value": sv("chat")},
			map[string]any{"key": "gen_ai.input.messages", "value": sv(msg("user", "How many live orders?"))},
			map[string]any{"key": "gen_ai.output.messages", "value": sv(msg("assistant", "12"))}}}
	rec, _ := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{
		"resource":   map[string]any{"attributes": []any{map[string]any{"key": "service.name", "value": sv("live-server")}}},
		"scopeSpans": []any{map[string]any{"spans": []any{span}}}}}})
	return app.LiveSpan{TraceID: tid, SpanID: "eee19b7ec3c1b174", Record: rec}
}

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
	if _, err := writer.Imports.IngestLive(context.Background(), "otlp", []app.LiveSpan{liveChatSpan(tid)}); err != nil {
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
