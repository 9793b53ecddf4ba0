package importers

import "testing"

// Fuzz targets of the formats added for issue 29 (part b), seeded with
// their fixtures and a few odd shapes.

func FuzzParseBedrockConverse(f *testing.F) {
	fuzzNewFormat(f, "bedrock_converse",
		`{"request":{"messages":[{"role":"user","content":[{"toolResult":{"content":[7]}}]}]},"response":[{"contentBlockStart":{"start":{"toolUse":{}}}}]}`,
		"interactions:\n- request:\n    uri: x/converse-stream\n    body: '{}'\n  response:\n    body:\n      string: !!binary |\n        AAAAEAAAAAAFwkjrAAAAAA==\n")
}
func FuzzParseCohere(f *testing.F) {
	fuzzNewFormat(f, "cohere", "interactions:\n- request:\n    uri: x/v2/chat\n    body: '{\"messages\":[{\"role\":\"tool\",\"content\":[{\"type\":\"document\"}]}]}'\n  response:\n    body: {string: \"data: {\\\"type\\\":\\\"tool-call-delta\\\"}\"}\n")
}
func FuzzParseOllama(f *testing.F) {
	fuzzNewFormat(f, "ollama", "interactions:\n- request:\n    uri: x/api/chat\n    body: '{\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"function\":3}]}]}'\n  response:\n    body: {string: \"{}\\n{\\\"done\\\":true}\"}\n")
}
func FuzzParseSpanDump(f *testing.F) {
	fuzzFormat(f, "otel", `{"scopeName":"s","spanName":"x","attributes":{"gen_ai.input.messages":{"values":[{"kvlistValue":{"values":[{"key":"role"}]}}]}}}`,
		`{"spanName":"x","attributes":{"gen_ai.output.messages":{"arrayValue":{"values":[1]}},"gen_ai.usage.input_tokens":{"intValue":"x"}}}`)
}
func FuzzParseADKSession(f *testing.F) {
	fuzzNewFormat(f, "adk_session", `{"events":[{"author":"user","invocationId":"i","content":{"parts":[{"functionResponse":7}]}}]}`, `[{"events":[null]},3]`)
}
func FuzzParseADKEvalSet(f *testing.F) {
	fuzzNewFormat(f, "adk_evalset", `{"eval_cases":[{"conversation":[{"intermediate_data":{"intermediate_responses":[["a",[{"text":1}]]],"tool_uses":[null]}}]}]}`,
		`[{"query":1,"expected_tool_use":[{"tool_input":"x"}],"reference":null}]`)
}
func FuzzParseTau2(f *testing.F) {
	fuzzNewFormat(f, "tau2_bench", `{"tasks":[{"id":1,"user_scenario":{"instructions":3}}],"simulations":[{"task_id":1,"messages":[{"role":"tool","error":"x"}],"reward_info":{"reward":"1"}}]}`)
}
func FuzzParseRunState(f *testing.F) {
	fuzzNewFormat(f, "openai_agents_runstate", `{"$schemaVersion":"1","original_input":[{"type":"function_call_output"}],"generated_items":[{"raw_item":[]}],"current_step":{"data":{"interruptions":[7]}}}`)
}
func FuzzParseAutoGen(f *testing.F) {
	fuzzNewFormat(f, "autogen", `{"messages":[{"type":"AssistantMessage","content":[7,{"arguments":[]}]},{"type":"FunctionExecutionResultMessage","content":"x"}]}`,
		`[{"messages":[{"type":"UserMessage","content":[1,"a"]}],"response":{"content":{},"usage":[]}},null]`)
}
