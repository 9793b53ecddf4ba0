package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

const otelFixtures = "testdata/formats/otel"

// The agent fixture's trace, asserted field by field: the invoke_agent
// span's copy of the conversation and its usage roll-up are not counted
// twice, the execute_tool span answers the chat span's call by id.
func TestOtelAgentTrace(t *testing.T) {
	data, err := os.ReadFile(otelFixtures + "/agent_otlp.json")
	if err != nil {
		t.Fatal(err)
	}
	recs := parseAll(t, func(ctx context.Context, r *bytes.Reader, f string, e Emit) error { return parseOtel(ctx, r, f, e) }, "agent_otlp.json", data)
	if len(recs) != 1 || recs[0].Trace == nil {
		t.Fatalf("records = %+v, want one trace", recs)
	}
	tr := recs[0].Trace
	kinds := []model.StepKind{}
	for _, s := range tr.Steps {
		kinds = append(kinds, s.Kind)
	}
	want := []model.StepKind{model.KindUser, model.KindReasoning, model.KindToolCall, model.KindToolResult, model.KindAnswer}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("kinds = %v, want %v", kinds, want)
	}
	tests := []struct{ name, got, want string }{
		{"trace_id", tr.TraceID, "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"server", tr.Server, "generic-warehouse"},
		{"as_user", tr.AsUser, "fin.analyst.02"},
		{"started_at", tr.StartedAt, "2025-07-03T09:12:00Z"},
		{"call args", string(tr.Steps[2].Args), `{"sql":"SELECT COUNT(*) FROM customers WHERE is_active = true AND region_code LIKE 'EU%'"}`},
		{"result pairs", tr.Steps[3].CallID, tr.Steps[2].ID},
		{"result", string(tr.Steps[3].Result), `{"as_of":"2025-07-03T08:00:00Z","rows":[{"count":1284}]}`},
		{"usage", fmt.Sprint(tr.Usage.InputTokens, tr.Usage.OutputTokens), "2700 100"},
		{"contract", tr.Tools[0].Name + " " + string(tr.Tools[0].InputSchema), `run_sql {"properties":{"sql":{"type":"string"}},"required":["sql"],"type":"object"}`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func TestOtelErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"not an object", `[1,2]` + "\n", "x.jsonl:1: expected a JSON object"},
		{"bad intValue", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"ab","spanId":"cd","attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"many"}}]}]}]}]}` + "\n",
			"x.jsonl:1: resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.intValue"},
		{"missing traceId", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"cd"}]}]}]}` + "\n",
			"x.jsonl:1: resourceSpans[0].scopeSpans[0].spans[0].traceId: required"},
		{"no genai content", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"ab","spanId":"cd","name":"GET /"}]}]}]}` + "\n",
			"x.jsonl:1: trace ab holds no conversation"},
		{"truncated line", `{"gen_ai.operation.name":"chat"` + "\n", "x.jsonl:1: invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := parseAll(t, func(ctx context.Context, r *bytes.Reader, f string, e Emit) error { return parseOtel(ctx, r, f, e) }, "x.jsonl", []byte(tt.in))
			if len(recs) != 1 || recs[0].Err == nil || !strings.HasPrefix(recs[0].Err.Error(), tt.want) {
				t.Fatalf("got %+v, want an error starting %q", recs, tt.want)
			}
		})
	}
}

func TestOtelSamples(t *testing.T) {
	blocks := "semconv-953276f/examples-llm-calls-blocks/"
	notTrace := "not a supported trace format"
	refused := map[string]string{
		"otel_genai_tool_execution_span.json": "no user message, so no question",
		"otlp-proto-examples/trace.json":      "no conversation in its 1 span(s)", // OTLP envelope without gen_ai attributes
		"otlp-proto-examples/events.json":     notTrace,                           // OTLP logs (resourceLogs) of a browser event, not spans
		// Values of single gen_ai.* attributes (message arrays, tool
		// definitions, system instructions) cut out of the semconv
		// examples: fragments of a span, not a span or a trace.
		"semconv-953276f/gen-ai-input-messages.json":       notTrace, // JSON Schemas
		"semconv-953276f/gen-ai-output-messages.json":      notTrace,
		"semconv-953276f/gen-ai-system-instructions.json":  notTrace,
		"semconv-953276f/gen-ai-tool-definitions.json":     notTrace,
		blocks + "block04-multimodal-inputs-example.jsonc": notTrace, // JSON with comments
		blocks + "block05-multimodal-output-example.jsonc": notTrace,
	}
	for _, b := range []string{"00-gen-ai-input-messages-simple", "01-gen-ai-output-messages-simple", "02-gen-ai-input-messages-event",
		"03-gen-ai-output-messages-event", "06-gen-ai-tool-definitions-tool-call-span-0", "07-gen-ai-input-messages-tool-call-span-1",
		"08-gen-ai-output-messages-tool-call-span-1", "09-gen-ai-tool-definitions-tool-call-span-1", "10-gen-ai-input-messages-tool-call-span-2",
		"11-gen-ai-output-messages-tool-call-span-2", "12-gen-ai-system-instructions", "13-gen-ai-input-messages-instructions",
		"14-gen-ai-output-messages-instructions", "15-gen-ai-input-messages-reasoning", "16-gen-ai-output-messages-reasoning",
		"17-gen-ai-input-messages-built-in-tools", "18-gen-ai-output-messages-built-in-tools", "19-gen-ai-input-messages-choices",
		"20-gen-ai-output-messages-choices"} {
		refused[blocks+"block"+b+".json"] = notTrace
	}
	checkSamples(t, "otel_genai", []string{"otel"}, refused)
}

func FuzzParseOtel(f *testing.F) {
	fuzzParse(f, otelFixtures, parseOtel,
		`{"gen_ai.operation.name":"execute_tool","gen_ai.tool.call.id":"1","gen_ai.tool.call.result":"x"}`,
		`{"gen_ai.prompt.0.content":"q","gen_ai.completion.0.tool_calls.0.name":"t","gen_ai.completion.0.tool_calls.0.arguments":"[1]"}`,
	)
}

// otelBenchInput writes an OTel collector file-exporter log: one
// ExportTraceServiceRequest per line, each an agent run of five steps
// (user, reasoning, tool call, tool result, answer) over four spans.
func otelBenchInput(steps int) []byte {
	var buf bytes.Buffer
	str := func(k, v string) map[string]any {
		return map[string]any{"key": k, "value": map[string]any{"stringValue": v}}
	}
	for i := 0; i*5 < steps; i++ {
		tid := fmt.Sprintf("%032x", i+1)
		q := fmt.Sprintf("How many active customers did we have in region %d last quarter?", i)
		call := fmt.Sprintf(`{"role":"assistant","parts":[{"type":"reasoning","content":"region_code probably starts with EU"},{"type":"tool_call","id":"call_%d","name":"run_sql","arguments":{"sql":"SELECT COUNT(*) FROM customers WHERE region = %d"}}]}`, i, i)
		user := fmt.Sprintf(`{"role":"user","parts":[{"type":"text","content":%q}]}`, q)
		span := func(id, parent, name string, start int, attrs ...map[string]any) map[string]any {
			return map[string]any{"traceId": tid, "spanId": id, "parentSpanId": parent, "name": name,
				"startTimeUnixNano": fmt.Sprint(1751533920000000000 + int64(i)*1e10 + int64(start)*1e9), "attributes": attrs}
		}
		req := map[string]any{"resourceSpans": []any{map[string]any{
			"resource": map[string]any{"attributes": []any{str("service.name", "bench")}},
			"scopeSpans": []any{map[string]any{"spans": []any{
				span("0000000000000001", "", "invoke_agent", 0, str("gen_ai.operation.name", "invoke_agent")),
				span("0000000000000002", "0000000000000001", "chat", 1, str("gen_ai.operation.name", "chat"),
					str("gen_ai.input.messages", "["+user+"]"), str("gen_ai.output.messages", "["+call+"]")),
				span("0000000000000003", "0000000000000001", "execute_tool", 2, str("gen_ai.operation.name", "execute_tool"),
					str("gen_ai.tool.name", "run_sql"), str("gen_ai.tool.call.id", fmt.Sprintf("call_%d", i)),
					str("gen_ai.tool.call.result", fmt.Sprintf(`{"rows":[{"count":%d}]}`, i))),
				span("0000000000000004", "0000000000000001", "chat", 3, str("gen_ai.operation.name", "chat"),
					str("gen_ai.input.messages", "["+user+","+call+"]"),
					str("gen_ai.output.messages", fmt.Sprintf(`[{"role":"assistant","parts":[{"type":"text","content":"%d customers."}]}]`, i))),
			}}},
		}}}
		b, _ := json.Marshal(req)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func BenchmarkImportOtel(b *testing.B) {
	for _, steps := range []int{10_000, 100_000} {
		data := otelBenchInput(steps)
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			benchImportFormat(b, data, func(ctx context.Context, r *bytes.Reader, f string, e Emit) error { return parseOtel(ctx, r, f, e) })
		})
	}
}
