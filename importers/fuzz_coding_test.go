package importers

import "testing"

// One fuzz target per coding-agent parser of issue 29, seeded with its
// fixtures and a few shapes with wrong types where the parser expects
// objects, arrays or strings.

func FuzzParseOpenHands(f *testing.F) {
	fuzzNewFormat(f, "openhands", `[{"id":1,"source":"agent","action":"run","tool_call_metadata":{"model_response":{"choices":[{"message":{"tool_calls":[{"id":7}]}}]}},"args":[]}]`,
		`{"instance_id":"i","history":[{"observation":"error","cause":"x"}],"metrics":{"accumulated_token_usage":[]},"instruction":1}`)
}
func FuzzParseSWEAgent(f *testing.F) {
	fuzzNewFormat(f, "swe_agent", `{"trajectory":[{"action":1,"observation":[]}],"history":[{"role":"user","content":{}}],"info":{"model_stats":"x"}}`,
		"[{\"role\":\"assistant\",\"content\":\"```mswea_bash_command\\n\"},{\"role\":\"user\",\"content\":\"<returncode>x</returncode>\"}]")
}
func FuzzParseGeminiCLI(f *testing.F) {
	fuzzNewFormat(f, "gemini_cli", `{"sessionId":"s","projectHash":"p","messages":[{"id":"a","type":"gemini","toolCalls":[{"result":"x"}],"thoughts":[1]}]}`,
		"{\"sessionId\":1,\"projectHash\":2}\n{\"$rewindTo\":\"zz\"}\n{\"$set\":{\"messages\":[{\"id\":3}]}}\n",
		`{"method":"generateContent","response":"data: {}"}`)
}
func FuzzParseCopilotCLI(f *testing.F) {
	fuzzNewFormat(f, "copilot_cli", `{"type":"session.shutdown","data":{"modelMetrics":{"m":1}},"id":"e"}`,
		`{"sessionId":"s","timeline":[{"type":"tool_call_completed","result":"x"}],"chatMessages":{}}`)
}
func FuzzParseKiroCLI(f *testing.F) {
	fuzzNewFormat(f, "kiro_cli", `{"kind":"ToolResults","content":[{"kind":"toolResult","data":{"content":[{"kind":"text","data":{}}]}}]}`,
		`{"kind":"Prompt","data":{"content":"x","meta":[]}}`)
}
func FuzzParseAider(f *testing.F) {
	fuzzNewFormat(f, "aider", "# aider chat started at x\n#### \n> Tokens: 9.9.9k sent, 1k received. Cost: $. message\n>\nreply\n",
		"#### /ask \n# aider chat started at \n")
}
func FuzzParseCline(f *testing.F) {
	fuzzNewFormat(f, "cline", `[{"ts":1,"type":"say","say":"api_req_started","text":"{\"tokensIn\":\"x\"}"},{"ts":2,"type":"ask","ask":"tool","text":"{\"tool\":1}"}]`,
		`[{"ts":"x","type":"ask","ask":"use_mcp_server","text":"{\"toolName\":\"t\",\"arguments\":7}"},3]`)
}

// FuzzParseBareMessages drives the bare-array path of both chat formats.
func FuzzParseBareMessages(f *testing.F) {
	fuzzFormat(f, "openai_chat", `[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"function":{"arguments":7}}]}]`,
		`[{"role":"tool","content":[1,2]}]`)
}
