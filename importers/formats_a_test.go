package importers

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

func parseFile(t *testing.T, path, forced string) (Format, []Record, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []Record
	format, err := Parse(context.Background(), f, filepath.Base(path), forced, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	return format, recs, err
}

// checkTrace is what every importer promises of a trace it emits.
func checkTrace(tr *model.Trace) string {
	switch {
	case tr.TraceID == "":
		return "empty trace_id"
	case len(tr.Steps) == 0:
		return "no steps"
	case !slices.Contains(model.Outcomes, tr.Outcome):
		return "bad outcome " + string(tr.Outcome)
	case tr.StartedAt != "" && !validTime(tr.StartedAt):
		return "started_at not RFC 3339: " + tr.StartedAt
	case tr.Usage.InputTokens < 0 || tr.Usage.OutputTokens < 0:
		return "negative usage"
	}
	for i, s := range tr.Steps {
		if !slices.Contains(model.StepKinds, s.Kind) {
			return "bad step kind " + string(s.Kind)
		}
		if s.Kind == model.KindToolCall && (s.Tool == "" || !isJSONObjectOrNull(s.Args) || !json.Valid(s.Args)) {
			return "tool_call without a tool or object args at step " + string(rune('0'+i%10))
		}
		if s.Kind == model.KindToolResult && (len(s.Result) == 0 || !json.Valid(s.Result)) {
			return "tool_result without a JSON result"
		}
	}
	for _, tc := range tr.Tools {
		if tc.Name == "" || !json.Valid(tc.Raw) {
			return "tool contract without a name or raw JSON"
		}
		for _, raw := range []json.RawMessage{tc.InputSchema, tc.OutputSchema, tc.Annotations} {
			if raw != nil && !json.Valid(raw) {
				return "tool contract with invalid JSON schema"
			}
		}
	}
	return ""
}

// kinds renders step kinds compactly for table tests.
func kinds(tr *model.Trace) string {
	var b []string
	for _, s := range tr.Steps {
		b = append(b, string(s.Kind))
	}
	return strings.Join(b, ",")
}

func toolNames(tr *model.Trace) string {
	var b []string
	for _, tc := range tr.Tools {
		b = append(b, tc.Name)
	}
	return strings.Join(b, ",")
}

// TestFormatTraces states by hand what the fixtures must produce, so the
// golden files are not the only judge.
func TestFormatTraces(t *testing.T) {
	type want struct {
		rec                     int // index among the file's records
		id, question, user, run string
		server, started         string
		outcome                 model.Outcome
		kinds, tools            string
		in, out                 int64
		pairs                   map[string]string // tool_result call_id -> tool
	}
	tests := []struct {
		file string
		want []want
	}{
		{"openai_chat/conversation.jsonl", []want{
			{rec: 0, id: "openai_chat-", question: "How many active customers did we have in EMEA last quarter?",
				outcome: model.OutcomeUnknown, kinds: "user,assistant,tool_call,tool_result,answer", tools: "run_sql",
				pairs: map[string]string{"call_1": "run_sql"}},
			{rec: 1, id: "openai_chat-", question: "Revenue last month?", outcome: model.OutcomeUnknown,
				kinds: "user,clarification,user,tool_call,tool_result,answer", pairs: map[string]string{"call_a": "lookup"}},
		}},
		{"openai_chat/request_response.json", []want{
			{id: "chatcmpl-fixture-1", question: "What's the weather in Seattle and Paris?", user: "fin.analyst.02",
				started: "2025-07-03T09:12:00Z", outcome: model.OutcomeUnknown, kinds: "user,tool_call,tool_call",
				tools: "get_weather", in: 82, out: 47},
		}},
		{"openai_chat/stream.jsonl", []want{
			{id: "chatcmpl-stream-1", started: "2025-07-03T09:12:00Z", outcome: model.OutcomeUnknown,
				kinds: "tool_call,tool_call", in: 82, out: 47},
		}},
		{"openai_chat/stream.sse", []want{
			{id: "chatcmpl-stream-2", started: "2025-07-03T09:12:01Z", outcome: model.OutcomeUnknown, kinds: "answer"},
		}},
		{"openai_chat/cassette.yaml", []want{
			{id: "chatcmpl-cas-2", question: "Weather in Oslo?", started: "2025-07-03T09:12:00Z", outcome: model.OutcomeUnknown,
				kinds: "user,tool_call,tool_result,answer", tools: "get_weather", in: 50 + 80, out: 10 + 8,
				pairs: map[string]string{"call_o": "get_weather"}},
		}},
		{"openai_responses/cassette.yaml", []want{
			{id: "resp_cas_2", question: "Weather in Lima?", started: "2025-07-03T09:12:00Z", outcome: model.OutcomeUnknown,
				kinds: "user,tool_call,tool_result,answer", tools: "get_weather", in: 40 + 60, out: 12 + 7,
				pairs: map[string]string{"call_l": "get_weather"}},
		}},
		{"anthropic/cassette.yaml", []want{
			{id: "msg_cas_1", question: "What time is it in Tokyo?", outcome: model.OutcomeUnknown,
				kinds: "user,tool_call", tools: "get_time", in: 300, out: 20},
		}},
		{"openai_responses/response.json", []want{
			{id: "resp_fixture_1", question: "How many active customers in EMEA?", user: "fin.analyst.02",
				started: "2025-07-03T09:12:00Z", outcome: model.OutcomeUnknown,
				kinds: "user,reasoning,tool_call,tool_result,answer", tools: "run_sql", in: 328, out: 52,
				pairs: map[string]string{"call_1": "run_sql"}},
		}},
		{"openai_responses/logs.jsonl", []want{
			{id: "resp_fixture_mcp", question: "How many orders shipped yesterday?", server: "warehouse",
				started: "2025-07-03T09:12:01Z", outcome: model.OutcomeUnknown,
				kinds: "user,tool_call,tool_result,tool_call,tool_result,answer", tools: "run_sql", in: 900, out: 60,
				pairs: map[string]string{"mcp_1": "run_sql", "mcp_2": "run_sql"}},
		}},
		{"openai_responses/stream.jsonl", []want{
			{id: "resp_fixture_stream", started: "2025-07-03T09:12:02Z", outcome: model.OutcomeUnknown, kinds: "answer", in: 12, out: 4},
		}},
		{"anthropic/request_response.json", []want{
			{id: "msg_fixture_01", question: "How many active customers did we have in EMEA last quarter?", user: "fin.analyst.02",
				outcome: model.OutcomeUnknown, kinds: "user,reasoning,assistant,tool_call,tool_result,answer", tools: "run_sql",
				in: 410 + 100 + 2000, out: 12, pairs: map[string]string{"toolu_01": "run_sql"}},
		}},
		{"anthropic/messages.jsonl", []want{
			{rec: 0, id: "msg_fixture_02", outcome: model.OutcomeUnknown, kinds: "reasoning,answer", in: 49, out: 5},
			{rec: 1, id: "anthropic-", question: "Revenue last month?", outcome: model.OutcomeUnknown,
				kinds: "user,clarification,user,tool_call,tool_result,answer", tools: "lookup",
				pairs: map[string]string{"toolu_a": "lookup"}},
		}},
		{"anthropic/stream.sse", []want{
			{id: "msg_fixture_stream", outcome: model.OutcomeUnknown, kinds: "reasoning,assistant,tool_call", in: 472 + 28, out: 89},
		}},
		{"inspect/eval.json", []want{
			{rec: 0, id: "EvFixture01/q1/1", question: "How many active customers did we have in EMEA last quarter?",
				run: "RunFixture01", started: "2026-07-03T09:12:01.250000+00:00", outcome: model.OutcomePass,
				kinds: "user,reasoning,assistant,tool_call,tool_result,answer", tools: "run_sql", in: 300 + 200 + 800, out: 40,
				pairs: map[string]string{"call_1": "run_sql"}},
			{rec: 1, id: "EvFixture01/2/1", question: "List the tables.", run: "RunFixture01",
				started: "2026-07-03T09:12:00+00:00", outcome: model.OutcomeFailure,
				kinds: "user,tool_call,tool_result,answer", in: 120, out: 9, pairs: map[string]string{"call_2": "bash"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, recs, err := parseFile(t, filepath.Join(formatsDir, tt.file), "")
			if err != nil {
				t.Fatal(err)
			}
			if n := len(recs); n != len(tt.want) && !strings.HasSuffix(tt.file, ".jsonl") {
				t.Errorf("%d records, want %d", n, len(tt.want))
			}
			for _, w := range tt.want {
				if w.rec >= len(recs) || recs[w.rec].Trace == nil {
					t.Fatalf("record %d: no trace in %d records", w.rec, len(recs))
				}
				tr := recs[w.rec].Trace
				if !strings.HasPrefix(tr.TraceID, w.id) || (!strings.HasSuffix(w.id, "-") && tr.TraceID != w.id) {
					t.Errorf("record %d: trace_id %q, want %q", w.rec, tr.TraceID, w.id)
				}
				got := []string{tr.Question, tr.AsUser, tr.RunID, tr.Server, tr.StartedAt, string(tr.Outcome), kinds(tr), toolNames(tr)}
				exp := []string{w.question, w.user, w.run, w.server, w.started, string(w.outcome), w.kinds, w.tools}
				names := []string{"question", "as_user", "run_id", "server", "started_at", "outcome", "kinds", "tools"}
				for i := range got {
					if got[i] != exp[i] {
						t.Errorf("record %d: %s = %q, want %q", w.rec, names[i], got[i], exp[i])
					}
				}
				// The fixtures record no cost: any USD is estimated from the price table.
				if tr.Usage.InputTokens != w.in || tr.Usage.OutputTokens != w.out || (tr.Usage.USD != 0 && !tr.Usage.Estimated) {
					t.Errorf("record %d: usage %+v, want in %d out %d", w.rec, tr.Usage, w.in, w.out)
				}
				calls := map[string]string{}
				for _, s := range tr.Steps {
					switch s.Kind {
					case model.KindToolCall:
						calls[s.ID] = s.Tool
					case model.KindToolResult:
						if tool, ok := calls[s.CallID]; !ok || w.pairs[s.CallID] != tool || s.Tool != tool {
							t.Errorf("record %d: result for %q (tool %q) pairs with no earlier call of %q", w.rec, s.CallID, s.Tool, w.pairs[s.CallID])
						}
					}
				}
			}
		})
	}
}

// TestFormatErrors: wrong shapes come back as precise LineErrors, and a
// line-oriented file goes on after a bad line.
func TestFormatErrors(t *testing.T) {
	tests := []struct {
		format, in string
		want       []string // error text per record, "" for a trace
	}{
		{"openai_chat", `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c","function":{"arguments":"{}"}}]}]}` + "\n" +
			`{"messages":[{"role":"user","content":"hi"}]}`,
			[]string{"f:1: messages[1].tool_calls[0].function.name: required, the name of the called function", ""}},
		{"openai_chat", `{"messages":[{"role":"robot","content":"hi"}]}`,
			[]string{`f:1: messages[0].role: "robot" is not one of system, developer, user, assistant, tool, function`}},
		{"openai_chat", `{"messages":[{"role":"system","content":"only a system prompt"}]}`,
			[]string{"f:1: messages: no user, assistant or tool message with content to import"}},
		{"openai_chat", `{"messages":[{"role":"user","content":[{"type":"text","text":7}]}]}`,
			[]string{"f:1: messages[0].content[0].text: expected a string"}},
		{"openai_chat", "[\n {\"task_id\": 1, \"traj\": [{\"role\": \"user\", \"content\": \"a\"}]},\n {\"task_id\": 2, \"traj\": {\"role\": \"user\"}}\n]",
			[]string{"", "f:3: [1].traj: expected an array, got object"}},
		{"anthropic", `{"model":"m","system":"s","messages":[{"role":"user","content":[{"type":"tool_use","input":{}}]}]}`,
			[]string{"f:1: messages[0].content[0].name: required on a tool_use block"}},
		{"anthropic", `{"request":{"system":"s","messages":[{"role":"user","content":"hi"}]},"response":{"type":"message","content":[{"type":5}]}}`,
			[]string{"f:1: response.content[0].type: expected a string, got number"}},
		{"openai_responses", `{"object":"response","output":[{"type":"function_call","arguments":"{}"}]}`,
			[]string{"f:1: output[0].name: required on a function_call item"}},
		{"openai_responses", `{"object":"response","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}],"usage":{"input_tokens":"many"}}`,
			[]string{"f:1: usage.input_tokens: expected an integer, got string"}},
		{"inspect", "{\"version\": 2, \"eval\": {\"task\": \"t\", \"eval_id\": \"E\"},\n \"samples\": [\n  {\"id\": 1, \"epoch\": 1, \"messages\": [{\"role\": \"user\", \"content\": \"q\"}]},\n  {\"id\": 2, \"epoch\": 1, \"messages\": [{\"role\": \"user\", \"content\": 3}]}\n]}",
			[]string{"", "f:4: samples[1].messages[0].content: expected a string or an array of content parts"}},
		{"inspect", "{\"eval\": {\"task\": \"t\"},\n \"samples\": [ {\"id\": 1,",
			[]string{}},
	}
	for _, tt := range tests {
		var got []string
		_, err := Parse(context.Background(), strings.NewReader(tt.in), "f", tt.format, func(r Record) error {
			if r.Err != nil {
				got = append(got, r.Err.Error())
			} else {
				got = append(got, "")
			}
			return nil
		})
		if len(tt.want) == 0 { // a whole-document format stops with the error
			if err == nil || !strings.Contains(err.Error(), "f:2: invalid JSON") {
				t.Errorf("%s %q: err %v, want f:2: invalid JSON…", tt.format, tt.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", tt.format, tt.in, err)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s %q:\n got %q\nwant %q", tt.format, tt.in, got, tt.want)
		}
	}
}

// TestDetectFormatsA: every fixture is claimed by its own format and by no
// other; native and cases lines are claimed by none of these.
func TestDetectFormatsA(t *testing.T) {
	mine := []string{"openai_chat", "openai_responses", "anthropic", "inspect"}
	heads := map[string]string{}
	for _, format := range mine {
		files, _ := filepath.Glob(filepath.Join(formatsDir, format, "*"))
		for _, path := range files {
			if strings.HasSuffix(path, ".golden.json") || strings.HasSuffix(path, ".md") {
				continue
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			heads[path] = format
			var claimed []string
			for _, f := range Formats() {
				if f.Detect(bytes.TrimSpace(b)) {
					claimed = append(claimed, f.Name)
				}
			}
			if len(claimed) != 1 || claimed[0] != format {
				t.Errorf("%s claimed by %v, want only %s", path, claimed, format)
			}
		}
	}
	for _, line := range []string{
		`{"trace_id":"t1","question":"q","steps":[{"kind":"answer","text":"a"}]}`,
		`{"case_id":"c1","question":"q","gold":{},"label":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"run_sql","inputSchema":{"type":"object"}}]}}`,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"chat gpt-4o","attributes":[]}]}]}]}`,
		`{"trace":{"id":"x","input":{"messages":[{"role":"user","content":"hi"}]}},"observations":[]}`,
	} {
		for _, name := range mine {
			f, _ := Lookup(name)
			if f.Detect([]byte(line)) {
				t.Errorf("%s claims %s", name, line)
			}
		}
	}
}

// TestLogMergeA: an agent run logged one API call per line becomes one
// trace (usage summed); an unrelated conversation stays its own trace.
func TestLogMergeA(t *testing.T) {
	tests := []struct {
		format, in string
		want       []string // per trace: id kinds in/out
	}{
		{"openai_chat",
			`{"request":{"messages":[{"role":"user","content":"q?"}]},"response":{"id":"r1","choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{}"}}]}}],"usage":{"prompt_tokens":10,"completion_tokens":1}}}` + "\n" +
				`{"request":{"messages":[{"role":"user","content":"q?"},{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"1"}]},"response":{"id":"r2","choices":[{"message":{"role":"assistant","content":"one"}}],"usage":{"prompt_tokens":20,"completion_tokens":2}}}` + "\n" +
				`{"request":{"messages":[{"role":"user","content":"other"}]},"response":{"id":"r3","choices":[{"message":{"role":"assistant","content":"ok"}}]}}`,
			[]string{"r2 user,tool_call,tool_result,answer 30/3", "r3 user,answer 0/0"}},
		{"anthropic",
			`{"request":{"system":"s","messages":[{"role":"user","content":"q?"}]},"response":{"id":"m1","type":"message","role":"assistant","content":[{"type":"text","text":"Which year?"}],"usage":{"input_tokens":5,"output_tokens":1}}}` + "\n" +
				`{"request":{"system":"s","messages":[{"role":"user","content":"q?"},{"role":"assistant","content":"Which year?"},{"role":"user","content":"2025"}]},"response":{"id":"m2","type":"message","role":"assistant","content":[{"type":"text","text":"42"}],"usage":{"input_tokens":9,"output_tokens":1}}}`,
			[]string{"m2 user,clarification,user,answer 14/2"}},
		{"openai_responses",
			`{"request":{"input":"q?"},"response":{"id":"resp_a","object":"response","output":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}],"usage":{"input_tokens":3,"output_tokens":1}}}` + "\n" +
				`{"request":{"previous_response_id":"resp_a","input":[{"type":"function_call_output","call_id":"c","output":"1"}]},"response":{"id":"resp_b","object":"response","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"one"}]}],"usage":{"input_tokens":4,"output_tokens":1}}}`,
			[]string{"resp_b user,tool_call,tool_result,answer 7/2"}},
		{"openai_chat", // a request and its response flattened into one object
			`{"id":"x","messages":[{"role":"user","content":"q"}],"choices":[{"message":{"content":"a"}}],"usage":{"prompt_tokens":2,"completion_tokens":1}}`,
			[]string{"x user,answer 2/1"}},
	}
	for _, tt := range tests {
		var got []string
		_, err := Parse(context.Background(), strings.NewReader(tt.in), "f", tt.format, func(r Record) error {
			if r.Err != nil {
				return r.Err
			}
			tr := r.Trace
			got = append(got, fmt.Sprintf("%s %s %d/%d", tr.TraceID, kinds(tr), tr.Usage.InputTokens, tr.Usage.OutputTokens))
			return nil
		})
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q (err %v), want %q", tt.format, got, err, tt.want)
		}
	}
}

// TestStreamShapesA: a stream of events reads the same whether it comes as
// SSE text, JSONL, a JSON array, or the SSE body of a recorded HTTP
// response.
func TestStreamShapesA(t *testing.T) {
	for _, tt := range []struct{ format, file string }{
		{"anthropic", "anthropic/stream.sse"},
		{"openai_chat", "openai_chat/stream.sse"},
		{"openai_chat", "openai_chat/stream.jsonl"},
	} {
		b, err := os.ReadFile(filepath.Join(formatsDir, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		var events []string
		for _, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(strings.TrimPrefix(l, "data:"))
			if strings.HasPrefix(l, "{") {
				events = append(events, l)
			}
		}
		sse := ""
		for _, e := range events {
			sse += "data: " + e + "\n\n"
		}
		body, _ := json.Marshal(sse)
		shapes := map[string]string{
			"sse":   sse,
			"jsonl": strings.Join(events, "\n"),
			"array": "[\n" + strings.Join(events, ",\n") + "\n]",
			"http":  `{"status": 200, "headers": {"content-type": "text/event-stream"}, "body": ` + string(body) + `}`,
		}
		var first string
		for _, name := range []string{"sse", "jsonl", "array", "http"} {
			in := shapes[name]
			fm, err := Detect("f", []byte(in))
			if err != nil || fm.Name != tt.format {
				t.Errorf("%s as %s: detected %q (%v)", tt.file, name, fm.Name, err)
			}
			var got []string
			if _, err := Parse(context.Background(), strings.NewReader(in), "f", tt.format, func(r Record) error {
				if r.Err != nil {
					return r.Err
				}
				r.Trace.Source = model.Source{}
				b, _ := json.Marshal(r.Trace)
				got = append(got, string(b))
				return nil
			}); err != nil {
				t.Fatalf("%s as %s: %v", tt.file, name, err)
			}
			if len(got) != 1 {
				t.Fatalf("%s as %s: %d traces, want 1", tt.file, name, len(got))
			}
			if first == "" {
				first = got[0]
			} else if got[0] != first {
				t.Errorf("%s as %s:\n got %s\nwant %s", tt.file, name, got[0], first)
			}
		}
	}
}

// TestInspectEvalZipA: the binary .eval log gives the traces its JSON twin
// gives (only the source line differs: a zip entry has none).
func TestInspectEvalZipA(t *testing.T) {
	traces := func(name string) []string {
		format, recs, err := parseFile(t, filepath.Join(formatsDir, "inspect", name), "")
		if err != nil || format.Name != "inspect" {
			t.Fatalf("%s: format %q, err %v", name, format.Name, err)
		}
		var out []string
		for _, r := range recs {
			if r.Err != nil {
				t.Fatalf("%s: %v", name, r.Err)
			}
			r.Trace.Source = model.Source{}
			b, _ := json.Marshal(r.Trace)
			out = append(out, string(b))
		}
		return out
	}
	zipped, plain := traces("eval.eval"), traces("eval.json")
	if len(plain) != 2 || !slices.Equal(zipped, plain) {
		t.Errorf("eval.eval gives\n%q\neval.json gives\n%q", zipped, plain)
	}
	// An archive that is not an Inspect log is refused with a reason.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("samples/1_epoch_1.json")
	w.Write([]byte(`{}`))
	zw.Close()
	_, err := Parse(context.Background(), &buf, "x.eval", "inspect", func(Record) error { return nil })
	if err == nil || err.Error() != "x.eval: an .eval archive without header.json or _journal/start.json" {
		t.Errorf("headerless archive: %v", err)
	}
}
