package importers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// benchInputNew generates input for the formats added for issue 13, ten
// steps per record like benchInput: user, (reasoning, call, result) twice,
// call, result, answer.
func benchInputNew(format string, records int) []byte {
	var b bytes.Buffer
	sql := `SELECT count(*) FROM customers WHERE is_active AND region = 'EMEA'`
	anth := func(i int, typ, sid string, extra string) {
		fmt.Fprintf(&b, `{"type":"user",%s"message":{"role":"user","content":"question %d?"}}`+"\n", fmt.Sprintf(`"%s":"s%d",%s`, sid, i, extra), i)
		for j, tool := range []string{"run_sql", "run_sql", "describe"} {
			think := ""
			if j < 2 {
				think = `{"type":"thinking","thinking":"I will assume is_active."},`
			}
			fmt.Fprintf(&b, `{"type":"assistant","%s":"s%d",%s"message":{"id":"m%d_%d","role":"assistant","model":"claude-sonnet-4","content":[%s{"type":"tool_use","id":"t%d","name":"%s","input":{"sql":"%s"}}],"usage":{"input_tokens":100,"output_tokens":10}}}`+"\n", sid, i, extra, i, j, think, j, tool, sql)
			fmt.Fprintf(&b, `{"type":"user","%s":"s%d",%s"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"{\"rows\":[[1284]]}"}]}}`+"\n", sid, i, extra, j)
		}
		fmt.Fprintf(&b, `{"type":"assistant","%s":"s%d",%s"message":{"id":"m%d_z","role":"assistant","content":[{"type":"text","text":"1,284"}]}}`+"\n", sid, i, extra, i)
	}
	switch format {
	case "claude_code":
		for i := range records {
			anth(i, "claude_code", "sessionId", `"uuid":"u","timestamp":"2025-07-03T09:12:00Z",`)
		}
	case "claude_agent_sdk":
		for i := range records {
			anth(i, "claude_agent_sdk", "session_id", `"parent_tool_use_id":null,`)
		}
	case "litellm":
		for i := range records {
			fmt.Fprintf(&b, `{"call_type":"acompletion","status":"success","startTime":1751533920.5,"endTime":1751533921.5,"model":"gpt-4o","response_cost":0.001,"prompt_tokens":100,"completion_tokens":10,`+
				`"metadata":{"requester_custom_headers":{"x-claude-code-session-id":"s%d"}},"messages":[{"role":"user","content":"question %d?"},`+
				`{"role":"assistant","reasoning_content":"I will assume is_active.","tool_calls":[{"id":"c1","type":"function","function":{"name":"run_sql","arguments":"{\"sql\":\"%s\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"{\"rows\":[[1284]]}"},`+
				`{"role":"assistant","reasoning_content":"Checking.","tool_calls":[{"id":"c2","type":"function","function":{"name":"run_sql","arguments":"{\"sql\":\"SELECT 1\"}"}}]},{"role":"tool","tool_call_id":"c2","content":"[[1]]"},`+
				`{"role":"assistant","content":null,"tool_calls":[{"id":"c3","type":"function","function":{"name":"describe","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c3","content":"customers(id, is_active)"}],`+
				`"response":{"object":"chat.completion","model":"gpt-4o","choices":[{"message":{"role":"assistant","content":"1,284"}}]}}`+"\n", i, i, sql)
		}
	case "codex_cli":
		// One rollout is one session: many turns of one trace.
		fmt.Fprintf(&b, `{"timestamp":"2025-09-01T10:00:00Z","type":"session_meta","payload":{"id":"bench"}}`+"\n")
		for i := range records {
			fmt.Fprintf(&b, `{"timestamp":"2025-09-01T10:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"question %d?"}]}}`+"\n", i)
			for j := range 3 {
				if j < 2 {
					fmt.Fprintf(&b, `{"timestamp":"2025-09-01T10:00:01Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"I will assume is_active %d."}]}}`+"\n", j)
				}
				fmt.Fprintf(&b, `{"timestamp":"2025-09-01T10:00:01Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"sql\":\"%s\"}","call_id":"c%d_%d"}}`+"\n", sql, i, j)
				fmt.Fprintf(&b, `{"timestamp":"2025-09-01T10:00:01Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c%d_%d","output":"{\"rows\":[[1284]]}"}}`+"\n", i, j)
			}
			fmt.Fprintf(&b, `{"timestamp":"2025-09-01T10:00:02Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"answer %d"}]}}`+"\n", i)
		}
	case "gemini":
		for i := range records {
			call := func(name string) string {
				return fmt.Sprintf(`{"functionCall":{"name":"%s","args":{"sql":"%s"}}}`, name, sql)
			}
			resp := `{"functionResponse":{"name":"run_sql","response":{"rows":[[1284]]}}}`
			fmt.Fprintf(&b, `{"request":{"contents":[{"role":"user","parts":[{"text":"question %d?"}]},`+
				`{"role":"model","parts":[{"text":"I will assume is_active.","thought":true},%s]},{"role":"user","parts":[%s]},`+
				`{"role":"model","parts":[{"text":"Checking.","thought":true},%s]},{"role":"user","parts":[%s]},`+
				`{"role":"model","parts":[%s]},{"role":"user","parts":[{"functionResponse":{"name":"describe","response":{"t":"customers"}}}]}],`+
				`"tools":[{"functionDeclarations":[{"name":"run_sql","description":"Run SQL.","parameters":{"type":"object"}}]}]},`+
				`"response":{"candidates":[{"content":{"role":"model","parts":[{"text":"1,284"}]}}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10},"modelVersion":"gemini-2.5-flash"}}`+"\n",
				i, call("run_sql"), resp, call("run_sql"), resp, call("describe"))
		}
	case "openinference":
		for i := range records {
			tc := func(id, name string) string {
				return fmt.Sprintf(`{"tool_call":{"id":"%s","function":{"name":"%s","arguments":"{\"sql\":\"%s\"}"}}}`, id, name, sql)
			}
			fmt.Fprintf(&b, `{"name":"ChatCompletion","context":{"trace_id":"oi-%d","span_id":"s%d"},"span_kind":"LLM","parent_id":null,"start_time":"2025-07-03T09:12:00+00:00","status_code":"OK",`+
				`"attributes":{"llm":{"model_name":"gpt-4o","token_count":{"prompt":100,"completion":10},"input_messages":[`+
				`{"message":{"role":"user","content":"question %d?"}},`+
				`{"message":{"role":"assistant","contents":[{"message_content":{"type":"reasoning","text":"I will assume is_active."}},%s]}},`+
				`{"message":{"role":"tool","tool_call_id":"c1","content":"{\"rows\":[[1284]]}"}},`+
				`{"message":{"role":"assistant","contents":[{"message_content":{"type":"reasoning","text":"Checking."}},%s]}},`+
				`{"message":{"role":"tool","tool_call_id":"c2","content":"[[1]]"}},`+
				`{"message":{"role":"assistant","tool_calls":[%s]}},`+
				`{"message":{"role":"tool","tool_call_id":"c3","content":"customers(id, is_active)"}}],`+
				`"output_messages":[{"message":{"role":"assistant","content":"1,284"}}]}}}`+"\n", i, i, i, tc("c1", "run_sql"), tc("c2", "run_sql"), tc("c3", "describe"))
		}
	case "langsmith", "openai_agents", "vercel_ai":
		for i := range records {
			hist := fmt.Sprintf(`{"role":"user","content":"question %d?"},`+
				`{"role":"assistant","reasoning_content":"I will assume is_active.","tool_calls":[{"id":"c1","type":"function","function":{"name":"run_sql","arguments":"{\"sql\":\"%s\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"{\"rows\":[[1284]]}"},`+
				`{"role":"assistant","reasoning_content":"Checking.","tool_calls":[{"id":"c2","type":"function","function":{"name":"run_sql","arguments":"{\"sql\":\"SELECT 1\"}"}}]},{"role":"tool","tool_call_id":"c2","content":"[[1]]"},`+
				`{"role":"assistant","content":null,"tool_calls":[{"id":"c3","type":"function","function":{"name":"describe","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c3","content":"customers(id, is_active)"}`, i, sql)
			switch format {
			case "langsmith":
				fmt.Fprintf(&b, `{"id":"run-%d","trace_id":"run-%d","run_type":"llm","name":"ChatOpenAI","start_time":"2025-07-03T09:12:00Z","inputs":{"messages":[%s]},`+
					`"outputs":{"object":"chat.completion","model":"gpt-4o","choices":[{"message":{"role":"assistant","content":"1,284"}}],"usage":{"prompt_tokens":100,"completion_tokens":10}}}`+"\n", i, i, hist)
			case "openai_agents":
				fmt.Fprintf(&b, `{"object":"trace.span","id":"span_%d","trace_id":"trace_%d","parent_id":null,"started_at":"2025-07-03T09:12:00Z","span_data":{"type":"generation","input":[%s],`+
					`"output":[{"role":"assistant","content":"1,284"}],"model":"gpt-4o","usage":{"input_tokens":100,"output_tokens":10}}}`+"\n", i, i, hist)
			case "vercel_ai":
				msgs, _ := json.Marshal(`[` + hist + `]`)
				fmt.Fprintf(&b, `{"name":"ai.generateText.doGenerate","spanContext":{"traceId":"v%d","spanId":"s%d"},"attributes":{"ai.operationId":"ai.generateText.doGenerate","ai.model.id":"gpt-4o",`+
					`"ai.prompt.messages":%s,"ai.response.text":"1,284","ai.usage.promptTokens":100,"ai.usage.completionTokens":10},"startTime":[1751533920,0],"endTime":[1751533921,0]}`+"\n", i, i, msgs)
			}
		}
	case "mcp_recorder":
		b.WriteString(`{"version":"1.0","metadata":{"server_info":{"name":"warehouse"}},"interactions":[`)
		for i := range records * 5 {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"type":"jsonrpc_request","request":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"%s"}}},`+
				`"response":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"{\"rows\":[[%d]]}"}],"isError":false}}}`+"\n", i, sql, i, i)
		}
		b.WriteString("]}\n")
	default:
		panic("no benchmark input for " + format)
	}
	return b.Bytes()
}

func BenchmarkImportLiteLLM(b *testing.B)        { benchImport(b, "litellm") }
func BenchmarkImportClaudeCode(b *testing.B)     { benchImport(b, "claude_code") }
func BenchmarkImportClaudeAgentSDK(b *testing.B) { benchImport(b, "claude_agent_sdk") }
func BenchmarkImportCodexCLI(b *testing.B)       { benchImport(b, "codex_cli") }
func BenchmarkImportGemini(b *testing.B)         { benchImport(b, "gemini") }
func BenchmarkImportPhoenixExport(b *testing.B)  { benchImport(b, "openinference") }
func BenchmarkImportLangSmith(b *testing.B)      { benchImport(b, "langsmith") }
func BenchmarkImportVercelAI(b *testing.B)       { benchImport(b, "vercel_ai") }
func BenchmarkImportOpenAIAgents(b *testing.B)   { benchImport(b, "openai_agents") }
func BenchmarkImportMCPRecorder(b *testing.B)    { benchImport(b, "mcp_recorder") }
