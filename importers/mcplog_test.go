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

const mcpFixtures = "testdata/formats/mcp"

func parseMCPBytes(ctx context.Context, r *bytes.Reader, f string, e Emit) error {
	return parseMCP(ctx, r, f, e)
}

// Tool execution errors (isError) and JSON-RPC protocol errors both become
// failed results, told apart by the jsonrpc_error wrapper.
func TestMCPSession(t *testing.T) {
	data, err := os.ReadFile(mcpFixtures + "/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	recs := parseAll(t, parseMCPBytes, "session.jsonl", data)
	if len(recs) != 1 || recs[0].Trace == nil {
		t.Fatalf("records = %+v, want one trace", recs)
	}
	tr := recs[0].Trace
	results := map[string]string{}
	errs := map[string]bool{}
	for _, s := range tr.Steps {
		if s.Kind == "tool_result" {
			results[s.CallID] = string(s.Result)
			errs[s.CallID] = s.IsError
		}
	}
	tests := []struct{ name, got, want string }{
		{"server", tr.Server, "orders-mcp"},
		{"contracts", fmt.Sprintf("%d %s", len(tr.Tools), tr.Tools[0].Title), "2 Query orders"},
		{"raw contract kept", string(tr.Tools[1].Raw), `{"name":"refund_order","description":"Refund one order.","inputSchema":{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]},"annotations":{"destructiveHint":true,"readOnlyHint":false}}`},
		{"structuredContent preferred", results["2"], `{"as_of":"2025-07-01T06:00:00Z","next_cursor":"b3Jk","orders":[{"amount":129900,"id":"O-90"}]}`},
		{"tool error", fmt.Sprintf("%v %s", errs["r-3"], results["r-3"]), `true "Order O-77 is older than 90 days and cannot be refunded."`},
		{"protocol error", fmt.Sprintf("%v %s", errs["4"], results["4"]), `true {"jsonrpc_error":{"code":-32602,"message":"Unknown tool: query_invoices"}}`},
		{"text JSON parsed", results["5"], `{"as_of":"2025-07-01T06:00:00Z","orders":[]}`},
		{"question", tr.Question, ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func TestMCPErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"not json-rpc", `{"message":{"id":1}}` + "\n", `x.jsonl:1: message.jsonrpc: required, "2.0"`},
		{"bad wrapped type", `{"message":{"jsonrpc":"2.0","id":1,"method":5}}` + "\n", "x.jsonl:1: message.method: expected a string"},
		{"call without name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}` + "\n", "x.jsonl:1: params.name: required"},
		{"arguments not object", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":"x"}}` + "\n", "x.jsonl:1: params.arguments: expected an object"},
		{"orphan result", `{"jsonrpc":"2.0","id":9,"result":{"content":[]}}` + "\n", "x.jsonl:1: id: a tools/call result for id 9"},
		{"bad tool", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"description":"no name"}]}}` + "\n", "x.jsonl:1: result.tools[0]: name: required"},
		{"contracts only", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}` + "\n", "no tools/call in this log (it holds 1 tools/list result)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := parseAll(t, parseMCPBytes, "x.jsonl", []byte(tt.in))
			var msgs []string
			for _, r := range recs {
				if r.Err != nil {
					msgs = append(msgs, r.Err.Error())
				}
			}
			if len(msgs) == 0 || !strings.Contains(msgs[0], tt.want) {
				t.Fatalf("errors %q, want the first to contain %q", msgs, tt.want)
			}
		})
	}
}

func TestMCPSamples(t *testing.T) {
	const noCall = "no tools/call in this log"
	const notTrace = "not a supported trace format"
	const orphan = "but no tools/call request with that id is in this log"
	s, sp := "schema-2026-07-28-examples/", "spec-2025-11-25-tools-mdx-blocks/"
	// The spec's examples are single messages. A tools/call request alone
	// imports (one call, no result); everything else is a fragment: a
	// result without its request, a tool list without any call, or not a
	// JSON-RPC message at all (params, results, tools, content blocks).
	refused := map[string]string{
		sp + "block01-tools-list-request.json":                        noCall,
		sp + "block02-tools-list-response.json":                       noCall,
		sp + "block04-tools-call-response.json":                       orphan,
		sp + "block05-tools-list-changed-notification.json":           noCall,
		sp + "block13-tools-call-response-structured-content.json":    orphan,
		sp + "block17-tools-call-protocol-error-unknown-tool.json":    "answers id 3, which no request in this log has",
		sp + "block18-tools-call-response-isError.json":               orphan,
		s + "CallToolResultResponse/call-tool-result-response.json":   orphan,
		s + "ListToolsRequest/list-tools-request.json":                noCall,
		s + "ListToolsResultResponse/list-tools-result-response.json": noCall,
		s + "ToolListChangedNotification/tools-list-changed.json":     noCall,
	}
	for _, f := range []string{
		sp + "block12-tool-with-output-schema.json", sp + "block14-tool-default-2020-12-input-schema.json",
		sp + "block15-tool-draft-07-input-schema.json", sp + "block16-tool-no-parameters.json",
		s + "CallToolRequestParams/get-weather-tool-call-params.json", s + "CallToolRequestParams/tool-call-params-with-progress-token.json",
		s + "CallToolResult/invalid-tool-input-error.json", s + "CallToolResult/result-with-array-structured-content.json",
		s + "CallToolResult/result-with-structured-content.json", s + "CallToolResult/result-with-unstructured-text.json",
		s + "CreateMessageRequestParams/basic-request.json", s + "CreateMessageRequestParams/follow-up-with-tool-results.json",
		s + "CreateMessageRequestParams/request-with-tools.json", s + "CreateMessageResult/final-response.json",
		s + "CreateMessageResult/text-response.json", s + "CreateMessageResult/tool-use-response.json",
		s + "InvalidParamsError/invalid-cursor.json", s + "InvalidParamsError/invalid-tool-arguments.json",
		s + "InvalidParamsError/unknown-prompt.json", s + "InvalidParamsError/unknown-tool.json",
		s + "ListToolsResult/tools-list-with-cursor-and-ttl.json", s + "Tool/tool-with-array-output-schema.json",
		s + "Tool/tool-with-composition-input-schema.json", s + "Tool/with-default-2020-12-input-schema.json",
		s + "Tool/with-explicit-draft-07-input-schema.json", s + "Tool/with-no-parameters.json",
		s + "Tool/with-output-schema-for-structured-content.json", s + "ToolResultContent/get-weather-tool-result.json",
		s + "ToolUseContent/get-weather-tool-use.json",
	} {
		refused[f] = notTrace
	}
	checkSamples(t, "mcp", []string{"mcp"}, refused)
}

func FuzzParseMCP(f *testing.F) {
	for _, p := range fixtureFiles(f, mcpFixtures) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}` + "\n" + `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = parseMCP(context.Background(), bytes.NewReader(data), "fuzz", func(r Record) error {
			if r.Trace != nil && r.Trace.Source.Format != "mcp" {
				t.Fatalf("source format %q", r.Trace.Source.Format)
			}
			checkFuzzRecord(t, r)
			return nil
		})
	})
}

// mcpBenchInput writes a proxy log of sessions with ids, four sessions
// interleaved at a time, each a tools/list and ten tools/call round trips
// (twenty steps).
func mcpBenchInput(steps int) []byte {
	var buf bytes.Buffer
	line := func(sess int, msg any) {
		b, _ := json.Marshal(map[string]any{"timestamp": "2025-08-08T10:00:00Z", "session_id": fmt.Sprintf("s%d", sess), "message": msg})
		buf.Write(b)
		buf.WriteByte('\n')
	}
	sessions := steps / 20
	for base := 0; base < sessions; base += 4 {
		for k := 0; k < 4 && base+k < sessions; k++ {
			line(base+k, map[string]any{"jsonrpc": "2.0", "id": 0, "result": map[string]any{"tools": []any{map[string]any{"name": "run_sql", "inputSchema": map[string]any{"type": "object"}}}}})
		}
		for c := 1; c <= 10; c++ {
			for k := 0; k < 4 && base+k < sessions; k++ {
				line(base+k, map[string]any{"jsonrpc": "2.0", "id": c, "method": "tools/call", "params": map[string]any{"name": "run_sql", "arguments": map[string]any{"sql": fmt.Sprintf("SELECT %d", c)}}})
			}
			for k := 0; k < 4 && base+k < sessions; k++ {
				line(base+k, map[string]any{"jsonrpc": "2.0", "id": c, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf(`{"rows":[[%d]]}`, c)}}}})
			}
		}
	}
	return buf.Bytes()
}

func BenchmarkImportMCP(b *testing.B) {
	for _, steps := range []int{10_000, 100_000} {
		data := mcpBenchInput(steps)
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) { benchImportFormat(b, data, parseMCPBytes) })
	}
}
