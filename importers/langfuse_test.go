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

const lfFixtures = "testdata/formats/langfuse"

func parseLF(ctx context.Context, r *bytes.Reader, f string, e Emit) error {
	return parseLangfuse(ctx, r, f, e)
}

func TestLangfuseAPITrace(t *testing.T) {
	data, err := os.ReadFile(lfFixtures + "/api_trace.json")
	if err != nil {
		t.Fatal(err)
	}
	recs := parseAll(t, parseLF, "api_trace.json", data)
	if len(recs) != 1 || recs[0].Trace == nil {
		t.Fatalf("records = %+v, want one trace", recs)
	}
	tr := recs[0].Trace
	var kinds []string
	for _, s := range tr.Steps {
		kinds = append(kinds, string(s.Kind))
	}
	tests := []struct{ name, got, want string }{
		{"kinds", strings.Join(kinds, ","), "user,assistant,tool_call,tool_result,answer"},
		{"as_user", tr.AsUser, "fin.analyst.02"},
		{"metadata", fmt.Sprint(tr.Metadata), "map[case_id:emea-active-q2-017 session_id:sess-2025-07-03]"},
		{"pairing", tr.Steps[3].CallID, "call_1"},
		{"as_of", tr.Steps[3].AsOf, "2025-07-03T08:00:00Z"},
		// Leaf generations only: the AGENT's roll-up is not added again.
		{"usage", fmt.Sprintf("%d %d %g", tr.Usage.InputTokens, tr.Usage.OutputTokens, tr.Usage.USD), "2700 100 0.0912"},
		{"contract", tr.Tools[0].Name + " " + string(tr.Tools[0].InputSchema), `run_sql {"properties":{"sql":{"type":"string"}},"required":["sql"],"type":"object"}`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func TestLangfuseErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"not an object", "[]\n", "x.jsonl:1: expected a JSON object"},
		{"observations not array", `{"trace":{"id":"t"},"observations":{}}` + "\n", "x.jsonl:1: observations: expected an array"},
		{"observation without type", `{"id":"t","observations":[{"id":"o"}]}` + "\n", "x.jsonl:1: observations[0].type: required"},
		{"user id not a string", `{"trace":{"id":"t","userId":7},"observations":[]}` + "\n", "x.jsonl:1: trace.userId: expected a string"},
		{"nothing to read", `{"id":"t","observations":[{"id":"o","type":"SPAN"}]}` + "\n", "x.jsonl:1: observations: no conversation"},
		{"no question", `{"id":"t","observations":[{"id":"o","type":"TOOL","name":"x","input":{}}]}` + "\n", "x.jsonl:1: no user message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := oneError(t, parseLF, tt.in); !strings.HasPrefix(got, tt.want) {
				t.Fatalf("error %q, want it to start %q", got, tt.want)
			}
		})
	}
}

func TestLangfuseSamples(t *testing.T) {
	// *.chatml.json are the expected outputs of Langfuse's ChatML adapter
	// tests: per observation id, {input, output} parse results with
	// success/error flags. They hold no trace, so no format claims them.
	const chatml = "not a supported trace format"
	refused := map[string]string{}
	for _, f := range []string{"claude-agent-2025-12-22", "google-adk-2025-08-28", "langgraph-python-2025-08-22",
		"microsoft-agent-2025-12-17", "openai-agents-2025-09-30", "pydantic-ai-tools-2025-12-04", "vercel-aisdk-2025-11-17"} {
		refused[f+".chatml.json"] = chatml
	}
	checkSamples(t, "langfuse", []string{"langfuse"}, refused)
}

// The seven frameworks' exports, checked on what each must give.
func TestLangfuseSampleTraces(t *testing.T) {
	root := "../../shared/samples/langfuse"
	if _, err := os.Stat(root); err != nil {
		t.Skipf("real-world samples not present at %s: %v", root, err)
	}
	tests := []struct{ file, question, kinds string }{
		{"claude-agent-2025-12-22", "What's the weather like in Berlin and New York?", "user,assistant,tool_call,tool_call,tool_result,tool_result,answer"},
		{"google-adk-2025-08-28", "hi", "user,tool_call,tool_result,answer"},
		{"langgraph-python-2025-08-22", "Search the web for 'example' and summarize.", "user,user,tool_call,tool_result,answer"},
		{"microsoft-agent-2025-12-17", "What's the weather in Tokyo?", "user,tool_call,tool_result,answer"},
		{"openai-agents-2025-09-30", "What's the weather in Tokyo?", "user,tool_call,tool_result,answer"},
		// Three turns: the question is the last, answered through the
		// final_result output tool; earlier turns' answers are assistant
		// messages.
		{"pydantic-ai-tools-2025-12-04", "Rate this joke:\n\nWhy do programmers hate nature?  \nIt has too many bugs!",
			"user,tool_call,tool_call,tool_call,tool_result,tool_result,tool_result,assistant,user,assistant,user,tool_call,answer"},
		{"vercel-aisdk-2025-11-17", "What is the weather like today in San Francisco?", "user,tool_call,tool_result"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(root + "/" + tt.file + ".trace.json")
			if err != nil {
				t.Fatal(err)
			}
			recs := parseAll(t, parseLF, tt.file, data)
			if len(recs) != 1 || recs[0].Trace == nil {
				t.Fatalf("records = %+v", recs)
			}
			tr := recs[0].Trace
			var kinds []string
			for _, s := range tr.Steps {
				kinds = append(kinds, string(s.Kind))
			}
			if tr.Question != tt.question || strings.Join(kinds, ",") != tt.kinds {
				t.Errorf("question %q kinds %s, want %q %s", tr.Question, strings.Join(kinds, ","), tt.question, tt.kinds)
			}
		})
	}
}

func FuzzParseLangfuse(f *testing.F) {
	fuzzParse(f, lfFixtures, parseLangfuse,
		`{"id":"t","observations":[{"id":"a","parentObservationId":"a","type":"GENERATION","input":"\"[{\\\"role\\\":\\\"user\\\",\\\"content\\\":\\\"q\\\"}]\""}]}`,
	)
}

// lfBenchInput writes {trace, observations} lines: per trace a SPAN, a
// generation calling a tool, the TOOL observation and a generation
// answering from the re-sent history (five steps).
func lfBenchInput(steps int) []byte {
	var buf bytes.Buffer
	for i := 0; i*5 < steps; i++ {
		q := fmt.Sprintf("How many active customers did we have in region %d?", i)
		call := map[string]any{"role": "assistant", "content": "region probably means sales_region",
			"tool_calls": []any{map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "run_sql", "arguments": fmt.Sprintf(`{"sql":"SELECT COUNT(*) FROM customers WHERE region = %d"}`, i)}}}}
		user := map[string]any{"role": "user", "content": q}
		result := fmt.Sprintf(`{"rows":[[%d]]}`, i)
		ts := "2025-07-03T09:12:00.000Z"
		rec := map[string]any{
			"trace": map[string]any{"id": fmt.Sprintf("t%d", i), "timestamp": ts, "userId": "u1"},
			"observations": []any{
				map[string]any{"id": "s", "type": "SPAN", "name": "agent", "startTime": ts},
				map[string]any{"id": "g1", "type": "GENERATION", "parentObservationId": "s", "startTime": "2025-07-03T09:12:01.000Z",
					"input": []any{user}, "output": call, "usageDetails": map[string]any{"input": 100, "output": 10}},
				map[string]any{"id": "t", "type": "TOOL", "name": "run_sql", "parentObservationId": "s", "startTime": "2025-07-03T09:12:02.000Z",
					"input": map[string]any{"sql": "SELECT 1"}, "output": result},
				map[string]any{"id": "g2", "type": "GENERATION", "parentObservationId": "s", "startTime": "2025-07-03T09:12:03.000Z",
					"input":  []any{user, call, map[string]any{"role": "tool", "tool_call_id": "c1", "content": result}},
					"output": map[string]any{"role": "assistant", "content": fmt.Sprintf("%d customers.", i)}, "usageDetails": map[string]any{"input": 150, "output": 5}},
			},
		}
		b, _ := json.Marshal(rec)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func BenchmarkImportLangfuse(b *testing.B) {
	for _, steps := range []int{10_000, 100_000} {
		data := lfBenchInput(steps)
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) { benchImportFormat(b, data, parseLF) })
	}
}

// A {trace, observations} record whose trace is longer than the detection
// head is still recognized from the trace's own keys.
func TestLangfuseDetectLongTrace(t *testing.T) {
	long := `{"trace":{"id":"t1","projectId":"p","userId":"u","input":"` + strings.Repeat("x", HeadSize) + `"},"observations":[]}`
	f, err := Detect("big.json", []byte(long)[:HeadSize])
	if err != nil || f.Name != "langfuse" {
		t.Fatalf("detected %q, %v; want langfuse", f.Name, err)
	}
}
