package importers

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"tracelab/model"
)

// OpenAI Chat Completions: conversations with messages[] (fine-tuning
// records, one per line or one per file), request/response logs
// {"request":{messages,tools},"response":{choices,usage}}, bare completion
// objects, and streamed responses as lists of chat.completion.chunk events
// (a JSON array, JSONL or SSE "data:" lines). tau-bench trajectories
// ({task_id, traj, reward}) and agent rollouts ({instance_id, conversation})
// carry the same messages and are read here too.
//
// Reference: https://platform.openai.com/docs/api-reference/chat (the
// create request, the chat completion object and the chunk object).
func init() {
	register(Format{
		Name:     "openai_chat",
		Priority: 60,
		Doc:      "OpenAI Chat Completions: messages[] conversations, request/response logs, chat.completion(.chunk) objects",
		Detect:   detectOpenAIChat,
		Parse:    parseOpenAIChat,
	})
}

func detectOpenAIChat(head []byte) bool {
	if isCassette(head, "/chat/completions") {
		return true
	}
	s := sniff(head)
	if mcpSampling(s) {
		return false
	}
	switch {
	case s.has("object=chat.completion"), s.has("object=chat.completion.chunk"),
		s.has("response.object=chat.completion"), s.has("response.object=chat.completion.chunk"):
		return true
	case s.has("messages.role") && !s.has("trace_id") && !s.has("case_id"):
		return !anthropicRequestMarks(s, "")
	case s.has("request.messages"):
		return !anthropicRequestMarks(s, "request.") && !s.has("response.type=message")
	case s.has("traj.role") && s.has("task_id"): // tau-bench
		return true
	case s.has("conversation.role") && s.has("instance_id"): // agent rollouts
		return true
	}
	return false
}

// mcpSampling reports an MCP sampling request or result
// (sampling/createMessage: messages with camelCase maxTokens, systemPrompt,
// modelPreferences, tool_result blocks with toolUseId): the MCP log
// importer's business, though its messages look like a chat.
func mcpSampling(s shape) bool {
	return s.has("maxTokens") || s.has("systemPrompt") || s.has("modelPreferences") ||
		s.has("includeContext") || s.has("messages.content.toolUseId") || s.has("stopReason")
}

type chatFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type chatToolCall struct {
	Index    *int         `json:"index"` // streamed deltas only
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
	// Some agent logs write calls flat: {"name", "arguments"} with no id.
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type chatMessage struct {
	Role         string          `json:"role"`
	Content      json.RawMessage `json:"content"`
	Refusal      string          `json:"refusal"`
	ToolCalls    []chatToolCall  `json:"tool_calls"`
	FunctionCall *chatFunction   `json:"function_call"` // legacy functions API
	ToolCallID   string          `json:"tool_call_id"`
	Name         string          `json:"name"`
	// Reasoning text as OpenAI-compatible servers (vLLM, DeepSeek,
	// OpenRouter) return it beside content.
	ReasoningContent string `json:"reasoning_content"`
	Reasoning        any    `json:"reasoning"`
}

type chatUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

type chatChoice struct {
	Index   int         `json:"index"`
	Message chatMessage `json:"message"`
	Delta   chatMessage `json:"delta"`
}

// chatRecord is every record shape this importer reads, in one struct so
// encoding/json reports wrong types with their path.
type chatRecord struct {
	// A conversation or a request.
	Messages  []chatMessage     `json:"messages"`
	Tools     []json.RawMessage `json:"tools"`
	Functions []json.RawMessage `json:"functions"`
	User      string            `json:"user"`
	// Metadata is the request's string map (stored completions); its
	// case_id and trace_id tie a replayed request to its suite case.
	Metadata map[string]any `json:"metadata"`
	// A completion or a chunk.
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created float64      `json:"created"`
	Choices []chatChoice `json:"choices"`
	Usage   *chatUsage   `json:"usage"`
	// A request/response log.
	Request  *chatRecord     `json:"request"`
	Response json.RawMessage `json:"response"`
	// tau-bench.
	TaskID json.RawMessage `json:"task_id"`
	Traj   []chatMessage   `json:"traj"`
	Reward *float64        `json:"reward"`
	Trial  *int            `json:"trial"`
	Info   struct {
		Task struct {
			UserID string `json:"user_id"`
		} `json:"task"`
	} `json:"info"`
	// Agent rollouts (Spider-Agent and the like).
	InstanceID   string          `json:"instance_id"`
	RolloutIdx   *int            `json:"rollout_idx"`
	Conversation []chatMessage   `json:"conversation"`
	Terminated   json.RawMessage `json:"terminated"`
}

func parseOpenAIChat(ctx context.Context, r io.Reader, file string, emit Emit) error {
	var stream *chatStream // set while reading a streamed response
	merge := &prefixMerger{emit: emit}
	err := jsonValues(ctx, r, file, func(v jsonValue) error {
		var rec chatRecord
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
		if rec.Object == "chat.completion.chunk" {
			if stream != nil && rec.ID != "" && stream.id != "" && rec.ID != stream.id {
				if err := emitChatStream(file, stream, emit); err != nil {
					return err
				}
				stream = nil
			}
			if stream == nil {
				stream = newChatStream(v.line)
			}
			stream.add(&rec, v.raw)
			return nil
		}
		t, lerr := chatTraceOf(file, v.line, v.raw, &rec)
		return v.emitParsed(emit, t, lerr)
	})
	if err != nil {
		return err
	}
	if err := merge.flush(); err != nil {
		return err
	}
	if stream != nil {
		return emitChatStream(file, stream, emit)
	}
	return nil
}

// emitChatStream emits the completion a run of chunks adds up to.
func emitChatStream(file string, st *chatStream, emit Emit) error {
	rec := st.record()
	t, lerr := chatTraceOf(file, st.line, nil, rec)
	if lerr != nil {
		return emit(Record{Line: st.line, Err: lerr})
	}
	t.TraceID = st.traceID(t.TraceID)
	return emit(Record{Line: st.line, Trace: t})
}

// chatTraceOf turns one record into a trace. raw is the record's bytes for
// the fallback id (nil when the record was assembled from a stream).
func chatTraceOf(file string, line int, raw []byte, rec *chatRecord) (*model.Trace, *LineError) {
	bad := func(path, format string, args ...any) (*model.Trace, *LineError) {
		return nil, &LineError{File: file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}
	}
	t := &model.Trace{Outcome: model.OutcomeUnknown, Source: model.Source{File: file, Format: "openai_chat", Line: line}}
	b := newConvBuilder(t)
	var msgs []chatMessage
	msgPath := "messages"
	tools, functions := rec.Tools, rec.Functions
	id, created, usage := rec.ID, rec.Created, rec.Usage
	switch {
	case rec.Request != nil || len(rec.Response) > 0:
		if rec.Request != nil {
			msgs = rec.Request.Messages
			msgPath = "request.messages"
			tools, functions = rec.Request.Tools, rec.Request.Functions
			t.AsUser = rec.Request.User
		}
		resp, lerr := chatResponse(file, line, rec.Response)
		if lerr != nil {
			return nil, lerr
		}
		if resp != nil {
			id, created, usage = resp.ID, resp.Created, resp.Usage
			if m, ok := firstChoice(resp.Choices); ok {
				msgs = append(msgs[:len(msgs):len(msgs)], m)
			}
		}
	case rec.Traj != nil:
		msgs, msgPath = rec.Traj, "traj"
		t.AsUser = rec.Info.Task.UserID
		t.Metadata = map[string]any{"task_id": json.RawMessage(rec.TaskID)}
		if rec.Trial != nil {
			t.Metadata["trial"] = *rec.Trial
		}
		if rec.Reward != nil {
			t.Metadata["reward"] = *rec.Reward
			t.Outcome = model.OutcomeFailure
			if *rec.Reward >= 1 {
				t.Outcome = model.OutcomePass
			}
		}
	case rec.Conversation != nil:
		msgs, msgPath = rec.Conversation, "conversation"
		if rec.InstanceID != "" && rec.RolloutIdx != nil {
			id = rec.InstanceID + "/" + strconv.Itoa(*rec.RolloutIdx)
		}
	case rec.Messages != nil:
		msgs = rec.Messages
		t.AsUser = rec.User
		if m, ok := firstChoice(rec.Choices); ok { // request and response flattened into one object
			msgs = append(msgs[:len(msgs):len(msgs)], m)
		}
	case rec.Choices != nil:
		if m, ok := firstChoice(rec.Choices); ok {
			msgs, msgPath = []chatMessage{m}, "choices[0].message"
		}
	default:
		return bad("", "expected a chat record: messages[], a request/response pair, or a chat.completion object")
	}
	for i, m := range msgs {
		if lerr := addChatMessage(b, &m); lerr != nil {
			at := fmt.Sprintf("%s[%d]", msgPath, i)
			if msgPath == "choices[0].message" {
				at = msgPath
			}
			lerr.File, lerr.Line, lerr.Path = file, line, joinPath(at, lerr.Path)
			return nil, lerr
		}
	}
	b.finish()
	if len(t.Steps) == 0 {
		return bad(msgPath, "no user, assistant or tool message with content to import")
	}
	if lerr := chatContracts(t, tools, "tools", functions); lerr != nil {
		lerr.File, lerr.Line = file, line
		if rec.Request != nil {
			lerr.Path = "request." + lerr.Path
		}
		return nil, lerr
	}
	if usage != nil {
		t.Usage.InputTokens, t.Usage.OutputTokens = usage.PromptTokens, usage.CompletionTokens
	}
	if created > 0 {
		t.StartedAt = unixRFC3339(created)
	}
	t.TraceID = id
	if t.TraceID == "" && raw != nil {
		t.TraceID = hashID("openai_chat", raw)
	}
	md := rec.Metadata
	if rec.Request != nil {
		md = rec.Request.Metadata
	}
	if cid, ok := md["case_id"].(string); ok && cid != "" {
		if t.Metadata == nil {
			t.Metadata = map[string]any{}
		}
		t.Metadata["case_id"] = cid
	}
	if tid, ok := md["trace_id"].(string); ok && tid != "" {
		t.TraceID = tid
	}
	return t, nil
}

func firstChoice(cs []chatChoice) (chatMessage, bool) {
	for _, c := range cs {
		if c.Index == 0 {
			m := c.Message
			if m.Role == "" {
				m.Role = "assistant"
			}
			return m, true
		}
	}
	return chatMessage{}, false
}

// chatResponse reads the response half of a log record: a completion
// object, a list of chunks, or an SSE body.
func chatResponse(file string, line int, raw json.RawMessage) (*chatRecord, *LineError) {
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	switch raw[0] {
	case '{':
		var resp chatRecord
		if lerr := decodeLine(file, line, raw, &resp); lerr != nil {
			lerr.Path = joinPath("response", lerr.Path)
			return nil, lerr
		}
		return &resp, nil
	case '[':
		var chunks []json.RawMessage
		if err := json.Unmarshal(raw, &chunks); err != nil {
			return nil, &LineError{File: file, Line: line, Path: "response", Msg: "expected an array of chat.completion.chunk objects"}
		}
		st := newChatStream(line)
		for i, c := range chunks {
			var rec chatRecord
			if lerr := decodeLine(file, line, c, &rec); lerr != nil {
				lerr.Path = joinPath(fmt.Sprintf("response[%d]", i), lerr.Path)
				return nil, lerr
			}
			st.add(&rec, c)
		}
		return st.record(), nil
	case '"':
		var body string
		if err := json.Unmarshal(raw, &body); err != nil {
			return nil, &LineError{File: file, Line: line, Path: "response", Msg: "invalid JSON string"}
		}
		st, lerr := chatStreamFromSSE(file, line, body)
		if lerr != nil {
			lerr.Path = joinPath("response", lerr.Path)
			return nil, lerr
		}
		return st.record(), nil
	}
	return nil, &LineError{File: file, Line: line, Path: "response", Msg: "expected a chat.completion object, an array of chunks or an SSE body"}
}

func addChatMessage(b *convBuilder, m *chatMessage) *LineError {
	text, lerr := partsText(m.Content, "content")
	if lerr != nil {
		return lerr
	}
	switch m.Role {
	case "system", "developer":
	case "user":
		b.user(text)
	case "assistant":
		if m.ReasoningContent != "" {
			b.think(m.ReasoningContent)
		} else if s, ok := m.Reasoning.(string); ok && s != "" {
			b.think(s)
		}
		if m.Refusal != "" && text == "" {
			text = m.Refusal
		}
		b.say(text)
		for j, c := range m.ToolCalls {
			name, args := c.Function.Name, c.Function.Arguments
			if name == "" {
				name, args = c.Name, c.Arguments
			}
			if name == "" {
				return &LineError{Path: fmt.Sprintf("tool_calls[%d].function.name", j), Msg: "required, the name of the called function"}
			}
			b.call(c.ID, name, convArgs(args))
		}
		if f := m.FunctionCall; f != nil && f.Name != "" {
			b.call("", f.Name, convArgs(f.Arguments))
		}
	case "tool", "function":
		b.result(m.ToolCallID, m.Name, convResult(text), false)
	default:
		return &LineError{Path: "role", Msg: fmt.Sprintf("%q is not one of system, developer, user, assistant, tool, function", m.Role)}
	}
	return nil
}

// chatContracts reads tools[] ({type:function, function:{name, description,
// parameters}}) and the legacy functions[] into MCP-shaped contracts.
func chatContracts(t *model.Trace, tools []json.RawMessage, path string, functions []json.RawMessage) *LineError {
	for i, raw := range tools {
		var tool struct {
			Type     string `json:"type"`
			Function *struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
			Custom *struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			} `json:"custom"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			return &LineError{Path: fmt.Sprintf("%s[%d]", path, i), Msg: "expected a tool object {type, function:{name, description, parameters}}"}
		}
		switch {
		case tool.Function != nil:
			if tool.Function.Name == "" {
				return &LineError{Path: fmt.Sprintf("%s[%d].function.name", path, i), Msg: "required"}
			}
			addContract(t, model.ToolContract{Name: tool.Function.Name, Description: tool.Function.Description, InputSchema: tool.Function.Parameters}, raw)
		case tool.Custom != nil && tool.Custom.Name != "":
			addContract(t, model.ToolContract{Name: tool.Custom.Name, Description: tool.Custom.Description}, raw)
		}
	}
	for i, raw := range functions {
		var f struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal(raw, &f); err != nil || f.Name == "" {
			return &LineError{Path: fmt.Sprintf("functions[%d]", i), Msg: "expected a function object with a name"}
		}
		addContract(t, model.ToolContract{Name: f.Name, Description: f.Description, InputSchema: f.Parameters}, raw)
	}
	return nil
}

// chatStream assembles chat.completion.chunk events into one completion.
type chatStream struct {
	line      int
	id        string
	created   float64
	content   strings.Builder
	reasoning strings.Builder
	calls     []*chatStreamCall
	usage     *chatUsage
	hash      recordHash
}

type chatStreamCall struct {
	id, name string
	args     strings.Builder
}

func newChatStream(line int) *chatStream { return &chatStream{line: line} }

func (s *chatStream) add(c *chatRecord, raw []byte) {
	s.hash.add(raw)
	if s.id == "" {
		s.id = c.ID
	}
	if s.created == 0 {
		s.created = c.Created
	}
	if c.Usage != nil {
		s.usage = c.Usage
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		d := &ch.Delta
		if text, _ := partsText(d.Content, ""); text != "" {
			s.content.WriteString(text)
		}
		s.reasoning.WriteString(d.ReasoningContent)
		for pos, tc := range d.ToolCalls {
			i := pos
			if tc.Index != nil {
				i = *tc.Index
			}
			if i < 0 || i > 1024 {
				continue
			}
			for len(s.calls) <= i {
				s.calls = append(s.calls, &chatStreamCall{})
			}
			call := s.calls[i]
			if tc.ID != "" {
				call.id = tc.ID
			}
			call.name += tc.Function.Name
			var frag string
			if json.Unmarshal(tc.Function.Arguments, &frag) == nil {
				call.args.WriteString(frag)
			}
		}
	}
}

// record is the completion the chunks add up to.
func (s *chatStream) record() *chatRecord {
	m := chatMessage{Role: "assistant", ReasoningContent: s.reasoning.String()}
	if s.content.Len() > 0 {
		m.Content, _ = json.Marshal(s.content.String())
	}
	for _, c := range s.calls {
		if c.name == "" {
			continue
		}
		args, _ := json.Marshal(c.args.String())
		m.ToolCalls = append(m.ToolCalls, chatToolCall{ID: c.id, Type: "function", Function: chatFunction{Name: c.name, Arguments: args}})
	}
	return &chatRecord{ID: s.id, Created: s.created, Usage: s.usage, Object: "chat.completion",
		Choices: []chatChoice{{Message: m}}}
}

func (s *chatStream) traceID(id string) string {
	if id != "" {
		return id
	}
	return s.hash.id("openai_chat")
}

func chatStreamFromSSE(file string, line int, body string) (*chatStream, *LineError) {
	st := newChatStream(line)
	var lerr *LineError
	eachSSEData(body, func(n int, data string) bool {
		var rec chatRecord
		if lerr = decodeLine(file, line+n-1, []byte(data), &rec); lerr != nil {
			return false
		}
		st.add(&rec, []byte(data))
		return true
	})
	return st, lerr
}

// ---------------------------------------------------------------------------
// Shared by the conversation importers of this package (openai_chat,
// openai_responses, anthropic, inspect): reading JSON values from JSONL,
// arrays, documents and SSE; sniffing a file's shape for detection; and
// building steps from chat turns with one set of rules.

// jsonValue is one top-level JSON value of a file.
type jsonValue struct {
	line int    // 1-based line where the value starts
	path string // "[3]" for an element of a top-level array; "body" inside an HTTP recording
	raw  []byte
	// cassette marks one interaction of a VCR cassette.
	cassette bool
}

// emitParsed emits the trace read from v, or its error with the path put
// under v's own place in the file (an array element, an HTTP body).
func (v jsonValue) emitParsed(emit Emit, t *model.Trace, lerr *LineError) error {
	if lerr != nil {
		lerr.Path = joinPath(v.path, lerr.Path)
		return emit(Record{Line: v.line, Err: lerr})
	}
	return emit(Record{Line: v.line, Trace: t})
}

// jsonValues calls fn for every top-level value of r: each line of JSONL,
// each element of a top-level array, each document of a (pretty-printed)
// JSON file, or each "data:" payload of SSE text. A recorded HTTP exchange
// {status, headers, body} stands for its body. Elements are decoded one at
// a time, so memory stays bounded by the largest value.
func jsonValues(ctx context.Context, r io.Reader, file string, fn func(jsonValue) error) error {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 64<<10 {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	if bom, _ := br.Peek(3); string(bom) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	line := 1
	var first byte
	for {
		b, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if b == '\n' {
			line++
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			br.UnreadByte()
			first = b
			break
		}
	}
	base := line - 1 // lines consumed before the first value
	if first == 'i' {
		if head, _ := br.Peek(len("interactions:")); string(head) == "interactions:" {
			return cassetteValues(br, file, fn)
		}
	}
	switch {
	case first == 'e' || first == 'd' || first == ':':
		return lines(ctx, br, func(n int, l []byte) error {
			data, ok := bytes.CutPrefix(l, []byte("data:"))
			if !ok {
				return nil
			}
			data = bytes.TrimSpace(data)
			if len(data) == 0 || string(data) == "[DONE]" {
				return nil
			}
			return fn(jsonValue{line: base + n, raw: data})
		})
	case first == '{' && firstLineIsJSON(br):
		return lines(ctx, br, func(n int, l []byte) error {
			return emitValue(jsonValue{line: base + n, raw: l}, fn)
		})
	}
	lc := &lineCounter{r: br, base: base}
	dec := json.NewDecoder(lc)
	if first == '[' {
		if _, err := dec.Token(); err != nil {
			return docError(file, lc, err)
		}
		for i := 0; dec.More(); i++ {
			if i%256 == 255 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return docError(file, lc, err)
			}
			v := jsonValue{line: lc.lineAt(dec.InputOffset() - int64(len(raw))), path: "[" + strconv.Itoa(i) + "]", raw: raw}
			if err := emitValue(v, fn); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return docError(file, lc, err)
		}
		return nil
	}
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return docError(file, lc, err)
		}
		v := jsonValue{line: lc.lineAt(dec.InputOffset() - int64(len(raw))), raw: raw}
		if err := emitValue(v, fn); err != nil {
			return err
		}
	}
}

// firstLineIsJSON reports whether the buffered first line is a whole JSON
// value, which tells JSONL from a pretty-printed document.
func firstLineIsJSON(br *bufio.Reader) bool {
	buf, _ := br.Peek(br.Size())
	i := bytes.IndexByte(buf, '\n')
	if i < 0 {
		return false
	}
	return json.Valid(buf[:i])
}

// emitValue passes v to fn, or the body of v when v is a recorded HTTP
// response {status, headers, body} (the body a JSON document or SSE text).
func emitValue(v jsonValue, fn func(jsonValue) error) error {
	if len(v.raw) == 0 || v.raw[0] != '{' || !bytes.Contains(v.raw, []byte(`"body"`)) {
		return fn(v)
	}
	var env struct {
		Status json.RawMessage `json:"status"`
		Body   json.RawMessage `json:"body"`
	}
	if json.Unmarshal(v.raw, &env) != nil || env.Status == nil || len(env.Body) == 0 {
		return fn(v)
	}
	body := []byte(env.Body)
	if body[0] == '"' {
		var s string
		if json.Unmarshal(body, &s) != nil {
			return fn(v)
		}
		body = []byte(strings.TrimSpace(s))
	}
	path := joinPath(v.path, "body")
	if len(body) > 0 && body[0] != '{' && body[0] != '[' {
		var err error
		eachSSEData(string(body), func(_ int, data string) bool {
			err = fn(jsonValue{line: v.line, path: path, raw: []byte(data)})
			return err == nil
		})
		return err
	}
	return fn(jsonValue{line: v.line, path: path, raw: body})
}

// eachSSEData calls fn with the payload of every "data:" line of SSE text
// (n is the 1-based line in text), skipping OpenAI's "[DONE]" sentinel,
// until fn returns false.
func eachSSEData(text string, fn func(n int, data string) bool) {
	for n := 1; text != ""; n++ {
		var l string
		l, text, _ = strings.Cut(text, "\n")
		data, ok := strings.CutPrefix(strings.TrimSpace(l), "data:")
		if !ok {
			continue
		}
		if data = strings.TrimSpace(data); data == "" || data == "[DONE]" {
			continue
		}
		if !fn(n, data) {
			return
		}
	}
}

func docError(file string, lc *lineCounter, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &LineError{File: file, Line: lc.lineAt(se.Offset), Msg: "invalid JSON: " + se.Error()}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &LineError{File: file, Line: lc.lineAt(lc.read), Msg: "invalid JSON: unexpected end of input (truncated file?)"}
	}
	return fmt.Errorf("%s: %w", file, err)
}

// lineCounter counts the lines of what a json.Decoder reads so a value's
// byte offset can be turned into a line. It keeps only the newlines read
// ahead of the last offset asked about, so its memory is bounded by the
// decoder's buffer.
type lineCounter struct {
	r     io.Reader
	base  int     // lines before the first byte read
	read  int64   // bytes read
	nl    []int64 // offsets of newlines at or after the last asked offset
	lines int     // newlines before the last asked offset
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := 0, p[:n]; ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		c.nl = append(c.nl, c.read+int64(i+j))
		i += j + 1
	}
	c.read += int64(n)
	return n, err
}

// lineAt is the 1-based line of byte offset off; offsets asked must not
// decrease.
func (c *lineCounter) lineAt(off int64) int {
	i := 0
	for i < len(c.nl) && c.nl[i] < off {
		i++
	}
	c.lines += i
	c.nl = append(c.nl[:0], c.nl[i:]...)
	return c.base + c.lines + 1
}

// shape is what a detector can tell from the first bytes of a file without
// decoding it whole: the key paths seen ("request.messages.role", arrays
// collapsed) and "path=value" for short string values. JSONL lines, array
// elements and SSE payloads are merged; a recorded HTTP exchange adds the
// keys of its body.
type shape struct{ seen map[string]bool }

func (s shape) has(k string) bool { return s.seen[k] }

// sniffBudget bounds the tokens read, so detecting a large file stays cheap.
const sniffBudget = 20000

func sniff(head []byte) shape {
	s := shape{seen: map[string]bool{}}
	head = bytes.TrimSpace(stripBOM(head))
	if len(head) > 0 && (head[0] == 'e' || head[0] == 'd' || head[0] == ':') {
		n := 0
		eachSSEData(string(head), func(_ int, data string) bool {
			sniffInto(s, []byte(data), 0)
			n++
			return n < 64
		})
		return s
	}
	sniffInto(s, head, 0)
	return s
}

func sniffInto(s shape, data []byte, depth int) {
	type frame struct {
		obj     bool
		key     string
		wantKey bool
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var st []frame
	var body string
	path := func() string {
		var b strings.Builder
		for _, f := range st {
			if f.obj && f.key != "" {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			}
		}
		return b.String()
	}
	for range sniffBudget {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if n := len(st); n > 0 && st[n-1].obj && st[n-1].wantKey {
			if k, ok := tok.(string); ok {
				st[n-1].key, st[n-1].wantKey = k, false
				if len(st) <= 6 {
					s.seen[path()] = true
				}
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			st = append(st, frame{obj: tok == json.Delim('{'), wantKey: tok == json.Delim('{')})
			continue
		case json.Delim('}'), json.Delim(']'):
			st = st[:len(st)-1]
		default:
			if v, ok := tok.(string); ok && len(st) > 0 && st[len(st)-1].obj {
				if len(v) <= 64 && len(st) <= 6 {
					s.seen[path()+"="+v] = true
				}
				if len(st) == 1 && st[0].key == "body" {
					body = v
				}
			}
		}
		if n := len(st); n > 0 && st[n-1].obj {
			st[n-1].wantKey = true
		}
	}
	if body != "" && depth == 0 && (s.has("status") || s.has("headers")) {
		if b := strings.TrimSpace(body); b != "" && (b[0] == '{' || b[0] == '[') {
			sniffInto(s, []byte(b), 1)
		} else {
			eachSSEData(b, func(_ int, data string) bool {
				sniffInto(s, []byte(data), 1)
				return true
			})
		}
	}
}

// convBuilder turns chat turns into steps with the rules every
// conversation importer shares: assistant text in a turn that calls tools
// (or is followed by tool results) is reasoning; text in a turn with no
// call that the user answers is a clarification when it asks a question,
// else an answer; the last turn's text is the answer.
type convBuilder struct {
	t          *model.Trace
	open       bool // an assistant turn is open
	turnCalls  bool // the open turn called a tool
	turnTexts  []int
	lastText   int // index of the step say() last wrote, -1 after any other step
	callTool   map[string]string
	unanswered []string // call ids without a result, in call order
	calls      int
}

func newConvBuilder(t *model.Trace) *convBuilder {
	return &convBuilder{t: t, lastText: -1, callTool: map[string]string{}}
}

type turnEnd int

const (
	endByUser turnEnd = iota
	endByResult
	endOfTrace
)

func (b *convBuilder) close(why turnEnd) {
	if !b.open {
		return
	}
	for _, i := range b.turnTexts {
		s := &b.t.Steps[i]
		switch {
		case b.turnCalls || why == endByResult:
			s.Kind = model.KindReasoning
		case why == endByUser && strings.Contains(s.Text, "?"):
			s.Kind = model.KindClarification
		default:
			s.Kind = model.KindAnswer
		}
	}
	b.open, b.turnCalls, b.turnTexts, b.lastText = false, false, b.turnTexts[:0], -1
}

func (b *convBuilder) add(s model.Step) {
	b.t.Steps = append(b.t.Steps, s)
	b.lastText = -1
}

// user adds the user's words; the first become the trace's question.
func (b *convBuilder) user(text string) {
	b.close(endByUser)
	if text == "" {
		return
	}
	if b.t.Question == "" {
		b.t.Question = text
	}
	b.add(model.Step{Kind: model.KindUser, Text: text})
}

// say adds assistant text; consecutive text joins into one step.
func (b *convBuilder) say(text string) {
	if text == "" {
		return
	}
	b.open = true
	if b.lastText >= 0 {
		b.t.Steps[b.lastText].Text += "\n" + text
		return
	}
	b.add(model.Step{Kind: model.KindAnswer, Text: text})
	b.lastText = len(b.t.Steps) - 1
	b.turnTexts = append(b.turnTexts, b.lastText)
}

func (b *convBuilder) think(text string) {
	if text == "" {
		return
	}
	b.open = true
	b.add(model.Step{Kind: model.KindReasoning, Text: text})
}

// call adds a tool call; a call with no id gets "call_<n>" so a result
// given in order can point at it.
func (b *convBuilder) call(id, tool string, args json.RawMessage) {
	b.open, b.turnCalls = true, true
	b.calls++
	if id == "" {
		id = "call_" + strconv.Itoa(b.calls)
	}
	b.callTool[id] = tool
	b.unanswered = append(b.unanswered, id)
	b.add(model.Step{Kind: model.KindToolCall, ID: id, Tool: tool, Args: args})
}

// result adds a tool result; with no call id it answers the oldest
// unanswered call.
func (b *convBuilder) result(callID, tool string, result json.RawMessage, isError bool) {
	b.close(endByResult)
	if callID == "" && len(b.unanswered) > 0 {
		callID = b.unanswered[0]
	}
	for i, id := range b.unanswered {
		if id == callID {
			b.unanswered = append(b.unanswered[:i], b.unanswered[i+1:]...)
			break
		}
	}
	if tool == "" {
		tool = b.callTool[callID]
	}
	b.add(model.Step{Kind: model.KindToolResult, CallID: callID, Tool: tool, Result: result, IsError: isError})
}

func (b *convBuilder) finish() { b.close(endOfTrace) }

var emptyArgs = json.RawMessage(`{}`)

// convArgs makes call arguments a JSON object: an object is kept, a JSON
// string holding an object is decoded, anything else becomes
// {"input": value}.
func convArgs(raw json.RawMessage) json.RawMessage {
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return emptyArgs
	}
	switch raw[0] {
	case '{':
		return compactJSON(raw)
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return emptyArgs
		}
		inner := strings.TrimSpace(s)
		switch {
		case inner == "":
			return emptyArgs
		case inner[0] == '{' && json.Valid([]byte(inner)):
			return compactJSON([]byte(inner))
		case json.Valid([]byte(inner)):
			return wrapInput(compactJSON([]byte(inner)))
		}
		q, _ := json.Marshal(s)
		return wrapInput(q)
	}
	return wrapInput(compactJSON(raw))
}

func wrapInput(v []byte) json.RawMessage {
	return json.RawMessage(`{"input":` + string(v) + `}`)
}

// convResult keeps tool output text that is JSON as JSON, else makes it a
// JSON string.
func convResult(text string) json.RawMessage {
	if t := strings.TrimSpace(text); t != "" && json.Valid([]byte(t)) {
		return compactJSON([]byte(t))
	}
	q, _ := json.Marshal(text)
	return q
}

func compactJSON(raw []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		q, _ := json.Marshal(string(raw))
		return q
	}
	return buf.Bytes()
}

func trimJSON(raw []byte) []byte { return bytes.TrimSpace(raw) }

// partsText reads message content given as a string, null, or an array of
// parts ({type:text|input_text|output_text, text} or plain strings); parts
// of other types (images, audio, files) carry no text and are skipped.
func partsText(raw json.RawMessage, path string) (string, *LineError) {
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", &LineError{Path: path, Msg: "invalid JSON string"}
		}
		return s, nil
	case '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", &LineError{Path: path, Msg: "expected an array of content parts"}
		}
		var texts []string
		for i, p := range parts {
			p = trimJSON(p)
			if len(p) > 0 && p[0] == '"' {
				var s string
				json.Unmarshal(p, &s)
				texts = append(texts, s)
				continue
			}
			var part struct {
				Type    string `json:"type"`
				Text    any    `json:"text"`
				Refusal string `json:"refusal"`
			}
			if len(p) == 0 || p[0] != '{' || json.Unmarshal(p, &part) != nil {
				return "", &LineError{Path: fmt.Sprintf("%s[%d]", path, i), Msg: "expected a content part object {type, text} or a string"}
			}
			switch part.Type {
			case "text", "input_text", "output_text", "":
				s, ok := part.Text.(string)
				if !ok && part.Text != nil {
					return "", &LineError{Path: fmt.Sprintf("%s[%d].text", path, i), Msg: "expected a string"}
				}
				if s != "" {
					texts = append(texts, s)
				}
			case "refusal":
				texts = append(texts, part.Refusal)
			}
		}
		return strings.Join(texts, "\n"), nil
	}
	return "", &LineError{Path: path, Msg: "expected a string or an array of content parts"}
}

// addContract records a tool the model saw, once per name, MCP-shaped,
// keeping the source's own tool object as Raw.
func addContract(t *model.Trace, tc model.ToolContract, raw []byte) {
	for _, have := range t.Tools {
		if have.Name == tc.Name {
			return
		}
	}
	tc.InputSchema = schemaOrNil(tc.InputSchema)
	tc.OutputSchema = schemaOrNil(tc.OutputSchema)
	tc.Annotations = schemaOrNil(tc.Annotations)
	tc.Raw = compactJSON(raw)
	t.Tools = append(t.Tools, tc)
}

func schemaOrNil(raw json.RawMessage) json.RawMessage {
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return compactJSON(raw)
}

// hashID is the id of a record that carries none: stable across
// re-imports of the same bytes.
func hashID(format string, raw []byte) string {
	sum := sha256.Sum256(raw)
	return format + "-" + hex.EncodeToString(sum[:])[:12]
}

// recordHash is hashID over a record read in pieces (a stream of events).
type recordHash struct{ h hash.Hash }

func (r *recordHash) add(p []byte) {
	if r.h == nil {
		r.h = sha256.New()
	}
	r.h.Write(p)
	r.h.Write([]byte{'\n'})
}

func (r *recordHash) id(format string) string {
	if r.h == nil {
		r.h = sha256.New()
	}
	return format + "-" + hex.EncodeToString(r.h.Sum(nil))[:12]
}

func unixRFC3339(sec float64) string {
	whole := int64(sec)
	return time.Unix(whole, int64((sec-float64(whole))*1e9)).UTC().Format(time.RFC3339Nano)
}

func joinPath(prefix, path string) string {
	switch {
	case prefix == "":
		return path
	case path == "":
		return prefix
	case path[0] == '[':
		return prefix + path
	}
	return prefix + "." + path
}

// VCR cassettes (vcrpy and its ports record HTTP exchanges in YAML:
// interactions[].request.{uri, body} and .response.body.string, the body a
// JSON string, SSE text, or gzip bytes as !!binary) are read as one
// {request, response} value per interaction. A cassette records one
// conversation, so an interaction whose trace is a prefix of the next one's
// is not emitted again (see prefixMerger).

// isCassette reports whether head is a VCR cassette calling an API whose
// URI path ends with one of suffixes.
func isCassette(head []byte, suffixes ...string) bool {
	if !bytes.HasPrefix(head, []byte("interactions:")) {
		return false
	}
	for rest := head; len(rest) > 0; {
		i := bytes.Index(rest, []byte("uri: "))
		if i < 0 {
			return false
		}
		rest = rest[i+5:]
		uri, _, _ := bytes.Cut(rest, []byte("\n"))
		uri, _, _ = bytes.Cut(bytes.TrimSpace(uri), []byte("?"))
		for _, s := range suffixes {
			if bytes.HasSuffix(uri, []byte(s)) {
				return true
			}
		}
	}
	return false
}

type cassette struct {
	Interactions []yaml.Node `yaml:"interactions"`
}

type cassetteInteraction struct {
	Request struct {
		URI  string `yaml:"uri"`
		Body string `yaml:"body"`
	} `yaml:"request"`
	Response struct {
		Body struct {
			String string `yaml:"string"`
		} `yaml:"body"`
	} `yaml:"response"`
}

// cassetteValues reads a cassette whole (cassettes are test recordings,
// small) and calls fn with {"request": body, "response": body} per
// interaction.
func cassetteValues(r io.Reader, file string, fn func(jsonValue) error) error {
	data, err := io.ReadAll(io.LimitReader(r, 256<<20))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	var c cassette
	if err := yaml.Unmarshal(data, &c); err != nil {
		return &LineError{File: file, Msg: "invalid VCR cassette YAML: " + err.Error()}
	}
	for i, node := range c.Interactions {
		path := fmt.Sprintf("interactions[%d]", i)
		var in cassetteInteraction
		if err := node.Decode(&in); err != nil {
			return &LineError{File: file, Line: node.Line, Path: path, Msg: "expected {request: {uri, body}, response: {body: {string}}}: " + err.Error()}
		}
		req := cassetteBody(in.Request.Body)
		resp := cassetteBody(in.Response.Body.String)
		if resp == nil && strings.TrimSpace(in.Response.Body.String) != "" {
			resp, _ = json.Marshal(gunzipText(in.Response.Body.String)) // SSE text
		}
		if req == nil {
			req = json.RawMessage("null")
		}
		if resp == nil {
			resp = json.RawMessage("null")
		}
		raw := []byte(`{"request":` + string(req) + `,"response":` + string(resp) + `}`)
		if err := fn(jsonValue{line: node.Line, path: path, raw: raw, cassette: true}); err != nil {
			return err
		}
	}
	return nil
}

// cassetteBody is a recorded body as JSON, or nil when it is not JSON.
func cassetteBody(s string) json.RawMessage {
	t := strings.TrimSpace(gunzipText(s))
	if t == "" || !json.Valid([]byte(t)) {
		return nil
	}
	return compactJSON([]byte(t))
}

// gunzipText undoes a gzip Content-Encoding kept in a recorded body.
func gunzipText(s string) string {
	if !strings.HasPrefix(s, "\x1f\x8b") {
		return s
	}
	zr, err := gzip.NewReader(strings.NewReader(s))
	if err != nil {
		return s
	}
	b, err := io.ReadAll(io.LimitReader(zr, 256<<20))
	if err != nil {
		return s
	}
	return string(b)
}

// prefixMerger holds back the trace of a logged API call ({request,
// response} record or cassette interaction) until the next record shows
// whether it is only the start of the same conversation (an agent run logs
// one call per turn, each request repeating the history): a trace whose
// steps the next one repeats, or a response the next request continues
// (Responses API previous_response_id), is folded into the next one, its
// usage added, so the conversation is one trace.
type prefixMerger struct {
	emit Emit
	held *Record
}

// add takes the next record; prev is the id of the response its request
// continues, if any.
func (m *prefixMerger) add(r Record, prev string) error {
	if h := m.held; h != nil && r.Trace != nil {
		switch {
		case prev != "" && prev == h.Trace.TraceID:
			r.Trace.Steps = append(append([]model.Step(nil), h.Trace.Steps...), r.Trace.Steps...)
			tools := map[string]string{}
			for i, st := range r.Trace.Steps {
				if st.Kind == model.KindToolCall {
					tools[st.ID] = st.Tool
				} else if st.Kind == model.KindToolResult && st.Tool == "" {
					r.Trace.Steps[i].Tool = tools[st.CallID]
				}
			}
			foldInto(r.Trace, h.Trace)
			r.Line, m.held = h.Line, nil
		case stepsPrefix(h.Trace.Steps, r.Trace.Steps):
			foldInto(r.Trace, h.Trace)
			r.Line, m.held = h.Line, nil
		}
	}
	if m.held != nil {
		if err := m.emit(*m.held); err != nil {
			return err
		}
		m.held = nil
	}
	if r.Trace == nil {
		return m.emit(r)
	}
	m.held = &r
	return nil
}

// foldInto adds what an earlier part of the conversation carried to t.
func foldInto(t, earlier *model.Trace) {
	t.Usage.InputTokens += earlier.Usage.InputTokens
	t.Usage.OutputTokens += earlier.Usage.OutputTokens
	t.Usage.USD += earlier.Usage.USD
	if earlier.StartedAt != "" {
		t.StartedAt = earlier.StartedAt
	}
	if t.Question == "" {
		t.Question = earlier.Question
	}
	t.AsUser = firstNonEmpty(t.AsUser, earlier.AsUser)
	t.Server = firstNonEmpty(t.Server, earlier.Server)
	for _, tc := range earlier.Tools {
		addContract(t, tc, tc.Raw)
	}
	t.Source.Line = earlier.Source.Line
}

func (m *prefixMerger) flush() error {
	if m.held == nil {
		return nil
	}
	r := *m.held
	m.held = nil
	return m.emit(r)
}

// stepsPrefix reports whether a is b's beginning (the kind of an open
// turn's text may change once the conversation goes on, so kinds of text
// steps are not compared).
func stepsPrefix(a, b []model.Step) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if (x.Kind != y.Kind && (x.Text == "" || y.Text == "")) || x.Text != y.Text || x.Tool != y.Tool ||
			x.ID != y.ID || x.CallID != y.CallID || !bytes.Equal(x.Args, y.Args) || !bytes.Equal(x.Result, y.Result) {
			return false
		}
	}
	return true
}
