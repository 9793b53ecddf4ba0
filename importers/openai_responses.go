package importers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// OpenAI Responses API: a response object {object:"response", output:[items],
// usage} (possibly carrying the request's input items), {request, response}
// logs, a request {input, tools} alone, and streamed responses as lists of
// response.* events (the final response.completed event, else the
// output_item.done items, make the response).
//
// Items read: message (input_text/output_text parts), reasoning (summary
// text), function_call / function_call_output and custom_tool_call(_output)
// paired by call_id, mcp_list_tools (tools become contracts), mcp_call
// (arguments, output, error). Built-in tool items are skipped.
//
// Reference: https://platform.openai.com/docs/api-reference/responses (the
// response object, input and output items, the streaming events).
func init() {
	register(Format{
		Name:     "openai_responses",
		Priority: 40,
		Doc:      "OpenAI Responses: response objects, {request,response} logs, response.* event streams",
		Detect:   detectOpenAIResponses,
		Parse:    parseOpenAIResponses,
	})
	registerCassetteAPI(cassetteAPI{format: "openai_responses", suffixes: []string{"/responses"}, trace: respCassetteTrace})
}

func detectOpenAIResponses(head []byte) bool {
	if owner, ok := cassetteFormat(head); ok {
		return owner == "openai_responses"
	}
	if detectLiteLLM(head) { // a LiteLLM log record holds a Responses object
		return false
	}
	s := sniff(head)
	return s.has("object=response") || s.has("response.object=response") ||
		s.has("type=response.created") || s.has("type=response.completed") ||
		(s.has("request.input") && s.has("response.output"))
}

type respItem struct {
	Type        string            `json:"type"`
	ID          string            `json:"id"`
	Role        string            `json:"role"`
	Content     json.RawMessage   `json:"content"`
	Summary     json.RawMessage   `json:"summary"`
	CallID      string            `json:"call_id"`
	Name        string            `json:"name"`
	Arguments   json.RawMessage   `json:"arguments"`
	Input       json.RawMessage   `json:"input"`
	Output      json.RawMessage   `json:"output"`
	Error       json.RawMessage   `json:"error"`
	ServerLabel string            `json:"server_label"`
	Tools       []json.RawMessage `json:"tools"`
}

type respUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

type respRecord struct {
	// A response object (or a request: input, tools, user).
	Object           string            `json:"object"`
	ID               string            `json:"id"`
	Model            string            `json:"model"`
	CreatedAt        float64           `json:"created_at"`
	Input            json.RawMessage   `json:"input"`
	Output           []respItem        `json:"output"`
	Tools            []json.RawMessage `json:"tools"`
	Usage            *respUsage        `json:"usage"`
	User             string            `json:"user"`
	SafetyIdentifier string            `json:"safety_identifier"`
	// PreviousResponseID chains a request to an earlier response.
	PreviousResponseID string `json:"previous_response_id"`
	// A log {request, response}; in a stream event, response is the
	// response so far.
	Request  *respRecord     `json:"request"`
	Response json.RawMessage `json:"response"`
	// A stream event.
	Type  string          `json:"type"`
	Item  *respItem       `json:"item"`
	Delta json.RawMessage `json:"delta"` // response.output_text.delta: a string
	// cut marks a response assembled from a stream that ended before its
	// end event.
	cut bool
}

func parseOpenAIResponses(ctx context.Context, r io.Reader, file string, emit Emit) error {
	br, ok := asCassette(r)
	if ok {
		return parseCassette(ctx, br, file, emit)
	}
	r = br
	var st *respStream
	flush := func() error {
		if st == nil {
			return nil
		}
		s := st
		st = nil
		rec := s.record()
		rec.Object = "response"
		t, lerr := respTraceOf(file, s.line, nil, &rec)
		if lerr != nil {
			return emit(Record{Line: s.line, Err: lerr})
		}
		t.TraceID = orHash(t.TraceID, &s.hash, "openai_responses")
		return emit(Record{Line: s.line, Trace: t})
	}
	merge := &prefixMerger{emit: emit}
	err := jsonValues(ctx, r, file, func(v jsonValue) error {
		var rec respRecord
		lerr := decodeLine(file, v.line, v.raw, &rec)
		emit := emit
		if v.cassette || rec.Request != nil || len(rec.Response) > 0 && !strings.HasPrefix(rec.Type, "response.") {
			prev := ""
			if rec.Request != nil {
				prev = rec.Request.PreviousResponseID
			}
			emit = func(r Record) error { return merge.add(r, prev) }
		} else if err := merge.flush(); err != nil {
			return err
		}
		if lerr != nil {
			return v.emitParsed(emit, nil, lerr)
		}
		if strings.HasPrefix(rec.Type, "response.") {
			if rec.Type == "response.created" {
				if err := flush(); err != nil {
					return err
				}
			}
			if st == nil {
				st = &respStream{line: v.line}
			}
			st.hash.add(v.raw)
			if lerr := st.add(file, v.line, &rec); lerr != nil {
				lerr.Path = joinPath(v.path, lerr.Path)
				st = nil
				return emit(Record{Line: v.line, Err: lerr})
			}
			if st.ended {
				return flush()
			}
			return nil
		}
		if err := flush(); err != nil {
			return err
		}
		t, lerr := respTraceOf(file, v.line, v.raw, &rec)
		return v.emitParsed(emit, t, lerr)
	})
	if err != nil {
		return err
	}
	if err := merge.flush(); err != nil {
		return err
	}
	return flush()
}

type respStream struct {
	line int
	respEvents
	hash recordHash
}

// respEvents assembles the events of one streamed response (from a log of
// events or an SSE body): the response of the last event that carries
// one, with the output_item.done items when that response has no output.
// A stream cut before its end event keeps the text streamed so far.
type respEvents struct {
	resp    respRecord
	items   []respItem
	partial strings.Builder // output_text deltas since the last done item
	ended   bool            // a response.completed, .incomplete or .failed event came
}

func (a *respEvents) add(file string, line int, ev *respRecord) *LineError {
	switch ev.Type {
	case "response.output_item.done":
		if ev.Item != nil {
			a.items = append(a.items, *ev.Item)
			a.partial.Reset()
		}
	case "response.output_text.delta":
		var d string
		if json.Unmarshal(ev.Delta, &d) == nil {
			a.partial.WriteString(d)
		}
	case "response.completed", "response.incomplete", "response.failed":
		a.ended = true
	}
	if r := trimJSON(ev.Response); len(r) > 0 && string(r) != "null" {
		a.resp = respRecord{}
		if lerr := decodeLine(file, line, r, &a.resp); lerr != nil {
			lerr.Path = joinPath("response", lerr.Path)
			return lerr
		}
	}
	return nil
}

// record is the response the events add up to.
func (a *respEvents) record() respRecord {
	rec := a.resp
	if len(rec.Output) == 0 {
		rec.Output = a.items
	}
	if !a.ended {
		rec.cut = true
		if a.partial.Len() > 0 {
			text, _ := json.Marshal([]map[string]string{{"type": "output_text", "text": a.partial.String()}})
			rec.Output = append(rec.Output[:len(rec.Output):len(rec.Output)], respItem{Type: "message", Role: "assistant", Content: text})
		}
	}
	return rec
}

func respTraceOf(file string, line int, raw []byte, rec *respRecord) (*model.Trace, *LineError) {
	fail := func(lerr *LineError, prefix string) (*model.Trace, *LineError) {
		lerr.File, lerr.Line, lerr.Path = file, line, joinPath(prefix, lerr.Path)
		return nil, lerr
	}
	t := &model.Trace{Outcome: model.OutcomeUnknown, Source: model.Source{File: file, Format: "openai_responses", Line: line}}
	b := newConvBuilder(t)
	servers := map[string]bool{}
	req, resp, reqPath, respPath := rec, rec, "", ""
	switch {
	case rec.Request != nil || len(rec.Response) > 0:
		req, resp, reqPath, respPath = rec.Request, nil, "request", "response"
		if r := trimJSON(rec.Response); len(r) > 0 && r[0] == '"' {
			var lerr *LineError
			if resp, lerr = respFromSSE(file, line, r); lerr != nil {
				return fail(lerr, "response")
			}
		} else if len(r) > 0 && string(r) != "null" {
			resp = &respRecord{}
			if lerr := decodeLine(file, line, r, resp); lerr != nil {
				return fail(lerr, "response")
			}
		}
	case rec.Object == "response" || rec.Output != nil || rec.Input != nil:
	default:
		return fail(&LineError{Msg: "expected a response object (object \"response\", output[]), a request (input) or {request, response}"}, "")
	}
	if req != nil {
		if lerr := addRespInput(b, t, servers, req.Input); lerr != nil {
			return fail(lerr, joinPath(reqPath, "input"))
		}
		if lerr := respContracts(t, req.Tools); lerr != nil {
			return fail(lerr, joinPath(reqPath, "tools"))
		}
		t.AsUser = firstNonEmpty(req.User, req.SafetyIdentifier)
		t.Model = req.Model
	}
	if resp != nil {
		t.Model = firstNonEmpty(resp.Model, t.Model)
		for i, it := range resp.Output {
			if lerr := addRespItem(b, t, servers, &it); lerr != nil {
				return fail(lerr, joinPath(respPath, fmt.Sprintf("output[%d]", i)))
			}
		}
		if req != resp {
			if lerr := respContracts(t, resp.Tools); lerr != nil {
				return fail(lerr, joinPath(respPath, "tools"))
			}
		}
		if u := resp.Usage; u != nil {
			t.Usage.InputTokens, t.Usage.OutputTokens = u.InputTokens, u.OutputTokens
		}
		if resp.CreatedAt > 0 {
			t.StartedAt = unixRFC3339(resp.CreatedAt)
		}
		t.TraceID = resp.ID
		if t.AsUser == "" {
			t.AsUser = firstNonEmpty(resp.User, resp.SafetyIdentifier)
		}
	}
	b.finish()
	if len(t.Steps) == 0 {
		return fail(&LineError{Msg: "no input or output item with text, reasoning or a tool call to import"}, "")
	}
	if len(servers) == 1 {
		for s := range servers {
			t.Server = s
		}
	}
	if t.TraceID == "" && raw != nil {
		t.TraceID = hashID("openai_responses", raw)
	}
	if resp != nil && resp.cut {
		markIncomplete(t, "the response stream ended before response.completed")
	}
	return t, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// addRespInput reads a request's input: a string (the user's words) or a
// list of items.
func addRespInput(b *convBuilder, t *model.Trace, servers map[string]bool, raw json.RawMessage) *LineError {
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		text, lerr := partsText(raw, "")
		if lerr != nil {
			return lerr
		}
		b.user(text)
		return nil
	}
	var items []respItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return jsonError("", 0, raw, err)
	}
	for i, it := range items {
		if lerr := addRespItem(b, t, servers, &it); lerr != nil {
			lerr.Path = joinPath(fmt.Sprintf("[%d]", i), lerr.Path)
			return lerr
		}
	}
	return nil
}

func addRespItem(b *convBuilder, t *model.Trace, servers map[string]bool, it *respItem) *LineError {
	typ := it.Type
	if typ == "" && it.Role != "" {
		typ = "message" // easy input messages {role, content}
	}
	switch typ {
	case "message":
		text, lerr := partsText(it.Content, "content")
		if lerr != nil {
			return lerr
		}
		switch it.Role {
		case "user":
			b.user(text)
		case "assistant":
			b.say(text)
		case "system", "developer":
		default:
			return &LineError{Path: "role", Msg: fmt.Sprintf("%q is not one of user, assistant, system, developer", it.Role)}
		}
	case "reasoning":
		var texts []string
		for _, f := range []struct {
			name string
			raw  json.RawMessage
		}{{"summary", it.Summary}, {"content", it.Content}} {
			if raw := trimJSON(f.raw); len(raw) == 0 || string(raw) == "null" {
				continue
			}
			// summary_text and reasoning_text parts: {type, text}.
			var parts []struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(f.raw, &parts); err != nil {
				lerr := jsonError("", 0, f.raw, err)
				lerr.Path = joinPath(f.name, lerr.Path)
				return lerr
			}
			for _, p := range parts {
				if p.Text != "" {
					texts = append(texts, p.Text)
				}
			}
		}
		b.think(strings.Join(texts, "\n"))
	case "function_call", "custom_tool_call":
		if it.Name == "" {
			return &LineError{Path: "name", Msg: "required on a " + typ + " item"}
		}
		args := it.Arguments
		if typ == "custom_tool_call" {
			args = it.Input
		}
		b.call(firstNonEmpty(it.CallID, it.ID), it.Name, convArgs(args))
	case "function_call_output", "custom_tool_call_output":
		b.result(it.CallID, "", respOutput(it.Output), false)
	case "mcp_call":
		if it.Name == "" {
			return &LineError{Path: "name", Msg: "required on an mcp_call item"}
		}
		if it.ServerLabel != "" {
			servers[it.ServerLabel] = true
		}
		b.call(it.ID, it.Name, convArgs(it.Arguments))
		errRaw := trimJSON(it.Error)
		failed := len(errRaw) > 0 && string(errRaw) != "null"
		if failed {
			b.result(it.ID, it.Name, respOutput(errRaw), true)
		} else if out := trimJSON(it.Output); len(out) > 0 && string(out) != "null" {
			b.result(it.ID, it.Name, respOutput(out), false)
		}
	case "mcp_list_tools":
		if it.ServerLabel != "" {
			servers[it.ServerLabel] = true
		}
		for i, raw := range it.Tools {
			var tool struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"input_schema"`
				Annotations json.RawMessage `json:"annotations"`
			}
			if err := json.Unmarshal(raw, &tool); err != nil || tool.Name == "" {
				return &LineError{Path: fmt.Sprintf("tools[%d]", i), Msg: "expected a tool object {name, description, input_schema}"}
			}
			addContract(t, model.ToolContract{Name: tool.Name, Description: tool.Description,
				InputSchema: tool.InputSchema, Annotations: tool.Annotations}, raw)
		}
	}
	return nil
}

// respOutput reads a tool output: a string (kept as JSON when it is JSON),
// an array of input_text parts, or any other JSON value as it is.
func respOutput(raw json.RawMessage) json.RawMessage {
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`""`)
	}
	if raw[0] == '"' || raw[0] == '[' {
		if text, lerr := partsText(raw, ""); lerr == nil && (raw[0] == '"' || text != "") {
			return convResult(text)
		}
	}
	return compactJSON(raw)
}

// respContracts reads function tools {type:"function", name, description,
// parameters}; built-in and MCP server tools are not contracts (an MCP
// server's tools arrive in mcp_list_tools).
func respContracts(t *model.Trace, tools []json.RawMessage) *LineError {
	for i, raw := range tools {
		var tool struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			return &LineError{Path: fmt.Sprintf("[%d]", i), Msg: "expected a tool object {type, name, description, parameters}"}
		}
		if (tool.Type == "function" || tool.Type == "custom") && tool.Name != "" {
			addContract(t, model.ToolContract{Name: tool.Name, Description: tool.Description, InputSchema: tool.Parameters}, raw)
		}
	}
	return nil
}

// respFromSSE reads a streamed response body (SSE text in a JSON string).
func respFromSSE(file string, line int, raw json.RawMessage) (*respRecord, *LineError) {
	var body string
	if json.Unmarshal(raw, &body) != nil {
		return nil, &LineError{Msg: "invalid JSON string"}
	}
	var acc respEvents
	var lerr *LineError
	eachSSEData(body, func(_ int, data string) bool {
		var ev respRecord
		if lerr = decodeLine(file, line, []byte(data), &ev); lerr == nil {
			lerr = acc.add(file, line, &ev)
		}
		return lerr == nil
	})
	if lerr != nil {
		return nil, lerr
	}
	rec := acc.record()
	return &rec, nil
}

// respCassetteTrace reads a recorded Responses API call.
func respCassetteTrace(file string, v jsonValue) (*model.Trace, *LineError, string) {
	var rec respRecord
	if lerr := decodeLine(file, v.line, v.raw, &rec); lerr != nil {
		return nil, lerr, ""
	}
	prev := ""
	if rec.Request != nil {
		prev = rec.Request.PreviousResponseID
	}
	t, lerr := respTraceOf(file, v.line, v.raw, &rec)
	return t, lerr, prev
}
