package importers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
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
	registerCassetteAPI(cassetteAPI{format: "openai_chat", suffixes: []string{"/chat/completions"}, trace: cassetteDecoded(chatTraceOf)})
}

func detectOpenAIChat(head []byte) bool {
	if owner, ok := cassetteFormat(head); ok {
		return owner == "openai_chat"
	}
	if detectLiteLLM(head) { // a LiteLLM log record holds a chat request and response
		return false
	}
	if detectBedrock(head) { // Converse messages have the same roles
		return false
	}
	if detectSWEAgent(head) { // mini-SWE-agent's messages are swe_agent's
		return false
	}
	if ok, anth := bareChat(head); ok {
		return !anth
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
	Index        int         `json:"index"`
	Message      chatMessage `json:"message"`
	Delta        chatMessage `json:"delta"`
	FinishReason *string     `json:"finish_reason"` // a stream's last chunk sets it
}

// chatRecord is every record shape this importer reads, in one struct so
// encoding/json reports wrong types with their path.
type chatRecord struct {
	// cut marks a completion assembled from a stream that ended before a
	// chunk gave its finish_reason.
	cut bool
	// A conversation or a request.
	Messages  []chatMessage     `json:"messages"`
	Tools     []json.RawMessage `json:"tools"`
	Functions []json.RawMessage `json:"functions"`
	User      string            `json:"user"`
	Model     string            `json:"model"`
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
	br, ok := asCassette(r)
	if ok {
		return parseCassette(ctx, br, file, emit)
	}
	if isBareChat(br) {
		return parseBareChat(ctx, br, file, "openai_chat", emit)
	}
	r = br
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
	cut := rec.cut
	t.Model = rec.Model
	switch {
	case rec.Request != nil || len(rec.Response) > 0:
		if rec.Request != nil {
			msgs = rec.Request.Messages
			msgPath = "request.messages"
			tools, functions = rec.Request.Tools, rec.Request.Functions
			t.AsUser = rec.Request.User
			t.Model = rec.Request.Model
		}
		resp, lerr := chatResponse(file, line, rec.Response)
		if lerr != nil {
			return nil, lerr
		}
		if resp != nil {
			cut = resp.cut
			id, created, usage = resp.ID, resp.Created, resp.Usage
			t.Model = firstNonEmpty(resp.Model, t.Model) // the response names the dated model
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
	if cut {
		markIncomplete(t, "the response stream ended before a chunk with finish_reason")
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
	model     string
	content   strings.Builder
	reasoning strings.Builder
	calls     []*chatStreamCall
	usage     *chatUsage
	hash      recordHash
	finished  bool // a chunk gave the choice's finish_reason
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
	if s.model == "" {
		s.model = c.Model
	}
	if c.Usage != nil {
		s.usage = c.Usage
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.finished = true
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
	return &chatRecord{ID: s.id, Created: s.created, Usage: s.usage, Model: s.model, Object: "chat.completion",
		Choices: []chatChoice{{Message: m}}, cut: !s.finished}
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
