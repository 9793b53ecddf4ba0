package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// OpenInference (Arize Phoenix) spans: Phoenix span JSON ({name, context,
// parent_id, start_time, attributes}) one per file, per line or in an
// array, attributes nested or flattened (llm.input_messages.0.message.role),
// a bare attribute map, or OTLP JSON whose spans carry OpenInference
// attributes.
func init() {
	register(Format{
		Name:     "openinference",
		Priority: 50,
		Doc:      "OpenInference / Arize Phoenix spans: span JSON or attribute maps with openinference.span.kind and llm.* attributes, Phoenix span exports (span_kind at the top; array, JSONL or a dict of named span lists); emitted by Arize Phoenix and the OpenInference instrumentations",
		Detect: func(head []byte) bool {
			m := headObject(head)
			return m != nil && isOpenInference(head, m)
		},
		Parse: parseOpenInference,
	})
}

// isOpenInference reports whether a head holds OpenInference spans: the
// openinference.span.kind attribute or flattened llm.* attributes, at the
// top (attribute map) or under attributes (Phoenix span JSON, OTLP).
func isOpenInference(head []byte, m map[string]json.RawMessage) bool {
	if bytes.Contains(head, []byte(`"openinference.span.kind"`)) {
		return true
	}
	// Phoenix's span export (px.Client().get_spans / the spans REST API):
	// span_kind at the top level beside context.trace_id, one span per
	// line, in an array, or in a dict of named span lists.
	if bytes.Contains(head, []byte(`"span_kind"`)) && bytes.Contains(head, []byte(`"context"`)) && bytes.Contains(head, []byte(`"trace_id"`)) {
		return true
	}
	if hasKeyPrefix(m, "llm.") || hasKeyPrefix(m, "attributes.llm.") {
		return true
	}
	if a, ok := m["attributes"]; ok && len(a) > 0 && a[0] == '{' {
		var am map[string]json.RawMessage
		if json.Unmarshal(a, &am) == nil && (am["llm"] != nil || hasKeyPrefix(am, "llm.")) {
			return true
		}
	}
	return false
}

func parseOpenInference(ctx context.Context, r io.Reader, file string, emit Emit) error {
	g := newSpanGroups(file, otelIdle, func(id string, spans []*genSpan) Record {
		return spanRecord(file, "openinference", id, spans, oiTrace)
	})
	rec := 0
	err := genRecords(ctx, r, func(n int, raw []byte) error {
		rec++
		spans, lerr := oiDecode(file, n, raw)
		if lerr != nil {
			return emit(Record{Line: n, Err: lerr})
		}
		var grouped []*genSpan
		for _, sp := range spans {
			if sp.TraceID == "" { // an attribute map: a trace of its own
				if err := emit(spanRecord(file, "openinference", genID("openinference", raw), []*genSpan{sp}, oiTrace)); err != nil {
					return err
				}
				continue
			}
			grouped = append(grouped, sp)
		}
		return g.add(rec, grouped, emit)
	})
	if err != nil {
		return err
	}
	return g.flush(emit)
}

// oiDecode reads one record into spans whose Attrs are the attribute tree
// (dotted keys expanded, so nested and flattened forms read alike).
func oiDecode(file string, n int, raw []byte) ([]*genSpan, *LineError) {
	if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
		return nil, &LineError{File: file, Line: n, Msg: "expected a JSON object (a span or an attribute map) or an array of spans"}
	}
	if bytes.Contains(raw[:min(len(raw), 64)], []byte(`"resourceSpans"`)) || bytes.HasPrefix(bytes.TrimSpace(raw[1:]), []byte(`"resourceSpans"`)) {
		spans, _, lerr := otelDecode(file, n, raw)
		for _, sp := range spans {
			sp.Attrs = genTree(sp.Attrs)
		}
		return spans, lerr
	}
	v, err := genDecode(raw)
	if err != nil {
		return nil, jsonError(file, n, raw, err)
	}
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case map[string]any:
		if x["resourceSpans"] != nil {
			spans, _, lerr := otelDecode(file, n, raw)
			for _, sp := range spans {
				sp.Attrs = genTree(sp.Attrs)
			}
			return spans, lerr
		}
		items = []any{x}
		if lists := oiNamedLists(x); lists != nil {
			items = lists
		}
	}
	var out []*genSpan
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, &LineError{File: file, Line: n, Path: "[" + strconv.Itoa(i) + "]", Msg: "expected a span object"}
		}
		tree := genTree(m)
		if k := gStr(m, "span_kind"); k != "" {
			// The export's top-level span_kind is the span kind attribute.
			if attrs := gObj(tree, "attributes"); attrs != nil && gPathStr(attrs, "openinference", "span", "kind") == "" {
				oi := gObj(attrs, "openinference")
				if oi == nil {
					oi = map[string]any{}
					attrs["openinference"] = oi
				}
				sp := gObj(oi, "span")
				if sp == nil {
					sp = map[string]any{}
					oi["span"] = sp
				}
				sp["kind"] = k
			}
		}
		sp := &genSpan{Line: n, Name: gStr(tree, "name")}
		attrs := gObj(tree, "attributes")
		if attrs == nil {
			attrs = tree // a bare attribute map
		} else {
			ctxm := gObj(tree, "context")
			sp.TraceID = gStr(ctxm, "trace_id")
			sp.SpanID = gStr(ctxm, "span_id")
			sp.Parent = gStr(tree, "parent_id")
			sp.Start = genParseTime(gStr(tree, "start_time"))
			sp.Error = strings.EqualFold(gStr(tree, "status_code"), "ERROR")
			if sp.TraceID == "" && sp.SpanID != "" {
				return nil, &LineError{File: file, Line: n, Path: "context.trace_id", Msg: "required when context.span_id is given"}
			}
		}
		sp.Attrs = attrs
		out = append(out, sp)
	}
	return out, nil
}

// oiNamedLists returns the spans of a dict of named span lists ({"run a":
// [span…], "run b": [span…]}), nil when x is not one.
func oiNamedLists(x map[string]any) []any {
	if x["context"] != nil || x["attributes"] != nil || len(x) == 0 {
		return nil
	}
	var out []any
	for _, k := range slices.Sorted(maps.Keys(x)) {
		list, ok := x[k].([]any)
		if !ok {
			return nil
		}
		for _, it := range list {
			if m, ok := it.(map[string]any); !ok || m["context"] == nil {
				return nil
			}
		}
		out = append(out, list...)
	}
	return out
}

// gPath walks nested maps.
func gPath(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		cm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = cm[k]
	}
	return cur
}

func gPathStr(m map[string]any, keys ...string) string {
	switch v := gPath(m, keys...).(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

// oiMessages turns llm.input_messages / llm.output_messages (list or
// index map of {message: {...}}) into provider-neutral messages.
func oiMessages(v any, def string) []genMsg {
	var list []any
	for _, it := range genList(v) {
		im, _ := it.(map[string]any)
		msg := gObj(im, "message")
		if msg == nil {
			continue
		}
		out := map[string]any{"role": gStr(msg, "role")}
		if c, ok := msg["content"].(string); ok {
			out["content"] = c
		}
		var blocks []any
		for _, c := range genList(msg["contents"]) {
			cm, _ := c.(map[string]any)
			mc := gObj(cm, "message_content")
			if tc := gObj(cm, "tool_call"); tc != nil {
				blocks = append(blocks, map[string]any{"type": "tool_use", "id": gStr(tc, "id"),
					"name": gPathStr(tc, "function", "name"), "input": gPath(tc, "function", "arguments")})
				continue
			}
			switch gStr(mc, "type") {
			case "text":
				blocks = append(blocks, map[string]any{"type": "text", "text": gStr(mc, "text")})
			case "reasoning":
				if t := gStr(mc, "text"); t != "" {
					blocks = append(blocks, map[string]any{"type": "thinking", "thinking": t})
				} else if mc["data"] != nil {
					blocks = append(blocks, map[string]any{"type": "redacted_thinking"})
				}
			}
		}
		if len(blocks) > 0 {
			if c, ok := out["content"].(string); ok && c != "" {
				blocks = append([]any{map[string]any{"type": "text", "text": c}}, blocks...)
			}
			out["content"] = blocks
		}
		var calls []any
		for _, c := range genList(msg["tool_calls"]) {
			cm, _ := c.(map[string]any)
			tc := gObj(cm, "tool_call")
			if tc == nil {
				continue
			}
			calls = append(calls, map[string]any{"id": gStr(tc, "id"),
				"function": map[string]any{"name": gPathStr(tc, "function", "name"), "arguments": gPath(tc, "function", "arguments")}})
		}
		if calls != nil {
			out["tool_calls"] = calls
		}
		if id := gStr(msg, "tool_call_id"); id != "" {
			out["tool_call_id"] = id
		}
		if name := gStr(msg, "name"); name != "" {
			out["name"] = name
		}
		list = append(list, out)
	}
	msgs, _ := genMessages(list, def)
	return msgs
}

// oiTrace applies the OpenInference conventions to the spans of a trace.
func oiTrace(t *model.Trace, spans []*genSpan) {
	order := genSpanOrder(len(spans),
		func(i int) string { return spans[i].SpanID },
		func(i int) string { return spans[i].Parent },
		func(i int) int64 { return spans[i].Start })
	kind := func(sp *genSpan) string { return strings.ToUpper(gPathStr(sp.Attrs, "openinference", "span", "kind")) }
	llm := false
	for _, sp := range spans {
		if sp.Attrs["llm"] != nil || kind(sp) == "LLM" || kind(sp) == "TOOL" {
			llm = true
		}
	}
	c := newGenConvo()
	var start int64
	usd := 0.0
	for _, i := range order {
		sp := spans[i]
		a := sp.Attrs
		if sp.Start > 0 && (start == 0 || sp.Start < start) {
			start = sp.Start
		}
		if t.AsUser == "" {
			t.AsUser = gPathStr(a, "user", "id")
		}
		if s := gPathStr(a, "session", "id"); s != "" && t.Metadata["session_id"] == nil {
			if t.Metadata == nil {
				t.Metadata = map[string]any{}
			}
			t.Metadata["session_id"] = s
		}
		if t.Server == "" {
			if s := gStr(sp.Res, "service.name"); s != "" && !strings.HasPrefix(s, "unknown_service") {
				t.Server = s
			}
		}
		for _, tool := range genList(gPath(a, "llm", "tools")) {
			tm, _ := tool.(map[string]any)
			schema := gPath(tm, "tool", "json_schema")
			if s, ok := schema.(string); ok {
				schema, _ = genMaybeJSON(s)
			}
			if sm, ok := schema.(map[string]any); ok {
				c.contract(sm)
			}
		}
		if m, ok := gPath(a, "llm", "model_name").(string); ok && m != "" && t.Model == "" {
			t.Model = m
		}
		t.Usage.InputTokens += gInt(gPath(a, "llm", "token_count", "prompt"))
		t.Usage.OutputTokens += gInt(gPath(a, "llm", "token_count", "completion"))
		usd += gFloat(gPath(a, "llm", "cost", "total"))
		inValue, outValue := gPath(a, "input", "value"), gPath(a, "output", "value")
		switch k := kind(sp); {
		case k == "TOOL":
			name := genFirstString(gPathStr(a, "tool", "name"), gPathStr(a, "tool_call", "function", "name"), sp.Name)
			var args json.RawMessage
			if v := firstNonNil(gPath(a, "tool_call", "function", "arguments"), inValue); v != nil {
				args = genArgs(v)
			}
			var result json.RawMessage
			isErr := sp.Error
			if outValue != nil {
				var e2 bool
				result, e2 = genResult(outValue)
				isErr = isErr || e2
			}
			c.execution(gPathStr(a, "tool_call", "id"), name, args, result, isErr)
			if d := gPathStr(a, "tool", "description"); d != "" {
				def := map[string]any{"name": name, "description": d}
				if p, ok := genMaybeJSON(gPathStr(a, "tool", "parameters")); ok {
					def["parameters"] = p
				}
				c.contract(def)
			}
		case a["llm"] != nil || k == "LLM":
			in := oiMessages(gPath(a, "llm", "input_messages"), "user")
			out := oiMessages(gPath(a, "llm", "output_messages"), "assistant")
			if len(in) == 0 && inValue != nil {
				in, _ = genMessages(inValue, "user")
			}
			if len(out) == 0 && outValue != nil {
				out, _ = genMessages(outValue, "assistant")
			}
			c.turn(in, out)
		case !llm && (inValue != nil || outValue != nil):
			// A chain or agent with no LLM span under it: its input and
			// output are the question and the answer.
			in, _ := genMessages(inValue, "user")
			out, _ := genMessages(outValue, "assistant")
			c.turn(in, out)
		}
	}
	if usd > 0 {
		t.Usage.USD = genUSD(usd)
	}
	if len(order) > 0 && spans[order[0]].Error {
		t.Outcome = model.OutcomeFailure
	}
	t.StartedAt = genTime(start)
	c.finish(t)
}
