// Package livetest builds the spans the live-intake tests of several
// packages send (app, tui, cli), so each test does not write its own OTLP
// record.
package livetest

import (
	"encoding/json"
	"fmt"

	"github.com/tracelab-dev/tracelab/store"
)

// ChatSpan is the OTLP JSON record of one GenAI chat span: span sid of
// trace tid, sec seconds into the run, where a user asks "How many orders
// shipped?" and the assistant answers answer.
func ChatSpan(tid, sid string, sec int, answer string) store.LiveSpan {
	sv := func(v string) map[string]any { return map[string]any{"stringValue": v} }
	msg := func(role, text string) string {
		b, _ := json.Marshal([]any{map[string]any{"role": role, "parts": []any{map[string]any{"type": "text", "content": text}}}})
		return string(b)
	}
	span := map[string]any{"traceId": tid, "spanId": sid, "name": "chat",
		"startTimeUnixNano": fmt.Sprint(1751533920000000000 + int64(sec)*1000000000),
		"attributes": []any{
			map[string]any{"key": "gen_ai.operation.name", "value": sv("chat")},
			map[string]any{"key": "gen_ai.input.messages", "value": sv(msg("user", "How many orders shipped?"))},
			map[string]any{"key": "gen_ai.output.messages", "value": sv(msg("assistant", answer))}}}
	rec, _ := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{
		"resource":   map[string]any{"attributes": []any{map[string]any{"key": "service.name", "value": sv("live")}}},
		"scopeSpans": []any{map[string]any{"spans": []any{span}}}}}})
	return store.LiveSpan{TraceID: tid, SpanID: sid, Record: rec}
}
