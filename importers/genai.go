package importers

// Shared by the span- and observation-based formats (otel, openinference,
// langfuse) and the MCP log: chat messages in every provider shape are
// normalized to genMsg, and a genConvo turns them into ordered steps while
// applying the mapping rules all formats share (pairing by call id,
// de-duplicating history that each LLM call re-sends, answer versus
// clarification).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"tracelab/model"
)

// genMsg is one chat message, whatever provider shape it came in.
type genMsg struct {
	Role  string // user, assistant, tool, system
	Parts []genPart
}

// genPart is one piece of a message.
type genPart struct {
	Kind   string // text, reasoning, call, result, tooldef
	Text   string
	ID     string
	Name   string
	Args   json.RawMessage // call: a JSON object
	Result json.RawMessage // result: any JSON
	IsErr  bool
	Def    map[string]any // tooldef: a tool definition object
}

// genDecode decodes JSON keeping numbers as written.
func genDecode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// genJSON encodes a decoded value compactly with sorted keys.
func genJSON(v any) json.RawMessage {
	b, err := model.CanonicalValue(v)
	if err != nil {
		b, _ = json.Marshal(v)
	}
	return b
}

// genID is the deterministic trace id for sources without one.
func genID(format string, record []byte) string {
	sum := sha256.Sum256(record)
	return format + "-" + hex.EncodeToString(sum[:])[:12]
}

func gStr(m map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case json.Number:
			return v.String()
		}
	}
	return ""
}

func gObj(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}

func gArr(m map[string]any, k string) []any {
	a, _ := m[k].([]any)
	return a
}

func gInt(v any) int64 {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		if f, err := x.Float64(); err == nil {
			return int64(f)
		}
	case float64:
		return int64(x)
	case int64:
		return x
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

func gFloat(v any) float64 {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case float64:
		return x
	case int64:
		return float64(x)
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return 0
}

// genMaybeJSON decodes s when it looks like a JSON object or array.
func genMaybeJSON(s string) (any, bool) {
	t := strings.TrimSpace(s)
	if len(t) > 2 && t[0] == '"' {
		var inner string
		if json.Unmarshal([]byte(t), &inner) == nil {
			return genMaybeJSON(inner) // a JSON document encoded twice
		}
	}
	if len(t) < 2 || (t[0] != '{' && t[0] != '[') {
		return nil, false
	}
	v, err := genDecode([]byte(t))
	return v, err == nil
}

// genArgs turns call arguments (an object, a JSON string, plain text) into
// a JSON object.
func genArgs(v any) json.RawMessage {
	switch x := v.(type) {
	case nil:
		return json.RawMessage(`{}`)
	case map[string]any:
		return genJSON(x)
	case string:
		if strings.TrimSpace(x) == "" {
			return json.RawMessage(`{}`)
		}
		if d, err := genDecode([]byte(x)); err == nil {
			if o, ok := d.(map[string]any); ok {
				return genJSON(o)
			}
		}
		return genJSON(map[string]any{"input": x})
	default:
		return genJSON(map[string]any{"input": x})
	}
}

// genResult turns a tool result into JSON: text that parses as JSON is
// kept as JSON, other text becomes a JSON string; an MCP CallToolResult
// gives its structuredContent, else its text content.
func genResult(v any) (json.RawMessage, bool) {
	switch x := v.(type) {
	case nil:
		return json.RawMessage(`null`), false
	case string:
		if d, err := genDecode([]byte(strings.TrimSpace(x))); err == nil {
			if m, ok := d.(map[string]any); ok {
				return genResult(m)
			}
			return genJSON(d), false
		}
		return genJSON(x), false
	case map[string]any:
		if content, ok := x["content"].([]any); ok && (x["isError"] != nil || x["structuredContent"] != nil || len(x) <= 2) {
			isErr, _ := x["isError"].(bool)
			if sc, ok := x["structuredContent"]; ok && sc != nil {
				return genJSON(sc), isErr
			}
			if text, ok := genContentText(content); ok {
				r, _ := genResult(text)
				return r, isErr
			}
			return genJSON(content), isErr
		}
		return genJSON(x), false
	default:
		return genJSON(x), false
	}
}

// genContentText joins the text items of a content array; ok is false
// when the array holds anything but text.
func genContentText(content []any) (string, bool) {
	var texts []string
	for _, c := range content {
		m, ok := c.(map[string]any)
		if !ok {
			if s, ok := c.(string); ok {
				texts = append(texts, s)
				continue
			}
			return "", false
		}
		switch gStr(m, "type") {
		case "text", "input_text", "output_text", "":
			t, ok := m["text"].(string)
			if !ok {
				return "", false
			}
			texts = append(texts, t)
		default:
			return "", false
		}
	}
	return strings.Join(texts, "\n"), len(texts) > 0
}

// genRole maps provider role names to user, assistant, tool, system.
func genRole(r string) string {
	switch strings.ToLower(r) {
	case "user", "human":
		return "user"
	case "assistant", "ai", "model", "bot":
		return "assistant"
	case "tool", "function", "ipython":
		return "tool"
	case "system", "developer":
		return "system"
	}
	return ""
}

// genMessages normalizes a message container: a message list, a single
// message, a request ({messages}, {contents}, {prompt}), a response
// ({choices}, {output}, {candidates}, {content:{parts}}), or plain text in
// role def. It also returns the tool definitions a request carried.
func genMessages(v any, def string) ([]genMsg, []map[string]any) {
	var g genGather
	g.container(v, def, 0)
	return g.msgs, g.tools
}

type genGather struct {
	msgs  []genMsg
	tools []map[string]any
}

func (g *genGather) container(v any, def string, depth int) {
	if depth > 8 {
		return
	}
	switch x := v.(type) {
	case string:
		if d, ok := genMaybeJSON(x); ok {
			g.container(d, def, depth+1)
			return
		}
		if strings.TrimSpace(x) != "" && def != "" {
			g.msgs = append(g.msgs, genMsg{Role: def, Parts: []genPart{{Kind: "text", Text: x}}})
		}
	case []any:
		for _, e := range x {
			switch y := e.(type) {
			case map[string]any:
				g.message(y, def)
			case string:
				g.container(y, def, depth+1)
			}
		}
	case map[string]any:
		g.request(x)
		switch {
		case x["messages"] != nil:
			g.container(x["messages"], def, depth+1)
		case x["contents"] != nil:
			g.container(x["contents"], def, depth+1)
		case gArr(x, "choices") != nil:
			for _, c := range gArr(x, "choices") {
				if cm, ok := c.(map[string]any); ok {
					if m := gObj(cm, "message"); m != nil {
						g.message(m, "assistant")
					} else if t := gStr(cm, "text"); t != "" {
						g.msgs = append(g.msgs, genMsg{Role: "assistant", Parts: []genPart{{Kind: "text", Text: t}}})
					}
					break // the first choice is the one the agent used
				}
			}
		case gArr(x, "candidates") != nil:
			if c, ok := gArr(x, "candidates")[0].(map[string]any); ok {
				g.container(c["content"], "assistant", depth+1)
			}
		case gStr(x, "object") == "response" || (gArr(x, "output") != nil && x["role"] == nil):
			g.container(x["output"], "assistant", depth+1)
		case x["new_message"] != nil:
			g.container(x["new_message"], def, depth+1)
		case x["content"] != nil && x["role"] == nil && x["type"] == nil:
			switch c := x["content"].(type) {
			case map[string]any:
				g.container(c, def, depth+1)
			case string:
				if def == "assistant" { // a completion's {"content": "..."}
					g.message(x, def)
				}
			default:
				g.message(x, def)
			}
		case x["role"] != nil || x["parts"] != nil || x["type"] != nil || x["toolCallId"] != nil:
			g.message(x, def)
		case x["prompt"] != nil:
			g.container(x["prompt"], "user", depth+1)
		case x["text"] != nil:
			if t := gStr(x, "text"); t != "" && def != "" {
				g.msgs = append(g.msgs, genMsg{Role: def, Parts: []genPart{{Kind: "text", Text: t}}})
			}
		}
	}
}

// request collects tool definitions a request object carries.
func (g *genGather) request(x map[string]any) {
	tools := gArr(x, "tools")
	if tools == nil {
		if cfg := gObj(x, "config"); cfg != nil {
			tools = gArr(cfg, "tools")
		}
	}
	for _, t := range tools {
		tm, ok := t.(map[string]any)
		if !ok {
			continue
		}
		if decls := gArr(tm, "function_declarations"); decls != nil {
			for _, d := range decls {
				if dm, ok := d.(map[string]any); ok {
					g.tools = append(g.tools, dm)
				}
			}
			continue
		}
		if decls := gArr(tm, "functionDeclarations"); decls != nil {
			for _, d := range decls {
				if dm, ok := d.(map[string]any); ok {
					g.tools = append(g.tools, dm)
				}
			}
			continue
		}
		g.tools = append(g.tools, tm)
	}
}

// message normalizes one message or item object.
func (g *genGather) message(m map[string]any, def string) {
	add := func(role string, parts ...genPart) {
		g.msgs = append(g.msgs, genMsg{Role: role, Parts: parts})
	}
	// Item-shaped entries (OpenAI Responses, Vercel AI SDK).
	switch gStr(m, "type") {
	case "function_call":
		add("assistant", genPart{Kind: "call", ID: gStr(m, "call_id", "id"), Name: gStr(m, "name"), Args: genArgs(m["arguments"])})
		return
	case "function_call_output":
		r, _ := genResult(m["output"])
		add("tool", genPart{Kind: "result", ID: gStr(m, "call_id"), Result: r})
		return
	case "reasoning":
		var parts []genPart
		for _, s := range append(gArr(m, "summary"), gArr(m, "content")...) {
			if sm, ok := s.(map[string]any); ok && gStr(sm, "text") != "" {
				parts = append(parts, genPart{Kind: "reasoning", Text: gStr(sm, "text")})
			}
		}
		if len(parts) > 0 {
			add("assistant", parts...)
		}
		return
	case "human", "ai", "tool", "system":
		if m["role"] == nil { // LangChain message dicts
			m2 := map[string]any{}
			for k, v := range m {
				m2[k] = v
			}
			m2["role"] = gStr(m, "type")
			m = m2
		}
	}
	if m["role"] == nil && m["toolCallId"] != nil && m["toolName"] != nil {
		if m["output"] != nil || m["result"] != nil {
			r, _ := genResult(firstNonNil(m["output"], m["result"]))
			add("tool", genPart{Kind: "result", ID: gStr(m, "toolCallId"), Name: gStr(m, "toolName"), Result: r})
		} else {
			add("assistant", genPart{Kind: "call", ID: gStr(m, "toolCallId"), Name: gStr(m, "toolName"), Args: genArgs(firstNonNil(m["input"], m["args"]))})
		}
		return
	}
	role := genRole(gStr(m, "role"))
	if role == "" {
		role = def
	}
	if role == "" {
		return
	}
	var parts []genPart
	text := func(kind, s string) {
		if strings.TrimSpace(s) != "" {
			parts = append(parts, genPart{Kind: kind, Text: s})
		}
	}
	toolCallID := gStr(m, "tool_call_id", "toolCallId")
	switch c := m["content"].(type) {
	case string:
		if role == "tool" {
			r, _ := genResult(c)
			parts = append(parts, genPart{Kind: "result", ID: toolCallID, Name: gStr(m, "name"), Result: r})
		} else {
			text("text", c)
		}
	case []any:
		if role == "tool" && toolCallID != "" {
			r, isErr := genResult(map[string]any{"content": c})
			parts = append(parts, genPart{Kind: "result", ID: toolCallID, Name: gStr(m, "name"), Result: r, IsErr: isErr})
			break
		}
		for _, b := range c {
			parts = append(parts, genBlock(b)...)
		}
	case map[string]any:
		if fn := gObj(c, "function"); fn != nil && gStr(fn, "name") != "" {
			parts = append(parts, genPart{Kind: "tooldef", Def: c})
		} else if role == "tool" {
			r, isErr := genResult(c)
			parts = append(parts, genPart{Kind: "result", ID: toolCallID, Name: gStr(m, "name"), Result: r, IsErr: isErr})
		} else if c["parts"] != nil {
			parts = append(parts, genParts(gArr(c, "parts"))...)
		}
	}
	parts = append(parts, genParts(gArr(m, "parts"))...)
	for _, r := range []string{"reasoning_content", "reasoning", "thinking"} {
		if s, ok := m[r].(string); ok {
			parts = append([]genPart{{Kind: "reasoning", Text: s}}, parts...)
		}
	}
	calls := genList(m["tool_calls"])
	if calls == nil {
		if ak := gObj(m, "additional_kwargs"); ak != nil {
			calls = genList(ak["tool_calls"])
		}
	}
	for _, c := range calls {
		cm, ok := c.(map[string]any)
		if !ok {
			continue
		}
		if fn := gObj(cm, "function"); fn != nil {
			parts = append(parts, genPart{Kind: "call", ID: gStr(cm, "id"), Name: gStr(fn, "name"), Args: genArgs(fn["arguments"])})
		} else {
			parts = append(parts, genPart{Kind: "call", ID: gStr(cm, "id"), Name: gStr(cm, "name"), Args: genArgs(firstNonNil(cm["args"], cm["arguments"], cm["input"]))})
		}
	}
	if fc := gObj(m, "function_call"); fc != nil {
		parts = append(parts, genPart{Kind: "call", Name: gStr(fc, "name"), Args: genArgs(fc["arguments"])})
	}
	if len(parts) > 0 {
		add(role, parts...)
	}
}

func firstNonNil(vs ...any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

// genBlock reads one content block (Anthropic, OpenAI, Vercel shapes).
func genBlock(b any) []genPart {
	switch x := b.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			return nil
		}
		return []genPart{{Kind: "text", Text: x}}
	case map[string]any:
		switch gStr(x, "type") {
		case "text", "input_text", "output_text", "":
			if t := gStr(x, "text"); t != "" {
				return []genPart{{Kind: "text", Text: t}}
			}
			return genParts([]any{x})
		case "thinking":
			if t := gStr(x, "thinking", "text"); t != "" {
				return []genPart{{Kind: "reasoning", Text: t}}
			}
		case "redacted_thinking":
			return []genPart{{Kind: "reasoning", Text: "[redacted thinking]"}}
		case "reasoning":
			if t := gStr(x, "text", "content"); t != "" {
				return []genPart{{Kind: "reasoning", Text: t}}
			}
		case "tool_use", "server_tool_use", "mcp_tool_use":
			return []genPart{{Kind: "call", ID: gStr(x, "id"), Name: gStr(x, "name"), Args: genArgs(x["input"])}}
		case "tool-call":
			return []genPart{{Kind: "call", ID: gStr(x, "toolCallId"), Name: gStr(x, "toolName"), Args: genArgs(firstNonNil(x["input"], x["args"]))}}
		case "tool_result":
			isErr, _ := x["is_error"].(bool)
			r, e2 := genResult(genToolResultContent(x["content"]))
			return []genPart{{Kind: "result", ID: gStr(x, "tool_use_id"), Result: r, IsErr: isErr || e2}}
		case "tool-result":
			r, _ := genResult(firstNonNil(x["output"], x["result"]))
			if o := gObj(x, "output"); o != nil && o["value"] != nil && o["type"] != nil {
				r, _ = genResult(o["value"]) // AI SDK v5 {type:"json"|"text", value}
			}
			return []genPart{{Kind: "result", ID: gStr(x, "toolCallId"), Name: gStr(x, "toolName"), Result: r}}
		default:
			return genParts([]any{x})
		}
	}
	return nil
}

// genToolResultContent unwraps Anthropic tool_result content (a string or
// text blocks) so text that holds JSON is kept as JSON.
func genToolResultContent(c any) any {
	if a, ok := c.([]any); ok {
		if t, ok := genContentText(a); ok {
			return t
		}
	}
	return c
}

// genParts reads OTel GenAI parts and Gemini parts.
func genParts(ps []any) []genPart {
	var out []genPart
	for _, p := range ps {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		if fc := firstObj(pm, "function_call", "functionCall"); fc != nil {
			out = append(out, genPart{Kind: "call", ID: gStr(fc, "id"), Name: gStr(fc, "name"), Args: genArgs(fc["args"])})
			continue
		}
		if fr := firstObj(pm, "function_response", "functionResponse"); fr != nil {
			r, _ := genResult(fr["response"])
			out = append(out, genPart{Kind: "result", ID: gStr(fr, "id"), Name: gStr(fr, "name"), Result: r})
			continue
		}
		switch gStr(pm, "type") {
		case "text":
			if t := gStr(pm, "content", "text"); t != "" {
				out = append(out, genPart{Kind: "text", Text: t})
			}
		case "reasoning", "thinking":
			if t := gStr(pm, "content", "text"); t != "" {
				out = append(out, genPart{Kind: "reasoning", Text: t})
			}
		case "tool_call":
			out = append(out, genPart{Kind: "call", ID: gStr(pm, "id"), Name: gStr(pm, "name"), Args: genArgs(pm["arguments"])})
		case "tool_call_response":
			r, _ := genResult(pm["response"])
			out = append(out, genPart{Kind: "result", ID: gStr(pm, "id"), Result: r})
		case "server_tool_call": // a provider-run tool (code interpreter, web search)
			out = append(out, genPart{Kind: "call", ID: gStr(pm, "id"), Name: gStr(pm, "name"), Args: genArgs(pm["server_tool_call"])})
		case "server_tool_call_response":
			out = append(out, genPart{Kind: "result", ID: gStr(pm, "id"), Result: genJSON(pm["server_tool_call_response"])})
		case "":
			if t, ok := pm["text"].(string); ok && t != "" {
				kind := "text"
				if th, _ := pm["thought"].(bool); th {
					kind = "reasoning"
				}
				out = append(out, genPart{Kind: kind, Text: t})
			}
		}
	}
	return out
}

func firstObj(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		if o := gObj(m, k); o != nil {
			return o
		}
	}
	return nil
}

// genContract builds a tool contract from a definition in any of the
// common shapes: MCP {name, inputSchema}, OpenAI {type:function,
// function:{name, parameters}}, OTel/Responses {type:function, name,
// parameters}, Anthropic {name, input_schema}, Gemini {name, parameters}.
func genContract(def map[string]any) (model.ToolContract, bool) {
	src := def
	if fn := gObj(def, "function"); fn != nil {
		src = fn
	}
	tc := model.ToolContract{Name: gStr(src, "name"), Title: gStr(src, "title"), Description: gStr(src, "description")}
	if tc.Name == "" {
		return tc, false
	}
	if s := firstNonNil(src["inputSchema"], src["input_schema"], src["parameters"], src["parametersJsonSchema"]); s != nil {
		if str, ok := s.(string); ok {
			if d, ok := genMaybeJSON(str); ok {
				s = d
			}
		}
		tc.InputSchema = genJSON(s)
	}
	if s := firstNonNil(src["outputSchema"], src["output_schema"], src["response"]); s != nil {
		tc.OutputSchema = genJSON(s)
	}
	if a := src["annotations"]; a != nil {
		tc.Annotations = genJSON(a)
	}
	tc.Raw = genJSON(def)
	return tc, true
}

// genConvo builds the steps of one trace.
type genConvo struct {
	steps   []model.Step
	calls   map[string]int // call id -> step index
	paired  map[string]bool
	results map[string]int // call id -> index of its tool_result step
	hist    []uint64       // message hashes of the conversation so far
	tools   []model.ToolContract
	toolIdx map[string]int
	answers []int // assistant text steps awaiting answer/clarification
	nextID  int
	texts   map[string]bool // role + text of the messages already stepped
}

func newGenConvo() *genConvo {
	return &genConvo{calls: map[string]int{}, paired: map[string]bool{}, results: map[string]int{}, toolIdx: map[string]int{}, texts: map[string]bool{}}
}

// turn adds one model call: the messages it was sent (the history the
// previous call already showed is skipped) and the messages it produced.
func (c *genConvo) turn(in, out []genMsg) {
	hs := make([]uint64, 0, len(in)+len(out))
	for _, m := range in {
		hs = append(hs, genHash(m))
	}
	n := 0
	for n < len(hs) && n < len(c.hist) && hs[n] == c.hist[n] {
		n++
	}
	for _, m := range in[n:] {
		if !c.history(m) {
			c.message(m)
		}
	}
	for _, m := range out {
		hs = append(hs, genHash(m))
		c.message(m)
	}
	c.hist = hs
}

// history reports whether every part of a re-sent message is already a
// step (same text from the same role, a known call, an answered result):
// the history differed from the previous call's only in shape or order.
func (c *genConvo) history(m genMsg) bool {
	known, total := 0, 0
	for _, p := range m.Parts {
		switch p.Kind {
		case "text", "reasoning":
			total++
			if c.texts[m.Role+"\x00"+p.Text] {
				known++
			}
		case "call":
			total++
			if p.ID != "" && c.hasCall(p.ID) {
				known++
			}
		case "result":
			total++
			if p.ID != "" && c.paired[p.ID] {
				known++
			}
		}
	}
	return total > 0 && known == total
}

func genHash(m genMsg) uint64 {
	h := fnv.New64a()
	h.Write([]byte(m.Role))
	for _, p := range m.Parts {
		h.Write([]byte{0, byte(len(p.Kind))})
		h.Write([]byte(p.Kind))
		h.Write([]byte{0})
		h.Write([]byte(p.Text))
		h.Write([]byte{0})
		h.Write([]byte(p.ID))
		h.Write([]byte{0})
		h.Write([]byte(p.Name))
		h.Write([]byte{0})
		h.Write(p.Args)
		h.Write([]byte{0})
		h.Write(p.Result)
	}
	return h.Sum64()
}

// message adds the steps of one message.
func (c *genConvo) message(m genMsg) {
	switch m.Role {
	case "system":
		for _, p := range m.Parts {
			if p.Kind == "tooldef" {
				c.contract(p.Def)
			}
		}
	case "user", "tool":
		var texts []string
		for _, p := range m.Parts {
			switch p.Kind {
			case "text":
				if m.Role == "user" {
					texts = append(texts, p.Text)
				}
			case "result":
				c.result(p.ID, p.Name, p.Result, p.IsErr)
			case "tooldef":
				c.contract(p.Def)
			}
		}
		if len(texts) > 0 {
			c.user(strings.Join(texts, "\n"))
		}
	case "assistant":
		lastCall := -1
		for i, p := range m.Parts {
			if p.Kind == "call" {
				lastCall = i
			}
		}
		var texts []string
		for i, p := range m.Parts {
			switch p.Kind {
			case "reasoning":
				c.add(model.Step{Kind: model.KindReasoning, Text: p.Text})
			case "text":
				if i < lastCall {
					// Said before calling a tool: narration, not the answer.
					c.add(model.Step{Kind: model.KindReasoning, Text: p.Text})
				} else {
					texts = append(texts, p.Text)
				}
			case "call":
				c.call(p.ID, p.Name, p.Args)
			case "result":
				c.result(p.ID, p.Name, p.Result, p.IsErr)
			}
		}
		if len(texts) > 0 {
			c.answers = append(c.answers, len(c.steps))
			c.add(model.Step{Kind: model.KindAnswer, Text: strings.Join(texts, "\n")})
		}
	}
}

func (c *genConvo) add(s model.Step) {
	switch s.Kind {
	case model.KindUser:
		c.texts["user\x00"+s.Text] = true
	case model.KindReasoning, model.KindAnswer:
		c.texts["assistant\x00"+s.Text] = true
	}
	c.steps = append(c.steps, s)
}

// prependUser puts a user step first, shifting the recorded indexes.
func (c *genConvo) prependUser(text string) {
	c.steps = append([]model.Step{{Kind: model.KindUser, Text: text}}, c.steps...)
	c.texts["user\x00"+text] = true
	for id := range c.calls {
		c.calls[id]++
	}
	for id := range c.results {
		c.results[id]++
	}
	for i := range c.answers {
		c.answers[i]++
	}
}

func (c *genConvo) user(text string) {
	c.add(model.Step{Kind: model.KindUser, Text: text})
}

// call adds a tool_call unless one with that id is already there, and
// returns the id used (a synthetic one when the source gave none).
func (c *genConvo) call(id, name string, args json.RawMessage) string {
	if id != "" {
		if _, ok := c.calls[id]; ok {
			return id
		}
	} else {
		c.nextID++
		id = "call-" + strconv.Itoa(c.nextID)
		for c.hasCall(id) {
			c.nextID++
			id = "call-" + strconv.Itoa(c.nextID)
		}
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if name == "" {
		name = "unknown_tool" // the source named no tool; a call step needs one
	}
	c.calls[id] = len(c.steps)
	c.add(model.Step{Kind: model.KindToolCall, ID: id, Tool: name, Args: args})
	return id
}

// pending finds the earliest unanswered call of a tool (by exact name or
// as the suffix of a span name like "execute_tool say_hello"), preferring
// one with the same arguments.
func (c *genConvo) pending(name string, args json.RawMessage) (string, bool) {
	first, firstIdx := "", -1
	same, sameIdx := "", -1
	for id, i := range c.calls {
		if c.paired[id] {
			continue
		}
		t := c.steps[i].Tool
		if name != "" && t != name && !strings.HasSuffix(name, " "+t) && !strings.HasSuffix(name, ":"+t) {
			continue
		}
		if len(args) > 0 && bytes.Equal(c.steps[i].Args, args) && (sameIdx < 0 || i < sameIdx) {
			same, sameIdx = id, i
		}
		if firstIdx < 0 || i < firstIdx {
			first, firstIdx = id, i
		}
	}
	if sameIdx >= 0 {
		return same, true
	}
	return first, firstIdx >= 0
}

// result adds a tool_result unless that call already has one.
func (c *genConvo) result(id, name string, result json.RawMessage, isErr bool) {
	if id == "" || !c.hasCall(id) {
		if pid, ok := c.pending(name, nil); ok {
			id = pid
		}
	}
	if id != "" && c.paired[id] {
		// Already answered; an empty result (a framework logging {})
		// gives way to the one the model was sent.
		if i, ok := c.results[id]; ok && genEmpty(c.steps[i].Result) && !genEmpty(result) {
			c.steps[i].Result, c.steps[i].IsError = result, isErr
			genPaging(&c.steps[i])
		}
		return
	}
	if id != "" && !c.hasCall(id) {
		id = "" // a result whose call is not in the trace stays unpaired
	}
	if id == "" && name != "" {
		if pid, ok := c.answered(name); ok {
			c.result(pid, name, result, isErr) // history of an answered call
			return
		}
	}
	if id != "" {
		c.paired[id] = true
		c.results[id] = len(c.steps)
	}
	if len(result) == 0 {
		result = json.RawMessage(`null`)
	}
	s := model.Step{Kind: model.KindToolResult, CallID: id, Result: result, IsError: isErr}
	genPaging(&s)
	c.add(s)
}

// answered finds the latest call of the tool that already has a result.
func (c *genConvo) answered(name string) (string, bool) {
	best, bestIdx := "", -1
	for id, i := range c.calls {
		if c.paired[id] && c.steps[i].Tool == name && i > bestIdx {
			best, bestIdx = id, i
		}
	}
	return best, bestIdx >= 0
}

// genEmpty reports whether a result says nothing: {}, [], null or "".
func genEmpty(r json.RawMessage) bool {
	switch string(bytes.TrimSpace(r)) {
	case "", "{}", "[]", "null", `""`:
		return true
	}
	return false
}

func (c *genConvo) hasCall(id string) bool { _, ok := c.calls[id]; return ok }

// execution records a tool execution span or observation: it answers the
// matching call (by id, else by tool name and arguments), or adds both
// the call and its result when the model's call was not recorded.
func (c *genConvo) execution(id, name string, args json.RawMessage, result json.RawMessage, isErr bool) {
	if id == "" || !c.hasCall(id) {
		if pid, ok := c.pending(name, args); ok {
			id = pid
		} else if id == "" || !c.hasCall(id) {
			id = c.call(id, name, args)
		}
	}
	if result == nil && !isErr {
		return
	}
	c.result(id, name, result, isErr)
}

// genPaging copies the freshness (as_of) and pagination markers of a
// result onto its step.
func genPaging(s *model.Step) {
	if len(s.Result) == 0 || s.Result[0] != '{' {
		return
	}
	var p struct {
		AsOf        any  `json:"as_of"`
		AsOf2       any  `json:"asOf"`
		NextCursor  any  `json:"next_cursor"`
		NextCursor2 any  `json:"nextCursor"`
		HasMore     bool `json:"has_more"`
		HasMore2    bool `json:"hasMore"`
	}
	if json.Unmarshal(s.Result, &p) != nil {
		return
	}
	if v, ok := firstNonNil(p.NextCursor, p.NextCursor2).(string); ok {
		s.NextCursor = v
	}
	s.HasMore = p.HasMore || p.HasMore2
	if v, ok := firstNonNil(p.AsOf, p.AsOf2).(string); ok && validTime(v) {
		s.AsOf = v
	}
}

// contract adds a tool definition once per name.
func (c *genConvo) contract(def map[string]any) {
	tc, ok := genContract(def)
	if !ok {
		return
	}
	c.addContract(tc)
}

func (c *genConvo) addContract(tc model.ToolContract) {
	if _, seen := c.toolIdx[tc.Name]; seen {
		return
	}
	c.toolIdx[tc.Name] = len(c.tools)
	c.tools = append(c.tools, tc)
}

// finish decides, for every assistant text that did not call a tool,
// whether it answered, asked the user something they then replied to
// (the text ends with a question), or narrated before calling tools, and
// fills the trace's question, tools and steps.
func (c *genConvo) finish(t *model.Trace) {
	for _, i := range c.answers {
		asks := strings.HasSuffix(strings.TrimRight(c.steps[i].Text, " \t\r\n\"')*_"), "?")
		for _, s := range c.steps[i+1:] {
			if s.Kind == model.KindUser {
				if asks {
					c.steps[i].Kind = model.KindClarification
				}
				break
			}
			if s.Kind == model.KindToolCall {
				// Text the model said before calling tools, with no
				// user turn between: narration, not the answer.
				c.steps[i].Kind = model.KindReasoning
				break
			}
		}
	}
	if t.Question == "" {
		for _, s := range c.steps {
			if s.Kind == model.KindUser {
				t.Question = s.Text
				break
			}
		}
	}
	t.Steps = c.steps
	if t.Steps == nil {
		t.Steps = []model.Step{}
	}
	t.Tools = c.tools
	if t.Outcome == "" {
		t.Outcome = model.OutcomeUnknown
	}
}

// genUSD rounds a summed cost to a billionth of a dollar, so float sums
// read as the source wrote them.
func genUSD(usd float64) float64 { return math.Round(usd*1e9) / 1e9 }

// genTime renders unix nanoseconds as RFC 3339 UTC.
func genTime(ns int64) string {
	if ns <= 0 {
		return ""
	}
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}

// genParseTime reads an RFC 3339 time or a time without zone (taken as
// UTC) and returns unix nanoseconds; 0 when it cannot.
func genParseTime(s string) int64 {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixNano()
		}
	}
	return 0
}

// genSpanOrder orders spans (or observations) depth first from the roots,
// siblings by start time then id; spans whose parent is missing count as
// roots.
func genSpanOrder(n int, id, parent func(int) string, start func(int) int64) []int {
	byID := make(map[string]int, n)
	for i := 0; i < n; i++ {
		if s := id(i); s != "" {
			byID[s] = i
		}
	}
	children := map[int][]int{}
	var roots []int
	for i := 0; i < n; i++ {
		p, ok := byID[parent(i)]
		if parent(i) == "" || !ok || p == i {
			roots = append(roots, i)
			continue
		}
		children[p] = append(children[p], i)
	}
	less := func(list []int) {
		sort.SliceStable(list, func(a, b int) bool {
			sa, sb := start(list[a]), start(list[b])
			if sa != sb {
				return sa < sb
			}
			return id(list[a]) < id(list[b])
		})
	}
	less(roots)
	out := make([]int, 0, n)
	seen := make([]bool, n)
	var walk func(i int)
	walk = func(i int) {
		if seen[i] {
			return
		}
		seen[i] = true
		out = append(out, i)
		kids := children[i]
		less(kids)
		for _, k := range kids {
			walk(k)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	for i := 0; i < n; i++ { // parent cycles
		walk(i)
	}
	return out
}

// genRecords calls fn for every top-level JSON value of r with the line it
// starts on. A file whose first line is a whole JSON value is read line by
// line (JSONL, bounded memory); otherwise it is one pretty-printed document
// (or several concatenated) and is read whole.
func genRecords(ctx context.Context, r io.Reader, fn func(line int, raw []byte) error) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	head, _ := br.Peek(br.Size())
	if first := firstJSONLine(stripBOM(head)); len(first) > 0 && json.Valid(first) {
		return lines(ctx, br, fn)
	}
	data, err := io.ReadAll(br)
	if err != nil {
		return err
	}
	data = stripBOM(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	line, prev := 1, 0
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return nil
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		if err != nil {
			// Report where the bad value starts: the first byte after the
			// previous value that is not white space.
			start = prev
			for start < len(data) && (data[start] == ' ' || data[start] == '\n' || data[start] == '\r' || data[start] == '\t') {
				start++
			}
			line += bytes.Count(data[prev:start], []byte{'\n'})
			return fn(line, data[start:])
		}
		line += bytes.Count(data[prev:max(start, prev)], []byte{'\n'})
		if ferr := fn(line, raw); ferr != nil {
			return ferr
		}
		line += bytes.Count(raw, []byte{'\n'})
		prev = end
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
	}
}

// headObject returns the top-level members of the first JSON object in
// head (or of the first element when head starts with an array), reading
// as far as the head goes so a long pretty-printed file still shows its
// first keys.
func headObject(head []byte) map[string]json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	tok, err := dec.Token()
	if err != nil {
		return nil
	}
	if tok == json.Delim('[') {
		if tok, err = dec.Token(); err != nil {
			return nil
		}
	}
	if tok != json.Delim('{') {
		return nil
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			break
		}
		k, ok := kt.(string)
		if !ok {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			out[k] = nil // present, value cut off by the head
			break
		}
		out[k] = v
	}
	return out
}

// hasKeyPrefix reports whether any key of m starts with prefix.
func hasKeyPrefix(m map[string]json.RawMessage, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}
