package importers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// Anthropic Messages API: a request {model, system, messages, tools}, a
// response message {type:"message", role:"assistant", content, usage}, or
// both as {request, response}; and streamed responses as events
// (message_start, content_block_start/delta/stop, message_delta,
// message_stop) in a JSON array, JSONL or SSE text, assembled into whole
// blocks. Recorded HTTP responses {status, headers, body} are read through
// their body.
//
// Reference: https://docs.anthropic.com/en/api/messages (content blocks
// text, thinking, redacted_thinking, tool_use, tool_result) and
// https://docs.anthropic.com/en/api/messages-streaming (the event list).
func init() {
	register(Format{
		Name:     "anthropic",
		Priority: 40,
		Doc:      "Anthropic Messages: requests, response messages, {request,response} logs, streamed events (JSON, JSONL or SSE)",
		Detect:   detectAnthropic,
		Parse:    parseAnthropic,
	})
	registerCassetteAPI(cassetteAPI{format: "anthropic", suffixes: []string{"/v1/messages"}, trace: cassetteDecoded(anthTraceOf)})
}

func detectAnthropic(head []byte) bool {
	if owner, ok := cassetteFormat(head); ok {
		return owner == "anthropic"
	}
	if detectBedrock(head) { // a Converse request has a top-level system too
		return false
	}
	if ok, anth := bareChat(head); ok {
		return anth
	}
	s := sniff(head)
	if mcpSampling(s) {
		return false
	}
	switch {
	case s.has("type=message") && s.has("role=assistant") && (s.has("stop_reason") || s.has("usage.input_tokens")):
		return true
	case s.has("type=message_start") && s.has("message.role=assistant"):
		return true
	case s.has("response.type=message"), s.has("response.type=message_start"):
		return true
	case s.has("messages.role") && !s.has("trace_id"):
		return anthropicRequestMarks(s, "")
	case s.has("request.messages"):
		return anthropicRequestMarks(s, "request.")
	}
	return false
}

// anthropicRequestMarks reports keys only an Anthropic request has (under
// prefix p): a top-level system prompt, tools with input_schema, content
// blocks of Anthropic-only types, or Anthropic-only parameters. A plain
// text conversation has none and is read as OpenAI chat, which gives the
// same steps.
func anthropicRequestMarks(s shape, p string) bool {
	for _, k := range []string{"system", "anthropic_version", "tools.input_schema", "top_k", "stop_sequences",
		"metadata.user_id", "thinking.budget_tokens",
		"messages.content.type=tool_use", "messages.content.type=tool_result",
		"messages.content.type=thinking", "messages.content.type=redacted_thinking"} {
		if s.has(p + k) {
			return true
		}
	}
	return false
}

type anthBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type anthMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or an array of blocks
}

type anthUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

type anthDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	PartialJSON string `json:"partial_json"`
	StopReason  string `json:"stop_reason"`
}

// anthRecord is every record shape in one struct, so encoding/json reports
// wrong types with their path.
type anthRecord struct {
	// cut marks a response assembled from a stream that ended before
	// message_stop.
	cut bool
	// A request.
	Messages []anthMessage     `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
	Metadata struct {
		UserID string `json:"user_id"`
	} `json:"metadata"`
	// A response message (type "message") or a stream event (other types).
	ID         string          `json:"id"`
	Model      string          `json:"model"` // of a request and of a response
	Type       string          `json:"type"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Usage      *anthUsage      `json:"usage"`
	StopReason string          `json:"stop_reason"`
	// A log of one exchange.
	Request  *anthRecord     `json:"request"`
	Response json.RawMessage `json:"response"`
	// Stream events.
	Message      *anthRecord `json:"message"`
	Index        int         `json:"index"`
	ContentBlock *anthBlock  `json:"content_block"`
	Delta        *anthDelta  `json:"delta"`
}

func isAnthEvent(typ string) bool {
	switch typ {
	case "message_start", "content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop", "ping":
		return true
	}
	return false
}

func parseAnthropic(ctx context.Context, r io.Reader, file string, emit Emit) error {
	br, ok := asCassette(r)
	if ok {
		return parseCassette(ctx, br, file, emit)
	}
	if isBareChat(br) {
		return parseBareChat(ctx, br, file, "anthropic", emit)
	}
	r = br
	var st *anthStream
	flush := func() error {
		if st == nil {
			return nil
		}
		s := st
		st = nil
		t, lerr := anthTraceOf(file, s.line, nil, s.record())
		if lerr != nil {
			return emit(Record{Line: s.line, Err: lerr})
		}
		t.TraceID = orHash(t.TraceID, &s.hash, "anthropic")
		return emit(Record{Line: s.line, Trace: t})
	}
	merge := &prefixMerger{emit: emit}
	err := jsonValues(ctx, r, file, func(v jsonValue) error {
		var rec anthRecord
		lerr := decodeLine(file, v.line, v.raw, &rec)
		emit := emit
		if v.cassette || rec.Request != nil || len(rec.Response) > 0 {
			emit = func(r Record) error { return merge.add(r, "") }
		} else if err := merge.flush(); err != nil {
			return err
		}
		if lerr != nil {
			return v.emitParsed(emit, nil, lerr)
		}
		if isAnthEvent(rec.Type) {
			if rec.Type == "message_start" {
				if err := flush(); err != nil {
					return err
				}
			}
			if st == nil {
				st = &anthStream{line: v.line}
			}
			st.add(&rec, v.raw)
			if rec.Type == "message_stop" {
				return flush()
			}
			return nil
		}
		if err := flush(); err != nil {
			return err
		}
		t, lerr := anthTraceOf(file, v.line, v.raw, &rec)
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

func orHash(id string, h *recordHash, format string) string {
	if id != "" {
		return id
	}
	return h.id(format)
}

func anthTraceOf(file string, line int, raw []byte, rec *anthRecord) (*model.Trace, *LineError) {
	fail := func(lerr *LineError, prefix string) (*model.Trace, *LineError) {
		lerr.File, lerr.Line, lerr.Path = file, line, joinPath(prefix, lerr.Path)
		return nil, lerr
	}
	t := &model.Trace{Outcome: model.OutcomeUnknown, Source: model.Source{File: file, Format: "anthropic", Line: line}}
	b := newConvBuilder(t)
	req, resp, prefix := rec, (*anthRecord)(nil), ""
	switch {
	case rec.Request != nil || len(rec.Response) > 0:
		req, prefix = rec.Request, "request."
		var lerr *LineError
		if resp, lerr = anthResponse(file, line, rec.Response); lerr != nil {
			return fail(lerr, "response")
		}
	case rec.Type == "message":
		req, resp = nil, rec
	case rec.Messages == nil:
		return fail(&LineError{Msg: "expected a Messages API request (messages[]), a response (type \"message\") or {request, response}"}, "")
	}
	if req != nil {
		for i, m := range req.Messages {
			if lerr := addAnthMessage(b, m.Role, m.Content); lerr != nil {
				return fail(lerr, fmt.Sprintf("%smessages[%d]", prefix, i))
			}
		}
		for i, tr := range req.Tools {
			var tool struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"input_schema"`
			}
			if err := json.Unmarshal(tr, &tool); err != nil || tool.Name == "" {
				return fail(&LineError{Msg: "expected a tool object {name, description, input_schema}"}, fmt.Sprintf("%stools[%d]", prefix, i))
			}
			addContract(t, model.ToolContract{Name: tool.Name, Description: tool.Description, InputSchema: tool.InputSchema}, tr)
		}
		t.AsUser = req.Metadata.UserID
		t.Model = req.Model
	}
	if resp != nil {
		t.Model = firstNonEmpty(resp.Model, t.Model)
		if lerr := addAnthMessage(b, "assistant", resp.Content); lerr != nil {
			at := ""
			if prefix != "" {
				at = "response"
			}
			return fail(lerr, at)
		}
		if u := resp.Usage; u != nil {
			t.Usage.InputTokens = u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
			t.Usage.OutputTokens = u.OutputTokens
		}
		t.TraceID = resp.ID
	}
	b.finish()
	if len(t.Steps) == 0 {
		return fail(&LineError{Msg: "no message with text, thinking, tool_use or tool_result to import"}, "")
	}
	if t.TraceID == "" && raw != nil {
		t.TraceID = hashID("anthropic", raw)
	}
	if resp != nil && resp.cut {
		markIncomplete(t, "the response stream ended before message_stop")
	}
	return t, nil
}

// anthResponse reads the response half of a log: a message, an array of
// stream events, or an SSE body.
func anthResponse(file string, line int, raw json.RawMessage) (*anthRecord, *LineError) {
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	st := &anthStream{line: line}
	switch raw[0] {
	case '{':
		var resp anthRecord
		if lerr := decodeLine(file, line, raw, &resp); lerr != nil {
			return nil, lerr
		}
		return &resp, nil
	case '[':
		var events []json.RawMessage
		if json.Unmarshal(raw, &events) != nil {
			return nil, &LineError{Msg: "expected an array of stream events"}
		}
		for i, e := range events {
			var rec anthRecord
			if lerr := decodeLine(file, line, e, &rec); lerr != nil {
				lerr.Path = joinPath(fmt.Sprintf("[%d]", i), lerr.Path)
				return nil, lerr
			}
			st.add(&rec, e)
		}
		return st.record(), nil
	case '"':
		var body string
		if json.Unmarshal(raw, &body) != nil {
			return nil, &LineError{Msg: "invalid JSON string"}
		}
		var lerr *LineError
		eachSSEData(body, func(_ int, data string) bool {
			var rec anthRecord
			if lerr = decodeLine(file, line, []byte(data), &rec); lerr != nil {
				return false
			}
			st.add(&rec, []byte(data))
			return true
		})
		return st.record(), lerr
	}
	return nil, &LineError{Msg: "expected a message object, an array of stream events or an SSE body"}
}

// addAnthMessage adds one message's content: a string, or blocks in order.
func addAnthMessage(b *convBuilder, role string, content json.RawMessage) *LineError {
	if role != "user" && role != "assistant" {
		return &LineError{Path: "role", Msg: fmt.Sprintf("%q is not one of user, assistant", role)}
	}
	content = trimJSON(content)
	if len(content) > 0 && content[0] != '[' {
		text, lerr := partsText(content, "content")
		if lerr != nil {
			return lerr
		}
		if role == "user" {
			b.user(text)
		} else {
			b.say(text)
		}
		return nil
	}
	var blocks []anthBlock
	if len(content) > 0 {
		if err := json.Unmarshal(content, &blocks); err != nil {
			lerr := jsonError("", 0, content, err)
			lerr.Path = joinPath("content", lerr.Path)
			return lerr
		}
	}
	for i, bl := range blocks {
		switch bl.Type {
		case "text":
			if role == "user" {
				b.user(bl.Text)
			} else {
				b.say(bl.Text)
			}
		case "thinking":
			b.think(bl.Thinking)
		case "redacted_thinking":
			b.think("[redacted thinking]")
		case "tool_use", "server_tool_use", "mcp_tool_use":
			if bl.Name == "" {
				return &LineError{Path: fmt.Sprintf("content[%d].name", i), Msg: "required on a " + bl.Type + " block"}
			}
			b.call(bl.ID, bl.Name, convArgs(bl.Input))
		default:
			if bl.Type == "tool_result" || strings.HasSuffix(bl.Type, "_tool_result") {
				res, lerr := anthResultContent(bl.Content)
				if lerr != nil {
					lerr.Path = joinPath(fmt.Sprintf("content[%d]", i), lerr.Path)
					return lerr
				}
				b.result(bl.ToolUseID, "", res, bl.IsError)
			}
			// Images, documents, citations and other blocks carry no step.
		}
	}
	return nil
}

// anthResultContent reads a tool_result's content: a string, or blocks
// whose text is joined; blocks without text are kept as JSON.
func anthResultContent(raw json.RawMessage) (json.RawMessage, *LineError) {
	raw = trimJSON(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &blocks) == nil {
			var texts []string
			for _, bl := range blocks {
				if bl.Type == "text" {
					texts = append(texts, bl.Text)
				}
			}
			if len(texts) == 0 && len(blocks) > 0 {
				return compactJSON(raw), nil
			}
			return convResult(strings.Join(texts, "\n")), nil
		}
	}
	if len(raw) > 0 && raw[0] == '{' {
		return compactJSON(raw), nil
	}
	text, lerr := partsText(raw, "content")
	if lerr != nil {
		return nil, lerr
	}
	return convResult(text), nil
}

// anthStream assembles stream events into one response message.
type anthStream struct {
	line    int
	stopped bool // message_stop seen
	msg     anthRecord
	blocks  map[int]*anthStreamBlock
	hash    recordHash
}

type anthStreamBlock struct {
	block anthBlock
	text  strings.Builder
	json  strings.Builder
}

func (s *anthStream) add(e *anthRecord, raw []byte) {
	s.hash.add(raw)
	if s.blocks == nil {
		s.blocks = map[int]*anthStreamBlock{}
	}
	switch e.Type {
	case "message_start":
		if e.Message != nil {
			s.msg = *e.Message
		}
	case "message_stop":
		s.stopped = true
	case "content_block_start":
		if e.ContentBlock != nil {
			s.blocks[e.Index] = &anthStreamBlock{block: *e.ContentBlock}
		}
	case "content_block_delta":
		bl := s.blocks[e.Index]
		if bl == nil || e.Delta == nil {
			return
		}
		switch e.Delta.Type {
		case "text_delta":
			bl.text.WriteString(e.Delta.Text)
		case "thinking_delta":
			bl.text.WriteString(e.Delta.Thinking)
		case "input_json_delta":
			bl.json.WriteString(e.Delta.PartialJSON)
		}
	case "message_delta":
		if e.Usage != nil {
			u := s.msg.Usage
			if u == nil {
				u = &anthUsage{}
				s.msg.Usage = u
			}
			// message_delta carries cumulative counts.
			for _, f := range []struct{ dst, src *int64 }{
				{&u.InputTokens, &e.Usage.InputTokens}, {&u.OutputTokens, &e.Usage.OutputTokens},
				{&u.CacheCreationInputTokens, &e.Usage.CacheCreationInputTokens},
				{&u.CacheReadInputTokens, &e.Usage.CacheReadInputTokens}} {
				if *f.src != 0 {
					*f.dst = *f.src
				}
			}
		}
	}
}

// record is the response message the events add up to.
func (s *anthStream) record() *anthRecord {
	idx := make([]int, 0, len(s.blocks))
	for i := range s.blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	blocks := make([]anthBlock, 0, len(idx))
	for _, i := range idx {
		sb := s.blocks[i]
		bl := sb.block
		switch bl.Type {
		case "text":
			bl.Text += sb.text.String()
		case "thinking":
			bl.Thinking += sb.text.String()
		}
		if sb.json.Len() > 0 {
			bl.Input, _ = json.Marshal(sb.json.String())
		}
		blocks = append(blocks, bl)
	}
	m := s.msg
	m.Type, m.Role = "message", "assistant"
	m.cut = !s.stopped
	m.Content, _ = json.Marshal(blocks)
	return &m
}
