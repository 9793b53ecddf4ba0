package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

const oiFixtures = "testdata/formats/openinference"

func parseOI(ctx context.Context, r *bytes.Reader, f string, e Emit) error {
	return parseOpenInference(ctx, r, f, e)
}

// The Phoenix fixture mixes the nested attribute form (first LLM span) and
// the flattened one (second LLM span): both must give the same messages,
// and the second span's re-sent history must not repeat steps.
func TestOpenInferencePhoenixTrace(t *testing.T) {
	data, err := os.ReadFile(oiFixtures + "/phoenix_spans.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	recs := parseAll(t, parseOI, "phoenix_spans.jsonl", data)
	if len(recs) != 2 || recs[0].Trace == nil || recs[1].Trace == nil {
		t.Fatalf("records = %+v, want two traces", recs)
	}
	tr := recs[0].Trace
	var kinds []string
	for _, s := range tr.Steps {
		kinds = append(kinds, string(s.Kind))
	}
	tests := []struct{ name, got, want string }{
		{"kinds", strings.Join(kinds, ","), "user,assistant,tool_call,tool_result,reasoning,answer"},
		{"trace_id", tr.TraceID, "6f1b7c2e-3d4a-4b5c-8d9e-0a1b2c3d4e5f"},
		{"as_user", tr.AsUser, "sales.manager.03"},
		{"session", fmt.Sprint(tr.Metadata["session_id"]), "sess-42"},
		{"started_at (UTC)", tr.StartedAt, "2025-03-04T09:00:00Z"},
		{"pairing", tr.Steps[3].CallID, "call_rev1"},
		{"paging", fmt.Sprintln(tr.Steps[3].NextCursor, tr.Steps[3].HasMore), "page-2 true\n"},
		{"usage", fmt.Sprint(tr.Usage.InputTokens, tr.Usage.OutputTokens, tr.Usage.USD), "940 102 0.005"},
		{"contract", tr.Tools[0].Name + " " + string(tr.Tools[0].InputSchema), `run_sql {"properties":{"sql":{"type":"string"}},"required":["sql"],"type":"object"}`},
		{"failed chain", string(recs[1].Trace.Outcome), "failure"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func TestOpenInferenceErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"not json", "llm.input_messages\n", "x.jsonl:1: expected a JSON object"},
		{"span id without trace id", `{"name":"llm","context":{"span_id":"s1"},"attributes":{"openinference.span.kind":"LLM"}}` + "\n", "x.jsonl:1: context.trace_id: required"},
		{"array of non-spans", `[{"attributes":{"llm.input_messages.0.message.role":"user"}}, 3]` + "\n", "x.jsonl:1: [1]: expected a span object"},
		{"no conversation", `{"openinference.span.kind":"LLM","llm.model_name":"gpt-4o"}` + "\n", "no conversation in its 1 span(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := oneError(t, parseOI, tt.in); !strings.Contains(got, tt.want) {
				t.Fatalf("error %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

func TestOpenInferenceSamples(t *testing.T) {
	noQuestion := "no user message, so no question"
	noConversation := "no conversation in its 1 span(s)"
	// The spec's attribute fragments: an output without its input, or a
	// tool definition alone. Each is part of a span, not a trace.
	refused := map[string]string{
		"spec-md-blocks/llm_spans.md.block03.json":    noQuestion, // output reasoning only
		"spec-md-blocks/llm_spans.md.block04.json":    noQuestion,
		"spec-md-blocks/llm_spans.md.block05.json":    noQuestion,
		"spec-md-blocks/llm_spans.md.block06.json":    noQuestion,
		"spec-md-blocks/tool_calling.md.block00.json": noConversation, // llm.tools only
		"spec-md-blocks/tool_calling.md.block01.json": noQuestion,
		"spec-md-blocks/tool_calling.md.block02.json": noQuestion,
		"spec-md-blocks/tool_calling.md.block03.json": noQuestion,
		"spec-md-blocks/tool_calling.md.block04.json": noQuestion, // a tool message alone
		"spec-md-blocks/tool_calling.md.block06.json": noConversation,
		"spec-md-blocks/tool_calling.md.block07.json": noQuestion,
		"spec-md-blocks/tool_calling.md.block08.json": noQuestion,
		"spec-md-blocks/tool_calling.md.block09.json": noQuestion,
	}
	checkSamples(t, "openinference", []string{"openinference"}, refused)
}

func FuzzParseOpenInference(f *testing.F) {
	fuzzParse(f, oiFixtures, parseOpenInference,
		`{"llm.input_messages.0.message.role":"user","llm.input_messages.0.message.content":"q","llm.output_messages.0.message.tool_calls.x.tool_call.function.name":"t"}`,
		`[{"context":{"trace_id":"t","span_id":"s"},"parent_id":"s","attributes":{"openinference.span.kind":"TOOL","input.value":"[1]"}}]`,
	)
}

// oiBenchInput writes Phoenix span JSONL: per trace an AGENT span, an LLM
// span calling a tool (nested attributes), the TOOL span, and an LLM span
// answering (flattened attributes): five steps.
func oiBenchInput(steps int) []byte {
	var buf bytes.Buffer
	for i := 0; i*5 < steps; i++ {
		tid := fmt.Sprintf("trace-%08d", i)
		q := fmt.Sprintf("How many active customers did we have in region %d?", i)
		args := fmt.Sprintf(`{"sql":"SELECT COUNT(*) FROM customers WHERE region = %d"}`, i)
		span := func(id, parent, kind string, attrs map[string]any) {
			attrs["openinference.span.kind"] = kind
			b, _ := json.Marshal(map[string]any{"name": kind, "context": map[string]any{"trace_id": tid, "span_id": id},
				"parent_id": parent, "start_time": fmt.Sprintf("2025-03-04T10:%02d:%02dZ", i/60%60, i%60), "attributes": attrs})
			buf.Write(b)
			buf.WriteByte('\n')
		}
		span("a", "", "AGENT", map[string]any{"input.value": q})
		span("b", "a", "LLM", map[string]any{
			"llm.input_messages":  []any{map[string]any{"message.role": "user", "message.content": q}},
			"llm.output_messages": []any{map[string]any{"message.role": "assistant", "message.content": "region probably means sales_region", "message.tool_calls": []any{map[string]any{"tool_call.id": "c1", "tool_call.function.name": "run_sql", "tool_call.function.arguments": args}}}},
		})
		span("c", "a", "TOOL", map[string]any{"tool.name": "run_sql", "input.value": args, "output.value": fmt.Sprintf(`{"rows":[[%d]]}`, i)})
		span("d", "a", "LLM", map[string]any{
			"llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": q,
			"llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": fmt.Sprintf("%d customers.", i),
		})
	}
	return buf.Bytes()
}

func BenchmarkImportOpenInference(b *testing.B) {
	for _, steps := range []int{10_000, 100_000} {
		data := oiBenchInput(steps)
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) { benchImportFormat(b, data, parseOI) })
	}
}
