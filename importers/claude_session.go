package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tracelab-dev/tracelab/model"
)

// Claude Code writes a session as JSONL under ~/.claude/projects/: one
// line per event, {type: user|assistant|summary|system…, sessionId, uuid,
// parentUuid, timestamp, message: an Anthropic message}; an assistant
// message is split over several lines (one per content block) that share
// message.id and repeat its usage. The Claude Agent SDK streams the same
// messages as {type: system (subtype init: model, tools) | assistant |
// user | result (total_cost_usd, usage, result, is_error), session_id,
// parent_tool_use_id}, as JSONL, a JSON array, or a YAML recording with a
// messages: list. One trace per session.
func init() {
	register(Format{
		Name:     "claude_code",
		Priority: 25,
		Doc:      "Claude Code session JSONL (~/.claude/projects/*/<session>.jsonl: user/assistant events with sessionId, uuid, message); emitted by Claude Code",
		Detect:   detectClaudeCode,
		Parse: func(ctx context.Context, r io.Reader, file string, emit Emit) error {
			return parseClaudeSession(ctx, r, file, "claude_code", emit)
		},
	})
	register(Format{
		Name:     "claude_agent_sdk",
		Priority: 25,
		Doc:      "Claude Agent SDK message stream (system init, assistant, user, result with total_cost_usd; JSONL, JSON array or a YAML messages: recording); emitted by claude-agent-sdk (Python, TypeScript) and claude -p --output-format stream-json",
		Detect:   detectClaudeAgentSDK,
		Parse: func(ctx context.Context, r io.Reader, file string, emit Emit) error {
			return parseClaudeSession(ctx, r, file, "claude_agent_sdk", emit)
		},
	})
}

// headLines returns up to n non-blank lines of head.
func headLines(head []byte, n int) [][]byte {
	var out [][]byte
	for len(head) > 0 && len(out) < n {
		line, rest, _ := bytes.Cut(head, []byte("\n"))
		head = rest
		if line = bytes.TrimSpace(line); len(line) > 0 {
			out = append(out, line)
		}
	}
	return out
}

func detectClaudeCode(head []byte) bool {
	for _, line := range headLines(head, 8) {
		if hasKeys(line, "type", "sessionId", "uuid") || hasKeys(line, "type", "summary", "leafUuid") {
			return true
		}
	}
	return false
}

func detectClaudeAgentSDK(head []byte) bool {
	if bytes.HasPrefix(head, []byte("messages:")) {
		return bytes.Contains(head, []byte("session_id:")) &&
			(bytes.Contains(head, []byte("parent_tool_use_id:")) || bytes.Contains(head, []byte("total_cost_usd:")))
	}
	m := headObject(head)
	if claudeTransportHead(head, m) { // claude_transport.go
		return true
	}
	if m == nil || m["session_id"] == nil || m["type"] == nil {
		return false
	}
	var typ string
	_ = json.Unmarshal(m["type"], &typ)
	switch typ {
	case "system":
		return m["subtype"] != nil
	case "assistant", "user":
		_, ok := m["parent_tool_use_id"]
		return ok && m["message"] != nil
	case "result":
		return m["total_cost_usd"] != nil || m["num_turns"] != nil
	}
	return false
}

type claudeSession struct {
	*runAcc
	id      string
	counted map[string]bool // message ids whose usage was counted
	result  bool            // a result message gave the run's totals
	outcome model.Outcome
	meta    map[string]any
	resumes []string // the ids of the sessions that resumed it
}

func parseClaudeSession(ctx context.Context, r io.Reader, file, format string, emit Emit) error {
	p := &claudeParser{file: file, format: format, emit: emit, open: newOpenRuns[*claudeSession](),
		owner: map[string]string{}, alias: map[string]string{}}
	br := asBufio(r)
	if head, _ := br.Peek(16); bytes.HasPrefix(head, []byte("messages:")) {
		if err := claudeYAML(ctx, br, file, p.handle); err != nil {
			return err
		}
	} else {
		err := genRecords(ctx, br, func(n int, raw []byte) error {
			p.open.next()
			err := eachObject(file, n, raw, emit, "a session event object", func(_ string, m map[string]any) string {
				if events := claudeTransport(m); events != nil {
					for _, e := range events {
						p.handle(n, e)
					}
					return ""
				}
				if gStr(m, "type") == "" {
					return "expected a session event object with a type (user, assistant, system, result, summary)"
				}
				p.handle(n, m)
				return ""
			})
			if err == nil {
				err = p.flush(false)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return p.flush(true)
}

type claudeParser struct {
	file, format string
	emit         Emit
	open         *openRuns[*claudeSession] // by session id
	// A resumed session gets a new session id, and its first event's
	// parentUuid is the last event of the session it resumes: one
	// conversation, so one trace under the first id (README: "Resumed
	// sessions"). owner maps an event's uuid to its trace's session id,
	// alias a resuming session id to that trace's.
	owner, alias map[string]string
}

// handle routes one event to its session.
func (p *claudeParser) handle(n int, m map[string]any) {
	sid := p.resumed(m)
	latest, latestID, isOpen := p.open.latest()
	if sid == "" && isOpen {
		sid = latestID // a summary line belongs to the session around it
	}
	s, ok := p.open.get(sid)
	if !ok && isOpen && latestID == "" && len(p.open.order) == 1 {
		// The lines before the first session id (a summary) start it.
		s, ok = latest, true
		s.id = sid
		p.open.rekey("", sid)
		p.open.get(sid)
	}
	if !ok {
		s = &claudeSession{runAcc: newRunAcc(n), id: sid, counted: map[string]bool{}, meta: map[string]any{}}
		p.open.add(sid, s)
	}
	s.event(m)
}

// resumed is the session id an event's trace goes under: its own, or,
// for a session that resumes one still open, that one's.
func (p *claudeParser) resumed(m map[string]any) string {
	sid := gStr(m, "sessionId", "session_id")
	if a, ok := p.alias[sid]; ok {
		sid = a
	} else if parent := gStr(m, "parentUuid"); parent != "" && sid != "" {
		if o, ok := p.owner[parent]; ok && o != sid {
			if s, open := p.open.get(o); open {
				if _, own := p.open.byKey[sid]; !own {
					p.alias[sid] = o
					s.resumes = append(s.resumes, sid)
					sid = o
				}
			}
		}
	}
	if u := gStr(m, "uuid"); u != "" && sid != "" {
		p.owner[u] = sid
	}
	return sid
}

// flush emits the sessions with no event for a while (all at the end): a
// file holding many sessions is read in bounded memory.
func (p *claudeParser) flush(all bool) error {
	for _, s := range p.open.idle(all) {
		if err := p.emitSession(s); err != nil {
			return err
		}
	}
	return nil
}

func (p *claudeParser) emitSession(s *claudeSession) error {
	t := &model.Trace{TraceID: s.id, Outcome: s.outcome}
	s.trace(t)
	if len(s.meta) > 0 {
		if t.Metadata == nil {
			t.Metadata = map[string]any{}
		}
		for k, v := range s.meta {
			t.Metadata[k] = v
		}
	}
	if len(s.resumes) > 0 {
		if t.Metadata == nil {
			t.Metadata = map[string]any{}
		}
		t.Metadata["resumed_as"] = s.resumes
	}
	if len(t.Steps) == 0 {
		return p.emit(Record{Line: s.line, Err: &LineError{File: p.file, Line: s.line,
			Msg: "session holds no user or assistant message: no conversation to import"}})
	}
	if t.TraceID == "" {
		t.TraceID = genID(p.format, []byte(p.file))
	}
	t.Source = model.Source{File: p.file, Format: p.format, Line: s.line}
	return p.emit(Record{Line: s.line, Trace: t})
}

// claudeYAML reads a YAML recording {messages: [event | {type, response:
// event}]} (the Claude Agent SDK's test cassettes) whole; recordings are
// small, and the record cap (--max-record) is the file's.
func claudeYAML(ctx context.Context, r io.Reader, file string, handle func(int, map[string]any)) error {
	data, err := readWhole(ctx, r, file, "YAML recording")
	if err != nil {
		return err
	}
	var doc struct {
		Messages []yaml.Node `yaml:"messages"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return &LineError{File: file, Msg: "invalid YAML recording: " + err.Error()}
	}
	for i, node := range doc.Messages {
		v, err := yamlJSON(&node)
		if err != nil {
			return &LineError{File: file, Line: node.Line, Path: fmt.Sprintf("messages[%d]", i), Msg: err.Error()}
		}
		m := asObj(v)
		if inner := gObj(m, "response"); inner != nil && gStr(m, "type") != "assistant" && gStr(m, "type") != "user" {
			if gStr(inner, "type") == "" {
				continue // a control response (the CLI's initialize answer), not a message
			}
			m = inner
		}
		if gStr(m, "type") == "" {
			continue
		}
		handle(node.Line, m)
	}
	return nil
}

// yamlJSON decodes a YAML node into the values genDecode would give for the
// same JSON (numbers as json.Number).
func yamlJSON(node *yaml.Node) (any, error) {
	var v any
	if err := node.Decode(&v); err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("not representable as JSON: %v", err)
	}
	return genDecode(b)
}

// event folds one session event into the run.
func (s *claudeSession) event(m map[string]any) {
	s.span(runTime(m["timestamp"]), runTime(m["timestamp"]))
	switch typ := gStr(m, "type"); typ {
	case "user", "assistant":
		if b, _ := m["isMeta"].(bool); b {
			return // a caveat Claude Code adds around local commands
		}
		msg := gObj(m, "message")
		if msg == nil {
			return
		}
		msgs, _ := genMessages(msg, typ)
		for _, gm := range msgs {
			s.c.message(gm)
		}
		if typ != "assistant" {
			return
		}
		s.setModel(gStr(msg, "model"))
		id := gStr(msg, "id")
		if u := gObj(msg, "usage"); u != nil && !s.result && (id == "" || !s.counted[id]) {
			s.counted[id] = true
			s.usage(anthropicInput(u), gInt(u["output_tokens"]), gFloat(m["costUSD"]))
		}
	case "result":
		s.result = true
		s.in, s.out, s.usd = 0, 0, 0
		if u := gObj(m, "usage"); u != nil {
			s.usage(anthropicInput(u), gInt(u["output_tokens"]), 0)
		}
		s.usage(0, 0, gFloat(m["total_cost_usd"]))
		if d := gInt(m["duration_ms"]); d > 0 {
			s.meta["duration_ms"] = d
		}
		if b, _ := m["is_error"].(bool); b || strings.HasPrefix(gStr(m, "subtype"), "error") {
			s.outcome = model.OutcomeFailure
		}
		if mu := gObj(m, "modelUsage"); len(mu) == 1 {
			for name := range mu {
				s.setModel(name)
			}
		}
	case "system":
		if gStr(m, "subtype") == "init" {
			s.setModel(gStr(m, "model"))
			if cwd := gStr(m, "cwd"); cwd != "" {
				s.meta["cwd"] = cwd
			}
		}
	case "summary":
		if sum := gStr(m, "summary"); sum != "" {
			s.meta["summary"] = sum
		}
	}
	if cwd := gStr(m, "cwd"); cwd != "" {
		s.meta["cwd"] = cwd
	}
	if b := gStr(m, "gitBranch"); b != "" {
		s.meta["git_branch"] = b
	}
}

// anthropicInput is all the prompt tokens of an Anthropic usage: fresh,
// written to the cache and read from it.
func anthropicInput(u map[string]any) int64 {
	return gInt(u["input_tokens"]) + gInt(u["cache_creation_input_tokens"]) + gInt(u["cache_read_input_tokens"])
}
