package importers

import (
	"context"
	"strings"
	"testing"
)

// TestOpenAIChatRequestMetadata: a replayed request's metadata.case_id
// and metadata.trace_id (OpenAI's request metadata map) tie the trace to
// its suite case, in a flat request and in a request/response log.
func TestOpenAIChatRequestMetadata(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"How many orders?"},{"role":"assistant","content":"7"}]`
	for _, tt := range []struct {
		name, body       string
		wantID, wantCase string
	}{
		{"flat request", `{` + msgs + `,"metadata":{"case_id":"orders-001","trace_id":"replay-17"}}`, "replay-17", "orders-001"},
		{"request/response log", `{"request":{` + msgs + `,"metadata":{"case_id":"orders-002","trace_id":"replay-18"}},"response":{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"7"}}]}}`, "replay-18", "orders-002"},
		{"case id only", `{` + msgs + `,"metadata":{"case_id":"orders-003"}}`, "openai_chat-", "orders-003"},
		{"other metadata", `{` + msgs + `,"metadata":{"team":"billing"}}`, "openai_chat-", ""},
	} {
		var got []Record
		format, err := Parse(context.Background(), strings.NewReader(tt.body+"\n"), "req.jsonl", "", func(r Record) error {
			got = append(got, r)
			return nil
		})
		if err != nil || format.Name != "openai_chat" || len(got) != 1 || got[0].Trace == nil {
			t.Fatalf("%s: format %q, %v, %+v", tt.name, format.Name, err, got)
		}
		tr := got[0].Trace
		if !strings.HasPrefix(tr.TraceID, tt.wantID) || tr.CaseID() != tt.wantCase {
			t.Errorf("%s: trace_id %q case_id %q, want %q and %q", tt.name, tr.TraceID, tr.CaseID(), tt.wantID, tt.wantCase)
		}
	}
}
