package importers

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fixtures below are written for these tests, shaped after the official docs:
//   - MCP: specification 2025-11-25, server/tools "Listing Tools" and "Tool"
//     (modelcontextprotocol.io/specification/2025-11-25/server/tools), ToolAnnotations
//     in schema/2025-11-25/schema.ts;
//   - OpenAI Chat Completions: platform.openai.com/docs/guides/function-calling
//     ("tools": [{"type":"function","function":{name,description,parameters,strict}}]);
//   - OpenAI Responses: platform.openai.com/docs/api-reference/responses/create
//     (function tools are flat: {"type":"function","name","description","parameters","strict"});
//   - Anthropic Messages: docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview
//     ({"name","description","input_schema"}).
const (
	fixtureMCPListing = `{"tools":[{"name":"workspace.read","title":"Read a file","description":"Read a file from the workspace",
	 "inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},
	 "outputSchema":{"type":"object","properties":{"text":{"type":"string"}}},
	 "annotations":{"readOnlyHint":true}},
	 {"name":"workspace.write","inputSchema":{"type":"object"}}],"nextCursor":"c2"}`
	fixtureRPCListing = `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get_weather","description":"Weather",
	 "inputSchema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]}}`
	fixtureOpenAIChat = `[{"type":"function","function":{"name":"get_weather","description":"Weather","strict":true,
	 "parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}}}]`
	fixtureOpenAIResponses = `[{"type":"function","name":"get_weather","description":"Weather","strict":true,
	 "parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}}]`
	fixtureAnthropic = `[{"name":"get_weather","description":"Weather",
	 "input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]`
)

func TestParseToolListing(t *testing.T) {
	tests := []struct {
		name, in   string
		names      []string
		wantInput  string // compact inputSchema of the first tool
		wantOutput bool
	}{
		{"mcp bare", fixtureMCPListing, []string{"workspace.read", "workspace.write"},
			`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`, true},
		{"mcp json-rpc", fixtureRPCListing, []string{"get_weather"},
			`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`, false},
		{"openai chat", fixtureOpenAIChat, []string{"get_weather"},
			`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}`, false},
		{"openai responses", fixtureOpenAIResponses, []string{"get_weather"},
			`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}`, false},
		{"anthropic", fixtureAnthropic, []string{"get_weather"},
			`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`, false},
		{"mcp array", `[{"name":"a","inputSchema":{"type":"object"}}]`, []string{"a"}, `{"type":"object"}`, false},
		{"empty list", `{"tools":[]}`, nil, "", false},
		{"request body", `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[],"tools":` + fixtureAnthropic + `}`, []string{"get_weather"},
			`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`, false},
		{"bom and spaces", "\xef\xbb\xbf  " + fixtureAnthropic + "\n", []string{"get_weather"},
			`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools, err := ParseToolListing([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tc := range tools {
				names = append(names, tc.Name)
				if !json.Valid(tc.Raw) || len(tc.Raw) == 0 {
					t.Errorf("%s: Raw not kept: %q", tc.Name, tc.Raw)
				}
			}
			if strings.Join(names, ",") != strings.Join(tt.names, ",") {
				t.Fatalf("names %v, want %v", names, tt.names)
			}
			if len(tools) == 0 {
				return
			}
			if got := string(tools[0].InputSchema); got != tt.wantInput {
				t.Errorf("inputSchema\n got %s\nwant %s", got, tt.wantInput)
			}
			if (len(tools[0].OutputSchema) > 0) != tt.wantOutput {
				t.Errorf("outputSchema %s", tools[0].OutputSchema)
			}
			if tools[0].Description == "" && tt.name != "mcp array" {
				t.Errorf("description lost")
			}
		})
	}
	// Raw is the element as given (compacted), wrapper included, so the
	// wire hash covers what the model saw, strict flag and all.
	tools, _ := ParseToolListing([]byte(fixtureOpenAIChat))
	if !bytes.Contains(tools[0].Raw, []byte(`"strict":true`)) || !bytes.HasPrefix(tools[0].Raw, []byte(`{"type":"function"`)) {
		t.Errorf("Raw = %s", tools[0].Raw)
	}
	tools, _ = ParseToolListing([]byte(fixtureMCPListing))
	if tools[0].Title != "Read a file" || string(tools[0].Annotations) != `{"readOnlyHint":true}` {
		t.Errorf("title/annotations lost: %+v", tools[0])
	}
}

func TestParseToolListingErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "  ", "empty document"},
		{"not json", "{\n  \"tools\": [,]\n}", "line 2, column 13: invalid JSON"},
		{"truncated", `{"tools":[`, "unexpected end of input"},
		{"trailing", `[] []`, "trailing data"},
		{"scalar", `"tools"`, "expected a tools/list result object or a JSON array of tools"},
		{"no tools key", `{"name":"x"}`, `tools: required`},
		{"tools not array", `{"tools":{}}`, "tools: expected an array of tools"},
		{"rpc error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`, "error: a JSON-RPC error response"},
		{"rpc without tools", `{"jsonrpc":"2.0","id":1,"result":{"prompts":[]}}`, "result.tools: required"},
		{"tool not object", `{"tools":[1]}`, "tools[0]: expected a tool object"},
		{"missing name", `{"tools":[{"inputSchema":{"type":"object"}}]}`, "tools[0].name: required"},
		{"name not string", `[{"name":7}]`, "[0].name: expected a non-empty string"},
		{"input not object", `{"tools":[{"name":"a"},{"name":"b","inputSchema":"object"}]}`, "tools[1].inputSchema: expected a JSON Schema object"},
		{"openai parameters", `[{"type":"function","function":{"name":"f","parameters":[]}}]`, "[0].function.parameters: expected a JSON Schema object"},
		{"openai function not object", `[{"type":"function","function":"f"}]`, "[0].function: expected an object"},
		{"openai flat name", `[{"type":"function","parameters":{}}]`, "[0].name: required"},
		{"anthropic schema", `[{"name":"f","input_schema":true}]`, "[0].input_schema: expected a JSON Schema object"},
		{"built-in tool", `[{"type":"web_search_preview"}]`, `[0].type: "web_search_preview" is not a function tool`},
		{"type not string", `[{"type":1,"name":"a"}]`, "[0].type: expected a string"},
		{"duplicate", `{"tools":[{"name":"a"},{"name":"b"},{"name":"a"}]}`, `tools[2].name: duplicate tool name "a" (first at tools[0])`},
		{"hint not bool", `{"tools":[{"name":"a","annotations":{"readOnlyHint":"yes"}}]}`, "tools[0].annotations.readOnlyHint: expected true or false"},
		{"output not schema", `{"tools":[{"name":"a","outputSchema":"x"}]}`, "tools[0].outputSchema: expected a JSON Schema"},
		{"description not string", `[{"name":"a","description":["x"]}]`, "[0].description: expected a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseToolListing([]byte(tt.in))
			if err == nil {
				t.Fatalf("accepted %s", tt.in)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestListingNextCursor(t *testing.T) {
	tests := []struct{ in, want string }{
		{fixtureMCPListing, "c2"},
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"nextCursor":"p2"}}`, "p2"},
		{fixtureRPCListing, ""},
		{fixtureOpenAIChat, ""},
		{`{"nextCursor":7}`, ""},
		{`not json`, ""},
	}
	for _, tt := range tests {
		if got := ListingNextCursor([]byte(tt.in)); got != tt.want {
			t.Errorf("%.40s: got %q want %q", tt.in, got, tt.want)
		}
	}
}

const toolListingSamplesDir = "../../shared/samples"

func toolListingSamples(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(toolListingSamplesDir); err != nil {
		t.Skipf("real-world samples not found at %s (they live beside the repo in CI): %v", toolListingSamplesDir, err)
	}
	return toolListingSamplesDir
}

func TestParseToolListingMCPSamples(t *testing.T) {
	dir := toolListingSamples(t)
	listings := []string{
		"mcp/schema-2026-07-28-examples/ListToolsResult/tools-list-with-cursor-and-ttl.json",
		"mcp/schema-2026-07-28-examples/ListToolsResultResponse/list-tools-result-response.json",
		"mcp/spec-2025-11-25-tools-mdx-blocks/block02-tools-list-response.json",
	}
	for _, f := range listings {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		tools, err := ParseToolListing(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(tools) != 1 || tools[0].Name != "get_weather" || !bytes.Contains(tools[0].InputSchema, []byte(`"required":["location"]`)) {
			t.Errorf("%s: got %+v", f, tools)
		}
	}
	// Every single-tool example, wrapped in an array.
	singles, _ := filepath.Glob(filepath.Join(dir, "mcp/schema-2026-07-28-examples/Tool/*.json"))
	more, _ := filepath.Glob(filepath.Join(dir, "mcp/spec-2025-11-25-tools-mdx-blocks/block1[2456]-*.json"))
	for _, f := range append(singles, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tools, err := ParseToolListing(append(append([]byte("["), data...), ']'))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(tools) != 1 || tools[0].Name == "" || len(tools[0].InputSchema) == 0 {
			t.Errorf("%s: got %+v", f, tools)
		}
	}
	if len(singles)+len(more) < 6 {
		t.Errorf("expected the MCP Tool examples, found %d", len(singles)+len(more))
	}
}

// TestParseToolListingCassettes reads the tools[] of real OpenAI and
// Anthropic requests recorded in VCR cassettes.
func TestParseToolListingCassettes(t *testing.T) {
	dir := toolListingSamples(t)
	files := map[string][]string{
		"openai_chat_completions/test_chat_completion_tool_calls_with_content.yaml": {"get_current_weather"},
		"openai_responses/test_responses_with_function_call_output.yaml":            {"get_weather"},
		"anthropic_messages/test_anthropic_tools_legacy.yaml":                       {"get_weather", "get_time"},
	}
	for f, want := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, body := range cassetteBodies(string(data)) {
			var req struct {
				Tools json.RawMessage `json:"tools"`
			}
			if json.Unmarshal([]byte(body), &req) != nil || req.Tools == nil {
				continue
			}
			tools, err := ParseToolListing(req.Tools)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				break
			}
			var names []string
			for _, tc := range tools {
				names = append(names, tc.Name)
				if len(tc.InputSchema) == 0 {
					t.Errorf("%s: %s has no input schema", f, tc.Name)
				}
			}
			if strings.Join(names, ",") != strings.Join(want, ",") {
				t.Errorf("%s: tools %v, want %v", f, names, want)
			}
			found = true
			break
		}
		if !found {
			t.Errorf("%s: no request body with tools found", f)
		}
	}
}

// cassetteBodies pulls the request bodies out of a VCR cassette: literal
// blocks (`body: |-`) and single-quoted folded scalars (`body: '...'`).
// Just enough YAML for these files; not a YAML parser.
func cassetteBodies(doc string) []string {
	lines := strings.Split(doc, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimLeft(l, " ")
		indent := len(l) - len(trimmed)
		switch {
		case trimmed == "body: |-":
			var b strings.Builder
			for i+1 < len(lines) {
				next := lines[i+1]
				ni := len(next) - len(strings.TrimLeft(next, " "))
				if strings.TrimSpace(next) != "" && ni <= indent {
					break
				}
				b.WriteString(strings.TrimSpace(next))
				b.WriteByte('\n')
				i++
			}
			out = append(out, b.String())
		case strings.HasPrefix(trimmed, "body: '"):
			text := strings.TrimPrefix(trimmed, "body: '")
			for !cassetteClosesQuote(text) && i+1 < len(lines) {
				i++
				text += " " + strings.TrimSpace(lines[i])
			}
			text = strings.TrimSuffix(strings.TrimRight(text, " "), "'")
			out = append(out, strings.ReplaceAll(text, "''", "'"))
		}
	}
	return out
}

func cassetteClosesQuote(s string) bool {
	s = strings.TrimRight(s, " ")
	return strings.HasSuffix(s, "'") && !strings.HasSuffix(strings.ReplaceAll(s, "''", ""), "''") &&
		strings.Count(s, "'")%2 == 1
}

func FuzzParseToolListing(f *testing.F) {
	for _, s := range []string{fixtureMCPListing, fixtureRPCListing, fixtureOpenAIChat, fixtureOpenAIResponses, fixtureAnthropic,
		`[]`, `{"tools":null}`, `{"result":{"tools":[{"name":""}]}}`, `[{"type":"custom","name":"x","input_schema":{}}]`,
		`{"tools":[{"name":"a","outputSchema":false,"annotations":{"readOnlyHint":null}}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tools, err := ParseToolListing(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		seen := map[string]bool{}
		for _, tc := range tools {
			if tc.Name == "" || seen[tc.Name] {
				t.Fatalf("bad or duplicate name %q", tc.Name)
			}
			seen[tc.Name] = true
			if !json.Valid(tc.Raw) {
				t.Fatalf("Raw not JSON: %q", tc.Raw)
			}
			for _, s := range [][]byte{tc.InputSchema, tc.OutputSchema, tc.Annotations} {
				if len(s) > 0 && !json.Valid(s) {
					t.Fatalf("schema not JSON: %q", s)
				}
			}
		}
	})
}
