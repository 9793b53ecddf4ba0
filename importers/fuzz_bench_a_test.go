package importers

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fuzzFormat checks that parsing arbitrary bytes as format never panics
// and that every record is either a valid trace or an error with a message.
func fuzzFormat(f *testing.F, format string, seeds ...string) {
	files, _ := filepath.Glob(filepath.Join(formatsDir, format, "*"))
	for _, path := range files {
		if strings.HasSuffix(path, ".golden.json") || strings.HasSuffix(path, ".md") {
			continue
		}
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	fm, ok := Lookup(format)
	if !ok {
		f.Fatalf("format %s not registered", format)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fm.Detect(data)
		_, _ = Parse(context.Background(), bytes.NewReader(data), "fuzz", format, func(r Record) error {
			switch {
			case r.Trace != nil && r.Err != nil:
				t.Fatalf("record with both a trace and an error")
			case r.Trace != nil:
				if msg := checkTrace(r.Trace); msg != "" {
					t.Fatalf("invalid trace: %s", msg)
				}
			case r.Err != nil:
				if r.Err.Msg == "" {
					t.Fatalf("error without a message: %#v", r.Err)
				}
			case r.Skip != nil:
				if r.Skip.Reason == "" {
					t.Fatalf("skip without a reason: %#v", r.Skip)
				}
			default:
				t.Fatalf("empty record")
			}
			return nil
		})
	})
}

func FuzzParseOpenAIChat(f *testing.F) {
	fuzzFormat(f, "openai_chat",
		`{"messages":[{"role":"assistant","tool_calls":[{"name":"x","arguments":"[1,2"}]},{"role":"tool","content":"{}"}]}`,
		`[{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":3,"function":{"name":"f","arguments":"{"}}]}}]}]`,
		`{"request":{"messages":[]},"response":"data: {\"object\":\"chat.completion.chunk\"}\n\ndata: [DONE]"}`,
		`{"status":200,"body":"{\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"content\":\"hi\"}}]}"}`)
}

func FuzzParseOpenAIResponses(f *testing.F) {
	fuzzFormat(f, "openai_responses",
		`{"object":"response","input":[{"role":"user","content":"q"}],"output":[{"type":"mcp_call","name":"n","error":{"x":1}}]}`,
		`{"type":"response.output_item.done","item":{"type":"function_call","name":"f","arguments":"{}"}}`)
}

func FuzzParseAnthropic(f *testing.F) {
	fuzzFormat(f, "anthropic",
		`[{"type":"message_start","message":{"role":"assistant"}},{"type":"content_block_start","index":-1,"content_block":{"type":"tool_use","name":"t"}},{"type":"content_block_delta","index":-1,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}}]`,
		`{"status":200,"body":"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"}`)
}

func FuzzParseInspect(f *testing.F) {
	fuzzFormat(f, "inspect",
		`{"samples":[{"id":1,"messages":[{"role":"tool","content":"attachment://x"}],"attachments":{"x":"{}"}}],"eval":{"task":"t"}}`,
		`{"eval":{"task":"t"},"samples":null}`)
}

// Generated inputs for the benchmarks: every record gives exactly ten steps
// (user, then reasoning + call + result twice, a bare call + result, and
// the answer).
const benchStepsPerRecord = 10

func benchInput(format string, records int) []byte {
	var b bytes.Buffer
	sql := `SELECT count(*) FROM customers WHERE is_active AND region = 'EMEA'`
	switch format {
	case "openai_chat":
		for i := range records {
			fmt.Fprintf(&b, `{"messages":[{"role":"system","content":"s"},{"role":"user","content":"question %d?"},`+
				`{"role":"assistant","content":"I will assume is_active.","tool_calls":[{"id":"c1","type":"function","function":{"name":"run_sql","arguments":"{\"sql\":\"%s\"}"}}]},`+
				`{"role":"tool","tool_call_id":"c1","content":"{\"rows\":[[1284]]}"},`+
				`{"role":"assistant","content":"Checking.","tool_calls":[{"id":"c2","type":"function","function":{"name":"run_sql","arguments":"{\"sql\":\"SELECT 1\"}"}}]},`+
				`{"role":"tool","tool_call_id":"c2","content":"[[1]]"},`+
				`{"role":"assistant","content":null,"tool_calls":[{"id":"c3","type":"function","function":{"name":"describe","arguments":"{}"}}]},`+
				`{"role":"tool","tool_call_id":"c3","content":"customers(id, is_active)"},`+
				`{"role":"assistant","content":"1,284"}],`+
				`"tools":[{"type":"function","function":{"name":"run_sql","description":"Run SQL.","parameters":{"type":"object","properties":{"sql":{"type":"string"}}}}}],`+
				`"usage":{"prompt_tokens":100,"completion_tokens":10}}`+"\n", i, sql)
		}
	case "openai_responses":
		for i := range records {
			fmt.Fprintf(&b, `{"id":"resp_%d","object":"response","created_at":1751533920,"input":[{"role":"user","content":"question %d?"},`+
				`{"type":"reasoning","summary":[{"type":"summary_text","text":"I will assume is_active."}]},`+
				`{"type":"function_call","call_id":"c1","name":"run_sql","arguments":"{\"sql\":\"%s\"}"},`+
				`{"type":"function_call_output","call_id":"c1","output":"{\"rows\":[[1284]]}"},`+
				`{"type":"reasoning","summary":[{"type":"summary_text","text":"Checking."}]},`+
				`{"type":"function_call","call_id":"c2","name":"run_sql","arguments":"{\"sql\":\"SELECT 1\"}"},`+
				`{"type":"function_call_output","call_id":"c2","output":"[[1]]"},`+
				`{"type":"function_call","call_id":"c3","name":"describe","arguments":"{}"},`+
				`{"type":"function_call_output","call_id":"c3","output":"customers(id, is_active)"}],`+
				`"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"1,284"}]}],`+
				`"tools":[{"type":"function","name":"run_sql","description":"Run SQL.","parameters":{"type":"object"}}],`+
				`"usage":{"input_tokens":100,"output_tokens":10}}`+"\n", i, i, sql)
		}
	case "anthropic":
		for i := range records {
			fmt.Fprintf(&b, `{"request":{"model":"m","system":"s","tools":[{"name":"run_sql","description":"Run SQL.","input_schema":{"type":"object"}}],"messages":[`+
				`{"role":"user","content":"question %d?"},`+
				`{"role":"assistant","content":[{"type":"thinking","thinking":"I will assume is_active."},{"type":"tool_use","id":"t1","name":"run_sql","input":{"sql":"%s"}}]},`+
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"{\"rows\":[[1284]]}"}]},`+
				`{"role":"assistant","content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"t2","name":"run_sql","input":{"sql":"SELECT 1"}}]},`+
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"[[1]]"}]}]},`+
				`{"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"describe","input":{}}]},`+
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"customers(id, is_active)"}]}]},`+
				`"response":{"id":"msg_%d","type":"message","role":"assistant","content":[{"type":"text","text":"1,284"}],"usage":{"input_tokens":100,"output_tokens":10}}}`+"\n", i, sql, i)
		}
	case "inspect":
		b.WriteString(`{"version":2,"status":"success","eval":{"eval_id":"E","run_id":"R","task":"t","created":"2026-07-03T09:12:00+00:00"},"samples":[` + "\n")
		for i := range records {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `{"id":%d,"epoch":1,"input":"question %d?","messages":[{"role":"user","content":"question %d?"},`+
				`{"role":"assistant","content":[{"type":"reasoning","reasoning":"I will assume is_active."}],"tool_calls":[{"id":"c1","function":"run_sql","arguments":{"sql":"%s"}}]},`+
				`{"role":"tool","tool_call_id":"c1","function":"run_sql","content":"{\"rows\":[[1284]]}"},`+
				`{"role":"assistant","content":"Checking.","tool_calls":[{"id":"c2","function":"run_sql","arguments":{"sql":"SELECT 1"}}]},`+
				`{"role":"tool","tool_call_id":"c2","function":"run_sql","content":"[[1]]"},`+
				`{"role":"assistant","content":"","tool_calls":[{"id":"c3","function":"describe","arguments":{}}]},`+
				`{"role":"tool","tool_call_id":"c3","function":"describe","content":"customers(id, is_active)"},`+
				`{"role":"assistant","content":"1,284"}],"scores":{"m":{"value":"C"}},`+
				`"model_usage":{"m":{"input_tokens":100,"output_tokens":10,"total_tokens":110}},`+
				`"events":[{"event":"model","timestamp":"2026-07-03T09:12:01+00:00","tools":[{"name":"run_sql","description":"Run SQL.","parameters":{"type":"object"}}]}]}`, i, i, i, sql)
		}
		b.WriteString("\n]}\n")
	default:
		return benchInputNew(format, records)
	}
	return b.Bytes()
}

// benchImport parses generated input of the given number of steps and
// reports steps/s (wall clock, and per CPU second of this process, which
// includes the collector's work), and the peak live heap above the baseline: a separate,
// untimed pass forces a collection every 500 records and reads HeapAlloc,
// so the figure is what the parser retains, not garbage awaiting the
// collector. Run at two sizes to show it stays flat as input grows.
func benchImport(b *testing.B, format string) {
	for _, steps := range []int{20_000, 100_000} {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			input := benchInput(format, steps/benchStepsPerRecord)
			b.SetBytes(int64(len(input)))
			parse := func(every func()) int {
				n, recs := 0, 0
				_, err := Parse(context.Background(), bytes.NewReader(input), "bench", format, func(r Record) error {
					if r.Err != nil {
						return r.Err
					}
					n += len(r.Trace.Steps)
					if recs++; every != nil && recs%500 == 0 {
						every()
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				if n != steps {
					b.Fatalf("parsed %d steps, want %d", n, steps)
				}
				return n
			}
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			base, peak := ms.HeapAlloc, uint64(0)
			parse(func() {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > base {
					peak = max(peak, ms.HeapAlloc-base)
				}
			})
			total := 0
			start, cpu := time.Now(), processCPU()
			for b.Loop() {
				total += parse(nil)
			}
			b.ReportMetric(float64(total)/time.Since(start).Seconds(), "steps/s")
			if used := processCPU() - cpu; used > 0 {
				b.ReportMetric(float64(total)/used.Seconds(), "steps/cpu-s")
			}
			b.ReportMetric(float64(peak)/(1<<10), "peak-live-KB")
		})
	}
}

func BenchmarkImportOpenAIChat(b *testing.B)      { benchImport(b, "openai_chat") }
func BenchmarkImportOpenAIResponses(b *testing.B) { benchImport(b, "openai_responses") }
func BenchmarkImportAnthropic(b *testing.B)       { benchImport(b, "anthropic") }
func BenchmarkImportInspect(b *testing.B)         { benchImport(b, "inspect") }
