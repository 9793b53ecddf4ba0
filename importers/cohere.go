package importers

// Cohere v2 chat (POST /v2/chat): a request {model, messages, tools} whose
// messages are {role: user|system, content}, {role: assistant, tool_plan,
// tool_calls: [{id, function: {name, arguments}}], content}, {role: tool,
// tool_call_id, content: text | [{type: document, document: {data}} |
// {type: text, text}]}, and a response {id, message, finish_reason, usage:
// {tokens: {input_tokens, output_tokens}}}; streamed (stream: true) it is
// SSE events message-start, tool-plan-delta, content-delta,
// tool-call-start/delta, message-end. The tool plan is what the model
// says before calling tools: an assistant message.
//
// Reference: https://docs.cohere.com/reference/chat and
// https://docs.cohere.com/reference/chat-stream (v2).

import (
	"encoding/json"
	"sort"
	"strings"
)

func init() {
	registerCassetteAPIFormat("cohere", "Cohere v2 chat calls (tool_plan, tool_calls, tool results as documents; streamed SSE too) in VCR cassettes", "/v2/chat", "Cohere /v2/chat calls", cohereCall)
}

// cohereCall reads one /v2/chat call.
func cohereCall(req, resp any) apiCall {
	var a apiCall
	rq := asObj(req)
	a.model = gStr(rq, "model")
	for _, m := range gArr(rq, "messages") {
		if msg, ok := cohereMessage(asObj(m)); ok {
			a.in = append(a.in, msg)
		}
	}
	for _, t := range gArr(rq, "tools") {
		if tm := asObj(t); tm != nil {
			a.tools = append(a.tools, tm)
		}
	}
	switch r := resp.(type) {
	case map[string]any:
		if msg, ok := cohereMessage(gObj(r, "message")); ok {
			a.out = append(a.out, msg)
		}
		cohereUsage(&a, r)
		a.failed = strings.EqualFold(gStr(r, "finish_reason"), "ERROR")
	case string:
		cohereStream(r, &a)
	}
	return a
}

func cohereUsage(a *apiCall, r map[string]any) {
	u := gObj(r, "usage")
	tok := gObj(u, "tokens")
	if tok == nil {
		tok = gObj(u, "billed_units")
	}
	a.inTok, a.outTok = gInt(tok["input_tokens"]), gInt(tok["output_tokens"])
}

// cohereMessage maps one v2 message to genMsg.
func cohereMessage(m map[string]any) (genMsg, bool) {
	if m == nil {
		return genMsg{}, false
	}
	role := genRole(gStr(m, "role"))
	var parts []genPart
	if role == "tool" {
		r, _ := genResult(cohereToolContent(m["content"]))
		return genMsg{Role: "tool", Parts: []genPart{{Kind: "result", ID: gStr(m, "tool_call_id"), Result: r}}}, true
	}
	if p := gStr(m, "tool_plan"); strings.TrimSpace(p) != "" {
		parts = append(parts, genPart{Kind: "text", Text: p})
	}
	switch c := m["content"].(type) {
	case string:
		if strings.TrimSpace(c) != "" {
			parts = append(parts, genPart{Kind: "text", Text: c})
		}
	case []any:
		for _, b := range c {
			bm := asObj(b)
			switch gStr(bm, "type") {
			case "text":
				if t := gStr(bm, "text"); strings.TrimSpace(t) != "" {
					parts = append(parts, genPart{Kind: "text", Text: t})
				}
			case "thinking":
				if t := gStr(bm, "thinking", "text"); t != "" {
					parts = append(parts, genPart{Kind: "reasoning", Text: t})
				}
			}
		}
	}
	for _, c := range gArr(m, "tool_calls") {
		cm := asObj(c)
		fn := gObj(cm, "function")
		parts = append(parts, genPart{Kind: "call", ID: gStr(cm, "id"), Name: gStr(fn, "name"), Args: genArgs(fn["arguments"])})
	}
	if role == "" || len(parts) == 0 {
		return genMsg{}, false
	}
	return genMsg{Role: role, Parts: parts}, true
}

// cohereToolContent is a tool message's content as one value: the data of
// its one document, or its documents' data and texts as a list.
func cohereToolContent(c any) any {
	items, ok := c.([]any)
	if !ok {
		return c
	}
	var out []any
	for _, it := range items {
		im := asObj(it)
		switch gStr(im, "type") {
		case "document":
			d := gObj(im, "document")
			out = append(out, firstNonNil(d["data"], d))
		case "text":
			out = append(out, im["text"])
		default:
			out = append(out, it)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return out
}

// cohereStream assembles a streamed response's SSE events.
func cohereStream(text string, a *apiCall) {
	type call struct {
		id, name string
		args     strings.Builder
	}
	var plan, content strings.Builder
	calls := map[int64]*call{}
	eachSSEData(text, func(_ int, data string) bool {
		var ev map[string]any
		if json.Unmarshal([]byte(data), &ev) != nil {
			return true
		}
		msg := gObj(gObj(ev, "delta"), "message")
		switch gStr(ev, "type") {
		case "tool-plan-delta":
			plan.WriteString(gStr(msg, "tool_plan"))
		case "content-delta":
			content.WriteString(gStr(gObj(msg, "content"), "text"))
		case "tool-call-start", "tool-call-delta":
			i := gInt(ev["index"])
			if calls[i] == nil {
				calls[i] = &call{}
			}
			tc := gObj(msg, "tool_calls")
			fn := gObj(tc, "function")
			if id := gStr(tc, "id"); id != "" {
				calls[i].id = id
			}
			if n := gStr(fn, "name"); n != "" {
				calls[i].name = n
			}
			calls[i].args.WriteString(gStr(fn, "arguments"))
		case "message-end":
			d := gObj(ev, "delta")
			cohereUsage(a, d)
			a.failed = strings.EqualFold(gStr(d, "finish_reason"), "ERROR")
		}
		return true
	})
	var parts []genPart
	if strings.TrimSpace(plan.String()) != "" {
		parts = append(parts, genPart{Kind: "text", Text: plan.String()})
	}
	if strings.TrimSpace(content.String()) != "" {
		parts = append(parts, genPart{Kind: "text", Text: content.String()})
	}
	idx := make([]int64, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(i, j int) bool { return idx[i] < idx[j] })
	for _, i := range idx {
		c := calls[i]
		parts = append(parts, genPart{Kind: "call", ID: c.id, Name: c.name, Args: genArgs(c.args.String())})
	}
	if len(parts) > 0 {
		a.out = append(a.out, genMsg{Role: "assistant", Parts: parts})
	}
}
