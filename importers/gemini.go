package importers

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// Gemini generateContent (Google AI and Vertex AI): a request {contents:
// [{role: user|model, parts: [{text} | {functionCall: {name, args, id}} |
// {functionResponse: {name, response, id}} | {text, thought: true}]},
// systemInstruction, tools: [{functionDeclarations}]} and a response
// {candidates: [{content}], usageMetadata: {promptTokenCount,
// candidatesTokenCount, thoughtsTokenCount}, modelVersion}. Read as a
// {request, response} pair (object, JSONL or array), a bare response or a
// streamed array of chunks, and as a VCR cassette of calls to
// …:generateContent / …:streamGenerateContent with the bodies under body,
// body.string or parsed_body (pydantic-ai). Each call re-sends the
// conversation, so the calls that start with the same turns are one trace.
func init() {
	register(Format{
		Name:     "gemini",
		Priority: 20,
		Doc:      "Gemini generateContent request/response (contents, functionCall/functionResponse parts, usageMetadata) as JSON, JSONL or a VCR cassette; emitted by google-genai / Vertex AI SDK logs and test cassettes (pydantic-ai, LangChain, ADK)",
		Detect:   detectGemini,
		Parse:    parseGemini,
	})
	registerCassetteAPI(cassetteAPI{format: "gemini", suffixes: []string{":generateContent", ":streamGenerateContent"}, trace: geminiCassetteTrace})
}

func detectGemini(head []byte) bool {
	if owner, ok := cassetteFormat(head); ok {
		return owner == "gemini"
	}
	m := headObject(head)
	if m == nil {
		return false
	}
	isReq := func(m map[string]any) bool {
		return m["contents"] != nil && (m["systemInstruction"] != nil || m["system_instruction"] != nil || m["generationConfig"] != nil ||
			m["generation_config"] != nil || m["tools"] != nil || m["toolConfig"] != nil || m["safetySettings"] != nil)
	}
	isResp := func(m map[string]any) bool {
		return m["candidates"] != nil && (m["usageMetadata"] != nil || m["modelVersion"] != nil || m["responseId"] != nil)
	}
	top := map[string]any{}
	for k, v := range m {
		top[k] = v
	}
	if isReq(top) || isResp(top) {
		return true
	}
	for _, k := range []string{"request", "response"} {
		if raw := m[k]; len(raw) > 0 && raw[0] == '{' {
			if inner := headObject(raw); inner != nil {
				im := map[string]any{}
				for k, v := range inner {
					im[k] = v
				}
				if isReq(im) || isResp(im) {
					return true
				}
			}
		}
	}
	return false
}

// geminiRun is one conversation: the calls whose requests start alike.
type geminiRun struct {
	*runAcc
	key string
	// sent is how many contents entries the conversation already holds
	// (the last request's plus the response): the next request re-sends
	// them, and only what follows is new. Gemini responses often give
	// function calls no id while the client numbers them in the next
	// request (pydantic-ai's pyd_ai_…), so the re-sent history cannot be
	// recognised by id or content.
	sent int
}

type geminiParser struct {
	file    string
	emit    Emit
	emitted int
	open    *openRuns[*geminiRun] // by conversation key
	skipped int
}

func parseGemini(ctx context.Context, r io.Reader, file string, emit Emit) error {
	br, ok := asCassette(r)
	if ok {
		return parseCassette(ctx, br, file, emit)
	}
	p := &geminiParser{file: file, emit: emit, open: newOpenRuns[*geminiRun]()}
	{
		err := genRecords(ctx, br, func(n int, raw []byte) error {
			p.open.next()
			v, err := genDecode(raw)
			if err != nil {
				return emit(Record{Line: n, Err: jsonError(file, n, raw, err)})
			}
			if err := p.value(n, v, emit); err != nil {
				return err
			}
			return p.flush(false)
		})
		if err != nil {
			return err
		}
	}
	if err := p.flush(true); err != nil {
		return err
	}
	if p.emitted == 0 {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1,
			Msg: fmt.Sprintf("no generateContent call with a message or a candidate (%d other interactions skipped): no conversation to import", p.skipped)}})
	}
	return nil
}

// flush emits the conversations no call continued for a while (all at the
// end of the file).
func (p *geminiParser) flush(all bool) error {
	for _, run := range p.open.idle(all) {
		t := &model.Trace{}
		run.trace(t)
		if len(t.Steps) == 0 {
			continue
		}
		t.TraceID = genID("gemini", []byte(p.file+"\x00"+run.key))
		if p.skipped > 0 {
			if t.Metadata == nil {
				t.Metadata = map[string]any{}
			}
			t.Metadata["skipped_interactions"] = p.skipped
		}
		t.Source = model.Source{File: p.file, Format: "gemini", Line: run.line}
		p.emitted++
		if err := p.emit(Record{Line: run.line, Trace: t}); err != nil {
			return err
		}
	}
	return nil
}

// value reads one JSON value: a {request, response} pair, a request, a
// response, a streamed chunk array, or an array of pairs.
func (p *geminiParser) value(n int, v any, emit Emit) error {
	switch x := v.(type) {
	case []any:
		if len(x) > 0 && asObj(x[0])["candidates"] != nil {
			return p.call(n, nil, geminiMergeChunks(x), "")
		}
		for _, it := range x {
			if err := p.value(n, it, emit); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		if x["request"] != nil || x["response"] != nil {
			return p.call(n, asObj(x["request"]), geminiResponse(x["response"]), "")
		}
		if x["candidates"] != nil {
			return p.call(n, nil, x, "")
		}
		if x["contents"] != nil {
			return p.call(n, x, nil, "")
		}
	}
	return emit(Record{Line: n, Err: &LineError{File: p.file, Line: n, Msg: "expected a Gemini generateContent request {contents}, response {candidates} or {request, response}"}})
}

// geminiResponse is a recorded response body: an object, a chunk array,
// or SSE text with one chunk per data: line.
func geminiResponse(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case []any:
		return geminiMergeChunks(x)
	case string:
		if d, ok := genMaybeJSON(x); ok {
			return geminiResponse(d)
		}
		var chunks []any
		eachSSEData(x, func(_ int, data string) bool {
			if d, ok := genMaybeJSON(data); ok {
				chunks = append(chunks, d)
			}
			return true
		})
		if len(chunks) > 0 {
			return geminiMergeChunks(chunks)
		}
	}
	return nil
}

// geminiMergeChunks joins a streamed response: the parts of every chunk's
// first candidate in order (adjacent text of the same kind joined), the
// last usageMetadata and modelVersion.
func geminiMergeChunks(chunks []any) map[string]any {
	var parts []any
	out := map[string]any{}
	for _, ch := range chunks {
		cm := asObj(ch)
		for _, k := range []string{"usageMetadata", "modelVersion", "responseId"} {
			if cm[k] != nil {
				out[k] = cm[k]
			}
		}
		cands := gArr(cm, "candidates")
		if len(cands) == 0 {
			continue
		}
		for _, pt := range gArr(gObj(asObj(cands[0]), "content"), "parts") {
			pm := asObj(pt)
			if t, ok := pm["text"].(string); ok && len(parts) > 0 && pm["functionCall"] == nil {
				prev := asObj(parts[len(parts)-1])
				if pt2, ok := prev["text"].(string); ok && prev["thought"] == pm["thought"] {
					merged := map[string]any{}
					for k, v := range prev {
						merged[k] = v
					}
					merged["text"] = pt2 + t
					parts[len(parts)-1] = merged
					continue
				}
			}
			parts = append(parts, pt)
		}
	}
	out["candidates"] = []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}}}
	return out
}

// call folds one generateContent call into its conversation; uri names
// the model when the body does not.
func (p *geminiParser) call(n int, req, resp map[string]any, uri string) error {
	key := ""
	if req != nil {
		first := ""
		if cs := gArr(req, "contents"); len(cs) > 0 {
			first = string(genJSON(cs[0]))
		}
		key = genID("conv", []byte(string(genJSON(firstNonNil(req["systemInstruction"], req["system_instruction"])))+"\x00"+first))
	}
	run, ok := p.open.get(key)
	if !ok {
		run = &geminiRun{runAcc: newRunAcc(n), key: key}
		p.open.add(key, run)
	}
	var in []genMsg
	if req != nil {
		for _, t := range gArr(req, "tools") {
			for _, d := range append(gArr(asObj(t), "functionDeclarations"), gArr(asObj(t), "function_declarations")...) {
				dm := asObj(d)
				if dm == nil {
					continue
				}
				if s := firstNonNil(dm["parameters_json_schema"], dm["parametersJsonSchema"]); s != nil && dm["parameters"] == nil {
					c := map[string]any{}
					for k, v := range dm {
						c[k] = v
					}
					c["parameters"] = s
					dm = c
				}
				run.c.contract(dm)
			}
		}
		contents := gArr(req, "contents")
		if run.sent > len(contents) {
			run.sent = 0 // a request that does not continue the conversation
		}
		in, _ = genMessages(map[string]any{"contents": contents[run.sent:]}, "user")
		run.sent = len(contents)
	}
	var out []genMsg
	if resp != nil {
		out, _ = genMessages(map[string]any{"candidates": resp["candidates"]}, "assistant")
		if req != nil {
			run.sent++
		}
		u := gObj(resp, "usageMetadata")
		run.usage(gInt(u["promptTokenCount"]), gInt(u["candidatesTokenCount"])+gInt(u["thoughtsTokenCount"]), 0)
		run.setModel(gStr(resp, "modelVersion"))
		if ts := runTime(resp["createTime"]); ts > 0 {
			run.span(ts, ts)
		}
	}
	if run.model == "" {
		if _, rest, ok := strings.Cut(uri, "/models/"); ok {
			name, _, _ := strings.Cut(rest, ":")
			run.setModel(name)
		}
	}
	for _, m := range in {
		run.c.message(m)
	}
	for _, m := range out {
		run.c.message(m)
	}
	return nil
}

// geminiCassetteTrace reads one cassette interaction, {request,
// response} as the shared cassette reader decoded them. The cassette
// reader folds an interaction whose trace begins the next one's into it,
// so when the responses name their function calls without ids (the
// client numbers them in the next request, pydantic-ai's pyd_ai_…) every
// id is dropped and the calls are numbered in order, the same way in
// every interaction.
func geminiCassetteTrace(file string, v jsonValue) (*model.Trace, *LineError, string) {
	d, err := genDecode(v.raw)
	if err != nil {
		return nil, jsonError(file, v.line, v.raw, err), ""
	}
	m := asObj(d)
	req := geminiRequest(m["request"])
	resp := geminiResponse(m["response"])
	if req == nil && resp == nil {
		return nil, &LineError{File: file, Line: v.line, Path: v.path, Msg: "expected a generateContent request {contents} or response {candidates}"}, ""
	}
	if geminiCallsWithoutIDs(resp) {
		req, resp = geminiDropIDs(req), geminiDropIDs(resp)
	}
	p := &geminiParser{file: file, open: newOpenRuns[*geminiRun]()}
	if err := p.call(v.line, req, resp, ""); err != nil {
		return nil, &LineError{File: file, Line: v.line, Path: v.path, Msg: err.Error()}, ""
	}
	runs := p.open.idle(true)
	if len(runs) == 0 {
		return nil, &LineError{File: file, Line: v.line, Path: v.path, Msg: "no generateContent call"}, ""
	}
	t := &model.Trace{}
	runs[0].trace(t)
	if len(t.Steps) == 0 {
		return nil, &LineError{File: file, Line: v.line, Path: v.path, Msg: "generateContent call with no message and no candidate content"}, ""
	}
	t.TraceID = genID("gemini", v.raw)
	t.Source = model.Source{File: file, Format: "gemini", Line: v.line}
	return t, nil, ""
}

// geminiCallsWithoutIDs reports whether a response has a functionCall
// part with no id.
func geminiCallsWithoutIDs(resp map[string]any) bool {
	for _, c := range gArr(resp, "candidates") {
		for _, pt := range gArr(gObj(asObj(c), "content"), "parts") {
			if fc := gObj(asObj(pt), "functionCall"); fc != nil && gStr(fc, "id") == "" {
				return true
			}
		}
	}
	return false
}

// geminiDropIDs copies a body without the ids of its function calls and
// responses.
func geminiDropIDs(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				out[k] = walk(e)
			}
			for _, k := range []string{"functionCall", "functionResponse"} {
				if inner := asObj(out[k]); inner != nil {
					delete(inner, "id")
				}
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = walk(e)
			}
			return out
		}
		return v
	}
	return asObj(walk(m))
}

// geminiRequest is a recorded request body as an object (a JSON string
// decoded).
func geminiRequest(v any) map[string]any {
	if s, ok := v.(string); ok {
		v, _ = genMaybeJSON(s)
	}
	return asObj(v)
}
