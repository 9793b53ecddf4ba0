package importers

// Shared by the span- and observation-based formats (otel, openinference,
// langfuse) and the MCP log: chat messages in every provider shape are
// normalized to genMsg, and the conversation builder of conv.go turns them
// into ordered steps.

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
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
		g.containerText(x, def, depth)
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
		g.containerObject(x, def, depth)
	}
}

// containerText reads a string: JSON text of a container, flattened
// "role: text" lines, or the text of one message in the default role.
func (g *genGather) containerText(x, def string, depth int) {
	if d, ok := genMaybeJSON(x); ok {
		g.container(d, def, depth+1)
		return
	}
	if t := strings.TrimSpace(x); len(t) > 1 && t[0] == '"' {
		var inner string
		if json.Unmarshal([]byte(t), &inner) == nil {
			x = inner // a JSON-encoded string: the text is inside the quotes
		}
	}
	if msgs := genFlattened(x); msgs != nil {
		for _, m := range msgs {
			g.message(m, def)
		}
		return
	}
	if strings.TrimSpace(x) != "" && def != "" {
		g.msgs = append(g.msgs, genMsg{Role: def, Parts: []genPart{{Kind: "text", Text: x}}})
	}
}

// containerObject reads an object by the key that says what it holds: a
// request's messages or contents, a response's choices, candidates or
// output, or one message.
func (g *genGather) containerObject(x map[string]any, def string, depth int) {
	switch {
	case x["messages"] != nil:
		g.container(x["messages"], def, depth+1)
	case x["contents"] != nil:
		g.container(x["contents"], def, depth+1)
	case gArr(x, "choices") != nil:
		g.firstChoice(gArr(x, "choices"))
	case gArr(x, "candidates") != nil:
		if c, ok := gArr(x, "candidates")[0].(map[string]any); ok {
			g.container(c["content"], "assistant", depth+1)
		}
	case gStr(x, "object") == "response" || (gArr(x, "output") != nil && x["role"] == nil):
		g.container(x["output"], "assistant", depth+1)
	case x["new_message"] != nil:
		g.container(x["new_message"], def, depth+1)
	case x["content"] != nil && x["role"] == nil && x["type"] == nil:
		g.bareContent(x, def, depth)
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

// firstChoice reads a completion's choices: the first one is the one the
// agent used.
func (g *genGather) firstChoice(choices []any) {
	for _, c := range choices {
		cm, ok := c.(map[string]any)
		if !ok {
			continue
		}
		if m := gObj(cm, "message"); m != nil {
			g.message(m, "assistant")
		} else if t := gStr(cm, "text"); t != "" {
			g.msgs = append(g.msgs, genMsg{Role: "assistant", Parts: []genPart{{Kind: "text", Text: t}}})
		}
		return
	}
}

// bareContent reads an object whose only message field is content.
func (g *genGather) bareContent(x map[string]any, def string, depth int) {
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
	if g.item(m) {
		return
	}
	if t := gStr(m, "type"); m["role"] == nil && (t == "human" || t == "ai" || t == "tool" || t == "system") {
		// LangChain message dicts name the role as type.
		m2 := make(map[string]any, len(m)+1)
		for k, v := range m {
			m2[k] = v
		}
		m2["role"] = t
		m = m2
	}
	if g.sdkToolPart(m) {
		return
	}
	role, toolName := genMessageRole(m, def)
	if role == "" {
		return
	}
	role, parts, textCalls := genContentParts(m, role, toolName)
	parts = append(parts, genParts(gArr(m, "parts"))...)
	for _, r := range []string{"reasoning_content", "reasoning", "thinking"} {
		if s, ok := m[r].(string); ok {
			parts = append([]genPart{{Kind: "reasoning", Text: s}}, parts...)
		}
	}
	parts = append(parts, genMessageCalls(m, textCalls)...)
	if len(parts) > 0 {
		g.msgs = append(g.msgs, genMsg{Role: role, Parts: parts})
	}
}

// item reads an item-shaped entry (OpenAI Responses): a function call,
// its output, or reasoning. It reports whether m was one.
func (g *genGather) item(m map[string]any) bool {
	add := func(role string, parts ...genPart) {
		g.msgs = append(g.msgs, genMsg{Role: role, Parts: parts})
	}
	switch gStr(m, "type") {
	case "function_call":
		add("assistant", genPart{Kind: "call", ID: genCallID(m, "call_id", "id"), Name: gStr(m, "name"), Args: genArgs(m["arguments"])})
	case "function_call_output":
		r, _ := genResult(m["output"])
		add("tool", genPart{Kind: "result", ID: genCallID(m, "call_id"), Result: r})
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
	default:
		return false
	}
	return true
}

// sdkToolPart reads a Vercel AI SDK tool part with no role: a call, or
// the result of one. It reports whether m was one.
func (g *genGather) sdkToolPart(m map[string]any) bool {
	if m["role"] != nil || m["toolCallId"] == nil || m["toolName"] == nil {
		return false
	}
	if m["output"] != nil || m["result"] != nil {
		r, _ := genResult(firstNonNil(m["output"], m["result"]))
		g.msgs = append(g.msgs, genMsg{Role: "tool", Parts: []genPart{{Kind: "result", ID: genCallID(m, "toolCallId"), Name: gStr(m, "toolName"), Result: r}}})
	} else {
		g.msgs = append(g.msgs, genMsg{Role: "assistant", Parts: []genPart{{Kind: "call", ID: genCallID(m, "toolCallId"), Name: gStr(m, "toolName"), Args: genArgs(firstNonNil(m["input"], m["args"]))}}})
	}
	return true
}

// genMessageRole is a message's chat role ("" to skip it) and the tool
// it names.
func genMessageRole(m map[string]any, def string) (role, toolName string) {
	rawRole := gStr(m, "role")
	role = genRole(rawRole)
	toolName = gStr(m, "name")
	if role == "" && rawRole != "" && !strings.ContainsAny(rawRole, " \t\n") {
		// A role that is no chat role names the tool whose result the
		// message is (LangGraph.js writes {role: "get_weather"}).
		role, toolName = "tool", rawRole
	}
	if role == "" {
		role = def
	}
	return role, toolName
}

// genContentParts reads a message's content: text, a tool's result,
// blocks, or tool calls written as the content's JSON text (which make
// the message the assistant's, returned as textCalls).
func genContentParts(m map[string]any, role, toolName string) (_ string, parts []genPart, textCalls []any) {
	text := func(kind, s string) {
		if strings.TrimSpace(s) != "" {
			parts = append(parts, genPart{Kind: kind, Text: s})
		}
	}
	toolCallID := gStr(m, "tool_call_id", "toolCallId")
	content := m["content"]
	if s, ok := content.(string); ok {
		if calls := genTextCalls(s); calls != nil {
			// koog writes an assistant's tool calls as the JSON text of
			// the message content (and labels the message role tool in
			// the history): the calls, not text or a result.
			role, textCalls, content = "assistant", calls, nil
		}
	}
	switch c := content.(type) {
	case string:
		if role == "tool" {
			r, _ := genResult(c)
			parts = append(parts, genPart{Kind: "result", ID: toolCallID, Name: toolName, Result: r})
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
	return role, parts, textCalls
}

// genMessageCalls reads the tool calls a message makes: tool_calls (or
// LangChain's additional_kwargs.tool_calls), and the legacy function_call.
func genMessageCalls(m map[string]any, textCalls []any) []genPart {
	var parts []genPart
	calls := append(textCalls, genList(m["tool_calls"])...)
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
			parts = append(parts, genPart{Kind: "call", ID: genCallID(cm, "id"), Name: gStr(fn, "name"), Args: genArgs(fn["arguments"])})
		} else {
			parts = append(parts, genPart{Kind: "call", ID: genCallID(cm, "id"), Name: gStr(cm, "name"), Args: genArgs(firstNonNil(cm["args"], cm["arguments"], cm["input"]))})
		}
	}
	if fc := gObj(m, "function_call"); fc != nil {
		parts = append(parts, genPart{Kind: "call", Name: gStr(fc, "name"), Args: genArgs(fc["arguments"])})
	}
	return parts
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
			return []genPart{{Kind: "call", ID: genCallID(x, "id"), Name: gStr(x, "name"), Args: genArgs(x["input"])}}
		case "tool-call":
			return []genPart{{Kind: "call", ID: genCallID(x, "toolCallId"), Name: gStr(x, "toolName"), Args: genArgs(firstNonNil(x["input"], x["args"]))}}
		case "tool_result":
			isErr, _ := x["is_error"].(bool)
			r, e2 := genResult(genToolResultContent(x["content"]))
			return []genPart{{Kind: "result", ID: genCallID(x, "tool_use_id"), Result: r, IsErr: isErr || e2}}
		case "tool-result":
			r, _ := genResult(firstNonNil(x["output"], x["result"]))
			if o := gObj(x, "output"); o != nil && o["value"] != nil && o["type"] != nil {
				r, _ = genResult(o["value"]) // AI SDK v5 {type:"json"|"text", value}
			}
			return []genPart{{Kind: "result", ID: genCallID(x, "toolCallId"), Name: gStr(x, "toolName"), Result: r}}
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
			out = append(out, genPart{Kind: "call", ID: genCallID(fc, "id"), Name: gStr(fc, "name"), Args: genArgs(fc["args"])})
			continue
		}
		if fr := firstObj(pm, "function_response", "functionResponse"); fr != nil {
			r, _ := genResult(fr["response"])
			out = append(out, genPart{Kind: "result", ID: genCallID(fr, "id"), Name: gStr(fr, "name"), Result: r})
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
			out = append(out, genPart{Kind: "call", ID: genCallID(pm, "id"), Name: gStr(pm, "name"), Args: genArgs(pm["arguments"])})
		case "tool_call_response":
			r, _ := genResult(pm["response"])
			out = append(out, genPart{Kind: "result", ID: genCallID(pm, "id"), Result: r})
		case "server_tool_call": // a provider-run tool (code interpreter, web search)
			out = append(out, genPart{Kind: "call", ID: genCallID(pm, "id"), Name: gStr(pm, "name"), Args: genArgs(pm["server_tool_call"])})
		case "server_tool_call_response":
			out = append(out, genPart{Kind: "result", ID: genCallID(pm, "id"), Result: genJSON(pm["server_tool_call_response"])})
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

// genUSD rounds a summed cost to a billionth of a dollar, so float sums
// read as the source wrote them.
func genUSD(usd float64) float64 { return math.Round(usd*1e9) / 1e9 }

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

// genCallID reads a tool call id: a string, or an array of strings, of
// which the last is the call's own id (Microsoft Agent Framework records
// [response_id, call_id]): one call, not two.
func genCallID(m map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case []any:
			for i := len(v) - 1; i >= 0; i-- {
				if s, ok := v[i].(string); ok && s != "" {
					return s
				}
			}
		}
	}
	return ""
}

// genRoleLine matches the start of a message in a conversation flattened
// to text ("system: …\nuser: …").
var genRoleLine = regexp.MustCompile(`(?m)^(system|developer|user|human|assistant|ai|tool|function): ?`)

// genPyRepr matches a message written as a Python repr (agno's
// "role='user' content='…' name=None …").
var genPyRepr = regexp.MustCompile(`^role='(\w+)' content=(None|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")`)

// genPyDict matches a message written as a Python dict repr (beeai's
// "{'role': 'assistant', 'text': '…'}").
var genPyDict = regexp.MustCompile(`^\{'role': '(\w+)', '(?:text|content)': (?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\}$`)

// genFlattened reads the messages of a conversation some frameworks log
// as one string: a Python repr of a message (or of a message dict), or "role: text" turns one
// after another. nil when s is neither.
func genFlattened(s string) []map[string]any {
	if m := genPyRepr.FindStringSubmatch(s); m != nil {
		if m[2] == "None" {
			return []map[string]any{}
		}
		return []map[string]any{{"role": m[1], "content": genPyUnquote(m[3] + m[4])}}
	}
	if m := genPyDict.FindStringSubmatch(strings.TrimSpace(s)); m != nil {
		return []map[string]any{{"role": m[1], "content": genPyUnquote(m[2] + m[3])}}
	}
	locs := genRoleLine.FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 || locs[0][0] != 0 {
		return nil
	}
	var out []map[string]any
	for i, l := range locs {
		end := len(s)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		text := strings.TrimRight(s[l[1]:end], "\n")
		if strings.TrimSpace(text) == "" || text == "None" {
			continue
		}
		out = append(out, map[string]any{"role": s[l[2]:l[3]], "content": text})
	}
	return out
}

// genPyUnquote undoes the escapes of a Python string literal's body.
func genPyUnquote(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		default: // \\ \' \"
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// genTextCalls reads message text that is a JSON array of OpenAI tool
// calls ({type: function, function: {name, arguments}, id}); nil when it
// is not.
func genTextCalls(s string) []any {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "[{") {
		return nil
	}
	v, ok := genMaybeJSON(t)
	list, _ := v.([]any)
	if !ok || len(list) == 0 {
		return nil
	}
	for _, e := range list {
		em, _ := e.(map[string]any)
		if gStr(em, "type") != "function" || gStr(gObj(em, "function"), "name") == "" {
			return nil
		}
	}
	return list
}
