package importers

// Ollama's chat API (POST /api/chat): a request {model, messages: [{role,
// content, thinking, tool_calls: [{function: {name, arguments}}], tool_name}],
// tools} and a response {model, message, done, done_reason,
// prompt_eval_count, eval_count}; streamed (the default) the response is
// one such JSON object per line, each with a piece of the message, the
// last with done: true and the counts. Ollama's tool calls have no ids: a
// result answers the oldest unanswered call of its tool.
//
// Reference: https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion

import (
	"bytes"
	"strings"
)

func init() {
	registerCassetteAPIFormat("ollama", "Ollama /api/chat calls (tool_calls without ids, streamed NDJSON too) in VCR cassettes", "/api/chat", "Ollama /api/chat calls", ollamaCall)
}

// ollamaCall reads one /api/chat call.
func ollamaCall(req, resp any) apiCall {
	var a apiCall
	rq := asObj(req)
	a.model = gStr(rq, "model")
	for _, m := range gArr(rq, "messages") {
		if msg, ok := ollamaMessage(asObj(m)); ok {
			a.in = append(a.in, msg)
		}
	}
	for _, t := range gArr(rq, "tools") {
		if tm := asObj(t); tm != nil {
			a.tools = append(a.tools, tm)
		}
	}
	var chunks []map[string]any
	switch r := resp.(type) {
	case map[string]any:
		chunks = []map[string]any{r}
	case string: // streamed: one JSON object per line
		for _, ln := range bytes.Split([]byte(r), []byte("\n")) {
			if d, err := genDecode(bytes.TrimSpace(ln)); err == nil && asObj(d) != nil {
				chunks = append(chunks, asObj(d))
			}
		}
	}
	var text, thinking strings.Builder
	var calls []genPart
	for _, c := range chunks {
		m := gObj(c, "message")
		text.WriteString(gStr(m, "content"))
		thinking.WriteString(gStr(m, "thinking"))
		if msg, ok := ollamaMessage(map[string]any{"role": "assistant", "tool_calls": m["tool_calls"]}); ok {
			calls = append(calls, msg.Parts...)
		}
		if d, _ := c["done"].(bool); d {
			a.inTok, a.outTok = gInt(c["prompt_eval_count"]), gInt(c["eval_count"])
		}
		a.model = firstString(gStr(c, "model"), a.model)
		if c["error"] != nil {
			a.failed = true
		}
	}
	var parts []genPart
	if t := thinking.String(); strings.TrimSpace(t) != "" {
		parts = append(parts, genPart{Kind: "reasoning", Text: t})
	}
	if t := text.String(); strings.TrimSpace(t) != "" {
		parts = append(parts, genPart{Kind: "text", Text: t})
	}
	if parts = append(parts, calls...); len(parts) > 0 {
		a.out = append(a.out, genMsg{Role: "assistant", Parts: parts})
	}
	return a
}

// ollamaMessage maps one message; a tool message names its tool in
// tool_name (or name) and has no call id.
func ollamaMessage(m map[string]any) (genMsg, bool) {
	role := genRole(gStr(m, "role"))
	if role == "tool" {
		r, _ := genResult(m["content"])
		return genMsg{Role: "tool", Parts: []genPart{{Kind: "result", ID: gStr(m, "tool_call_id"), Name: gStr(m, "tool_name", "name"), Result: r}}}, true
	}
	var parts []genPart
	if t := gStr(m, "thinking"); strings.TrimSpace(t) != "" {
		parts = append(parts, genPart{Kind: "reasoning", Text: t})
	}
	if t := gStr(m, "content"); strings.TrimSpace(t) != "" {
		parts = append(parts, genPart{Kind: "text", Text: t})
	}
	for _, c := range gArr(m, "tool_calls") {
		fn := gObj(asObj(c), "function")
		parts = append(parts, genPart{Kind: "call", ID: gStr(asObj(c), "id"), Name: gStr(fn, "name"), Args: genArgs(fn["arguments"])})
	}
	if role == "" || len(parts) == 0 {
		return genMsg{}, false
	}
	return genMsg{Role: role, Parts: parts}, true
}

// firstString is the first non-empty string.
func firstString(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
