package importers

// AWS Bedrock Converse and ConverseStream: a request {messages: [{role,
// content: [block]}], system: [{text}], toolConfig: {tools: [{toolSpec:
// {name, description, inputSchema: {json}}}]}}, a response {output:
// {message}, stopReason, usage: {inputTokens, outputTokens}}, or a stream
// of events (messageStart, contentBlockStart/Delta/Stop, messageStop,
// metadata) that the cassette reader decodes from AWS's binary
// event-stream (eventstream.go). A content block is one of {text},
// {toolUse: {toolUseId, name, input}}, {toolResult: {toolUseId, content:
// [{text} | {json}], status}}, {reasoningContent: {reasoningText: {text}}};
// images, documents and cache points carry no text and are skipped.
//
// Reference: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
// and API_runtime_ConverseStream.html.

import (
	"context"
	"io"
	"sort"
	"strings"
)

func init() {
	register(Format{
		Name:     "bedrock_converse",
		Priority: 40,
		Doc:      "AWS Bedrock Converse / ConverseStream calls (toolUse/toolResult blocks, the binary event-stream decoded) in VCR cassettes or {request, response} JSON",
		Detect:   detectBedrock,
		Parse:    parseBedrock,
	})
	registerCassetteAPI(cassetteAPI{format: "bedrock_converse", suffixes: []string{"/converse", "/converse-stream"},
		trace: apiCallTrace("bedrock_converse", bedrockCall)})
}

func detectBedrock(head []byte) bool {
	if owner, ok := cassetteFormat(head); ok {
		return owner == "bedrock_converse"
	}
	s := sniff(head)
	for _, p := range []string{"", "request.", "response."} {
		if s.has(p+"toolConfig.tools.toolSpec") || s.has(p+"messages.content.toolUse") || s.has(p+"messages.content.toolResult") ||
			s.has(p+"output.message.content") && s.has(p+"stopReason") {
			return true
		}
	}
	return false
}

// parseBedrock reads a cassette, or JSON values each a {request, response}
// pair, a request or a response.
func parseBedrock(ctx context.Context, r io.Reader, file string, emit Emit) error {
	br, ok := asCassette(r)
	if ok {
		return parseCassette(ctx, br, file, emit)
	}
	merge := &prefixMerger{emit: emit}
	read := apiCallTrace("bedrock_converse", bedrockCall)
	err := jsonValues(ctx, br, file, func(v jsonValue) error {
		d, err := genDecode(v.raw)
		if err != nil {
			return merge.add(Record{Line: v.line, Err: jsonError(file, v.line, v.raw, err)}, "")
		}
		m := asObj(d)
		if m == nil {
			return merge.add(Record{Line: v.line, Err: &LineError{File: file, Line: v.line, Path: v.path, Msg: "expected a Converse request {messages}, response {output} or {request, response}"}}, "")
		}
		if m["request"] == nil && m["response"] == nil {
			pair := map[string]any{"request": m}
			if m["output"] != nil {
				pair = map[string]any{"response": m}
			}
			v.raw = genJSON(pair)
		}
		t, lerr, _ := read(file, v)
		return v.emitParsed(func(r Record) error { return merge.add(r, "") }, t, lerr)
	})
	if err != nil {
		return err
	}
	return merge.flush()
}

// bedrockCall reads one Converse call.
func bedrockCall(req, resp any) apiCall {
	var a apiCall
	rq := asObj(req)
	for _, s := range gArr(rq, "system") {
		if t := gStr(asObj(s), "text"); t != "" {
			a.in = append(a.in, genMsg{Role: "system", Parts: []genPart{{Kind: "text", Text: t}}})
		}
	}
	for _, m := range gArr(rq, "messages") {
		if msg, ok := bedrockMessage(asObj(m)); ok {
			a.in = append(a.in, msg)
		}
	}
	for _, t := range gArr(gObj(rq, "toolConfig"), "tools") {
		if spec := gObj(asObj(t), "toolSpec"); spec != nil {
			def := map[string]any{"name": spec["name"], "description": spec["description"]}
			if js := gObj(spec, "inputSchema"); js != nil {
				def["input_schema"] = firstNonNil(js["json"], js)
			}
			a.tools = append(a.tools, def)
		}
	}
	a.model = gStr(rq, "modelId")
	switch r := resp.(type) {
	case map[string]any:
		if msg, ok := bedrockMessage(gObj(gObj(r, "output"), "message")); ok {
			a.out = append(a.out, msg)
		}
		u := gObj(r, "usage")
		a.inTok, a.outTok = gInt(u["inputTokens"]), gInt(u["outputTokens"])
		a.failed = r["message"] != nil && r["output"] == nil // an error body {message}
	case []any:
		bedrockStream(r, &a)
	}
	return a
}

// bedrockMessage maps one Converse message to genMsg; a user message made
// of tool results becomes a tool message.
func bedrockMessage(m map[string]any) (genMsg, bool) {
	if m == nil {
		return genMsg{}, false
	}
	role := genRole(gStr(m, "role"))
	var parts []genPart
	for _, b := range gArr(m, "content") {
		parts = append(parts, bedrockBlock(asObj(b))...)
	}
	if len(parts) == 0 {
		return genMsg{}, false
	}
	if role == "user" && parts[0].Kind == "result" {
		role = "tool"
	}
	return genMsg{Role: role, Parts: parts}, true
}

func bedrockBlock(b map[string]any) []genPart {
	switch {
	case b["text"] != nil:
		if t := gStr(b, "text"); strings.TrimSpace(t) != "" {
			return []genPart{{Kind: "text", Text: t}}
		}
	case b["toolUse"] != nil:
		tu := gObj(b, "toolUse")
		return []genPart{{Kind: "call", ID: gStr(tu, "toolUseId"), Name: gStr(tu, "name"), Args: genArgs(tu["input"])}}
	case b["toolResult"] != nil:
		tr := gObj(b, "toolResult")
		var content any = gArr(tr, "content")
		if items := gArr(tr, "content"); len(items) == 1 {
			it := asObj(items[0])
			content = firstNonNil(it["json"], it["text"], it)
		}
		r, _ := genResult(content)
		return []genPart{{Kind: "result", ID: gStr(tr, "toolUseId"), Result: r, IsErr: gStr(tr, "status") == "error"}}
	case b["reasoningContent"] != nil:
		rc := gObj(b, "reasoningContent")
		if t := gStr(gObj(rc, "reasoningText"), "text"); t != "" {
			return []genPart{{Kind: "reasoning", Text: t}}
		}
		if rc["redactedContent"] != nil {
			return []genPart{{Kind: "reasoning", Text: "[redacted thinking]"}}
		}
	}
	return nil
}

// bedrockStream assembles a ConverseStream's events into the message
// they stream: blocks by contentBlockIndex, text and tool input deltas
// joined in order.
func bedrockStream(events []any, a *apiCall) {
	type block struct {
		text, reasoning, input strings.Builder
		id, name               string
	}
	blocks := map[int64]*block{}
	get := func(i int64) *block {
		if blocks[i] == nil {
			blocks[i] = &block{}
		}
		return blocks[i]
	}
	role := "assistant"
	for _, e := range events {
		ev := asObj(e)
		if ev["exception"] == true {
			a.failed = true
			continue
		}
		switch {
		case ev["messageStart"] != nil:
			if r := genRole(gStr(gObj(ev, "messageStart"), "role")); r != "" {
				role = r
			}
		case ev["contentBlockStart"] != nil:
			cb := gObj(ev, "contentBlockStart")
			if tu := gObj(gObj(cb, "start"), "toolUse"); tu != nil {
				bl := get(gInt(cb["contentBlockIndex"]))
				bl.id, bl.name = gStr(tu, "toolUseId"), gStr(tu, "name")
			}
		case ev["contentBlockDelta"] != nil:
			cb := gObj(ev, "contentBlockDelta")
			bl, d := get(gInt(cb["contentBlockIndex"])), gObj(cb, "delta")
			bl.text.WriteString(gStr(d, "text"))
			bl.input.WriteString(gStr(gObj(d, "toolUse"), "input"))
			bl.reasoning.WriteString(gStr(gObj(d, "reasoningContent"), "text"))
		case ev["metadata"] != nil:
			u := gObj(gObj(ev, "metadata"), "usage")
			a.inTok, a.outTok = gInt(u["inputTokens"]), gInt(u["outputTokens"])
		}
	}
	idx := make([]int64, 0, len(blocks))
	for i := range blocks {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(i, j int) bool { return idx[i] < idx[j] })
	var parts []genPart
	for _, i := range idx {
		bl := blocks[i]
		if t := bl.reasoning.String(); t != "" {
			parts = append(parts, genPart{Kind: "reasoning", Text: t})
		}
		if t := bl.text.String(); strings.TrimSpace(t) != "" {
			parts = append(parts, genPart{Kind: "text", Text: t})
		}
		if bl.name != "" {
			parts = append(parts, genPart{Kind: "call", ID: bl.id, Name: bl.name, Args: genArgs(bl.input.String())})
		}
	}
	if len(parts) > 0 {
		a.out = append(a.out, genMsg{Role: role, Parts: parts})
	}
}
