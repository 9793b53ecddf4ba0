package importers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// MCP JSON-RPC logs: one message per line as a proxy or inspector records
// it, bare or wrapped ({"direction", "timestamp", "session_id", "message"}),
// or a JSON-RPC batch. One file is one trace (session) unless the lines
// carry a session id.
func init() {
	register(Format{
		Name:     "mcp",
		Priority: 50,
		Doc:      "MCP JSON-RPC logs: tools/list and tools/call messages, one per line, bare or wrapped in {message, timestamp, session_id}",
		Detect:   detectMCP,
		Parse:    parseMCP,
	})
}

func detectMCP(head []byte) bool {
	m := headObject(head)
	if m == nil {
		return false
	}
	if _, ok := m["jsonrpc"]; ok {
		return true
	}
	inner := m["message"]
	if len(inner) > 0 && inner[0] == '"' {
		var s string
		if json.Unmarshal(inner, &s) == nil {
			inner = json.RawMessage(s)
		}
	}
	return hasKeys(inner, "jsonrpc")
}

// mcpMessage is a JSON-RPC 2.0 request, notification or response.
type mcpMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// mcpLine is a logged line: a bare message or a wrapper around one.
type mcpLine struct {
	mcpMessage
	Message    json.RawMessage `json:"message"`
	Timestamp  any             `json:"timestamp"`
	Time       any             `json:"time"`
	TS         any             `json:"ts"`
	SessionID  string          `json:"session_id"`
	SessionID2 string          `json:"sessionId"`
}

type mcpSession struct {
	id      string
	line    int
	last    int
	start   int64
	server  string
	convo   *genConvo
	pending map[string]mcpPending // JSON-RPC id -> request
	seen    map[string]int        // what the log held, for refusals
}

type mcpPending struct {
	method string
	callID string // the tool_call step's id
	tool   string
}

func parseMCP(ctx context.Context, r io.Reader, file string, emit Emit) error {
	p := &mcpParser{file: file, emit: emit, sessions: map[string]*mcpSession{}, sum: sha256.New()}
	rec := 0
	err := genRecords(ctx, r, func(n int, raw []byte) error {
		rec++
		p.sum.Write(raw)
		p.sum.Write([]byte{'\n'})
		if err := p.record(rec, n, raw); err != nil {
			return err
		}
		if rec%rootIdle == 0 {
			return p.flushIdle(rec)
		}
		return nil
	})
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(p.sessions))
	for id := range p.sessions {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return p.sessions[ids[i]].line < p.sessions[ids[j]].line })
	for _, id := range ids {
		if err := p.finish(id); err != nil {
			return err
		}
	}
	return nil
}

type mcpParser struct {
	file     string
	emit     Emit
	sessions map[string]*mcpSession
	sum      hash.Hash
}

func (p *mcpParser) bad(n int, path, format string, args ...any) error {
	return p.emit(Record{Line: n, Err: &LineError{File: p.file, Line: n, Path: path, Msg: fmt.Sprintf(format, args...)}})
}

// record reads one logged line (a message, a wrapped message or a batch).
func (p *mcpParser) record(rec, n int, raw []byte) error {
	return p.entry(rec, n, raw, "", "", nil)
}

// entry reads a message, a wrapper or a batch; sid and ts come from an
// enclosing wrapper, path is the JSON path of raw in the line.
func (p *mcpParser) entry(rec, n int, raw []byte, path, sid string, ts any) error {
	if len(raw) > 0 && raw[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(raw, &batch); err != nil {
			return p.emit(Record{Line: n, Err: jsonError(p.file, n, raw, err)})
		}
		for i, m := range batch {
			if err := p.entry(rec, n, m, fmt.Sprintf("%s[%d].", strings.TrimSuffix(path, "."), i), sid, ts); err != nil {
				return err
			}
		}
		return nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return p.bad(n, strings.TrimSuffix(path, "."), "expected a JSON-RPC message object (or a wrapper with a message field)")
	}
	var l mcpLine
	if lerr := decodeLine(p.file, n, raw, &l); lerr != nil {
		lerr.Path = strings.TrimSuffix(path+lerr.Path, ".")
		return p.emit(Record{Line: n, Err: lerr})
	}
	if l.JSONRPC == "" && len(l.Message) > 0 {
		inner := l.Message
		if inner[0] == '"' {
			var str string
			if json.Unmarshal(inner, &str) == nil {
				inner = json.RawMessage(str)
			}
		}
		return p.entry(rec, n, inner, path+"message.", genFirstString(l.SessionID, l.SessionID2, sid), firstNonNil(l.Timestamp, l.Time, l.TS, ts))
	}
	if l.JSONRPC == "" {
		return p.bad(n, path+"jsonrpc", `required, "2.0" (not a JSON-RPC message)`)
	}
	sid = genFirstString(l.SessionID, l.SessionID2, sid)
	s := p.sessions[sid]
	if s == nil {
		s = &mcpSession{id: sid, line: n, convo: newGenConvo(), pending: map[string]mcpPending{}, seen: map[string]int{}}
		p.sessions[sid] = s
	}
	s.last = rec
	if t := mcpTime(firstNonNil(l.Timestamp, l.Time, l.TS, ts)); t > 0 && (s.start == 0 || t < s.start) {
		s.start = t
	}
	return p.message(s, n, path, l.mcpMessage)
}

// mcpTime reads an RFC 3339 time or unix seconds / milliseconds.
func mcpTime(v any) int64 {
	switch x := v.(type) {
	case string:
		return genParseTime(x)
	case float64:
		if x > 1e12 {
			return int64(x * 1e6) // milliseconds
		}
		return int64(x * 1e9)
	}
	return 0
}

func (p *mcpParser) message(s *mcpSession, n int, path string, m mcpMessage) error {
	id := string(bytes.TrimSpace(m.ID))
	switch {
	case m.Method != "" && id != "" && id != "null":
		s.seen[m.Method+" request"]++
		switch m.Method {
		case "tools/call":
			var params struct {
				Name      string `json:"name"`
				Arguments any    `json:"arguments"`
			}
			if len(m.Params) > 0 {
				if err := json.Unmarshal(m.Params, &params); err != nil {
					return p.bad(n, path+"params", "expected {name, arguments}: %v", err)
				}
			}
			if params.Name == "" {
				return p.bad(n, path+"params.name", "required on a tools/call request")
			}
			if a := params.Arguments; a != nil {
				if _, ok := a.(map[string]any); !ok {
					return p.bad(n, path+"params.arguments", "expected an object of arguments")
				}
			}
			callID := mcpIDString(m.ID)
			for i := 2; s.convo.hasCall(callID); i++ {
				callID = mcpIDString(m.ID) + "#" + strconv.Itoa(i) // an id reused later in the session
			}
			s.convo.call(callID, params.Name, genArgs(params.Arguments))
			s.pending[id] = mcpPending{method: m.Method, callID: callID, tool: params.Name}
		default:
			s.pending[id] = mcpPending{method: m.Method}
		}
	case m.Method != "":
		s.seen[m.Method+" notification"]++
	case id != "" && (len(m.Result) > 0 || m.Error != nil):
		req, ok := s.pending[id]
		delete(s.pending, id)
		if m.Error != nil {
			s.seen["error response"]++
			if !ok || req.method != "tools/call" {
				if ok {
					return nil // a protocol error on another method: not a step
				}
				return p.bad(n, path+"id", "JSON-RPC error %s %q answers id %s, which no request in this log has", m.Error.Code, m.Error.Message, id)
			}
			e := map[string]any{"code": json.RawMessage(m.Error.Code), "message": m.Error.Message}
			if len(m.Error.Data) > 0 {
				e["data"] = m.Error.Data
			}
			b, _ := json.Marshal(map[string]any{"jsonrpc_error": e})
			s.convo.result(req.callID, req.tool, b, true)
			return nil
		}
		var res map[string]json.RawMessage
		if len(m.Result) == 0 || m.Result[0] != '{' || json.Unmarshal(m.Result, &res) != nil {
			return p.bad(n, path+"result", "expected an object")
		}
		switch {
		case ok && req.method == "tools/call":
			s.seen["tools/call result"]++
			r, isErr, err := mcpResult(res)
			if err != nil {
				return p.bad(n, path+"result", "%v", err)
			}
			s.convo.result(req.callID, req.tool, r, isErr)
		case res["tools"] != nil && (!ok || req.method == "tools/list"):
			s.seen["tools/list result"]++
			var tools []json.RawMessage
			if err := json.Unmarshal(res["tools"], &tools); err != nil {
				return p.bad(n, path+"result.tools", "expected an array of tools")
			}
			for i, raw := range tools {
				tc, err := ParseContract(raw)
				if err != nil {
					return p.bad(n, fmt.Sprintf("%sresult.tools[%d]", path, i), "%v", err)
				}
				s.convo.addContract(tc)
			}
		case ok && req.method == "initialize":
			var info struct {
				ServerInfo struct {
					Name string `json:"name"`
				} `json:"serverInfo"`
			}
			_ = json.Unmarshal(m.Result, &info)
			s.server = info.ServerInfo.Name
		case !ok && (res["content"] != nil || res["structuredContent"] != nil || res["isError"] != nil):
			s.seen["tools/call result"]++
			return p.bad(n, path+"id", "a tools/call result for id %s, but no tools/call request with that id is in this log", id)
		}
	default:
		return p.bad(n, path, "expected a request (method, id), a notification (method) or a response (id with result or error)")
	}
	return nil
}

// mcpIDString renders a JSON-RPC id (number or string) as a call id.
func mcpIDString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// mcpResult is a CallToolResult as a step result: structuredContent when
// present, else the text content (kept as JSON when it parses), else the
// content items.
func mcpResult(res map[string]json.RawMessage) (json.RawMessage, bool, error) {
	var isErr bool
	if raw := res["isError"]; raw != nil {
		if err := json.Unmarshal(raw, &isErr); err != nil {
			return nil, false, fmt.Errorf("isError: expected true or false")
		}
	}
	if sc := res["structuredContent"]; len(sc) > 0 && string(sc) != "null" {
		v, err := genDecode(sc)
		if err != nil {
			return nil, false, err
		}
		return genJSON(v), isErr, nil
	}
	var content []any
	if raw := res["content"]; raw != nil {
		v, err := genDecode(raw)
		if err != nil {
			return nil, false, err
		}
		var ok bool
		if content, ok = v.([]any); !ok {
			return nil, false, fmt.Errorf("content: expected an array of content items")
		}
	}
	if text, ok := genContentText(content); ok {
		r, _ := genResult(text)
		return r, isErr, nil
	}
	if content == nil {
		return json.RawMessage(`null`), isErr, nil
	}
	return genJSON(content), isErr, nil
}

// flushIdle emits sessions with an id that had no message for otelIdle
// records; the session of lines without an id lasts the whole file.
func (p *mcpParser) flushIdle(rec int) error {
	for id, s := range p.sessions {
		if id != "" && rec-s.last > otelIdle {
			if err := p.finish(id); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *mcpParser) finish(id string) error {
	s := p.sessions[id]
	delete(p.sessions, id)
	t := &model.Trace{TraceID: s.id, Server: s.server, StartedAt: genTime(s.start)}
	if t.TraceID == "" {
		t.TraceID = "mcp-" + hex.EncodeToString(p.sum.Sum(nil))[:12]
	}
	s.convo.finish(t)
	t.Source = model.Source{File: p.file, Format: "mcp", Line: s.line}
	if len(t.Steps) == 0 {
		var what []string
		for k, v := range s.seen {
			what = append(what, fmt.Sprintf("%d %s", v, k))
		}
		sort.Strings(what)
		return p.emit(Record{Line: s.line, Err: &LineError{File: p.file, Line: s.line,
			Msg: fmt.Sprintf("no tools/call in this log (it holds %s): a trace needs at least one tool call", strings.Join(what, ", "))}})
	}
	return p.emit(Record{Line: s.line, Trace: t})
}
