package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// OpenTelemetry GenAI semantic conventions in OTLP JSON: one
// ExportTraceServiceRequest per file or per line (collector file exporter),
// a bare OTLP span per line, or a flat attribute map of one span.
func init() {
	register(Format{
		Name:     "otel",
		Priority: 60,
		Doc:      "OpenTelemetry GenAI spans: OTLP JSON (resourceSpans) per file or per line, or a flat gen_ai.* attribute map",
		Detect:   detectOtel,
		Parse:    parseOtel,
	})
}

func detectOtel(head []byte) bool {
	m := headObject(head)
	if m == nil || isOpenInference(head, m) {
		return false
	}
	if _, ok := m["resourceSpans"]; ok {
		return true
	}
	if spanDumpHead(m) { // every span dump the AI SDK's reader does not take
		return !detectVercelAI(head)
	}
	if _, ok := m["traceId"]; ok && m["spanId"] != nil && bytes.Contains(head, []byte(`"gen_ai.`)) {
		return true
	}
	return hasKeyPrefix(m, "gen_ai.")
}

// genSpan is one span of either span format, its attributes decoded.
type genSpan struct {
	TraceID, SpanID, Parent, Name string
	Start                         int64
	Attrs                         map[string]any
	Res                           map[string]any // resource attributes
	Events                        []genEvent
	Error                         bool
	Line                          int
}

type genEvent struct {
	Name  string
	Attrs map[string]any
}

func (s *genSpan) attr(keys ...string) any {
	for _, k := range keys {
		if v, ok := s.Attrs[k]; ok && v != nil {
			return v
		}
	}
	return nil
}

func (s *genSpan) str(keys ...string) string { return gStr(s.Attrs, keys...) }

// OTLP JSON wire shapes (opentelemetry-proto, JSON mapping).
type otlpResourceSpans struct {
	Resource struct {
		Attributes []otlpKV `json:"attributes"`
	} `json:"resource"`
	ScopeSpans []struct {
		Spans []otlpSpan `json:"spans"`
	} `json:"scopeSpans"`
	InstrumentationLibrarySpans []struct {
		Spans []otlpSpan `json:"spans"`
	} `json:"instrumentationLibrarySpans"`
}

type otlpSpan struct {
	TraceID      string      `json:"traceId"`
	SpanID       string      `json:"spanId"`
	ParentSpanID string      `json:"parentSpanId"`
	Name         string      `json:"name"`
	Start        otlpInt     `json:"startTimeUnixNano"`
	Attributes   []otlpKV    `json:"attributes"`
	Events       []otlpEvent `json:"events"`
	Status       struct {
		Code json.RawMessage `json:"code"`
	} `json:"status"`
}

type otlpEvent struct {
	Name       string   `json:"name"`
	Attributes []otlpKV `json:"attributes"`
}

type otlpKV struct {
	Key   string  `json:"key"`
	Value otlpAny `json:"value"`
}

// otlpAny is an AnyValue; intValue is a string in the JSON mapping but
// some exporters write a number.
type otlpAny struct {
	StringValue *string `json:"stringValue"`
	IntValue    otlpInt `json:"intValue"`
	BoolValue   *bool   `json:"boolValue"`
	DoubleValue any     `json:"doubleValue"`
	BytesValue  *string `json:"bytesValue"`
	ArrayValue  *struct {
		Values []otlpAny `json:"values"`
	} `json:"arrayValue"`
	KvlistValue *struct {
		Values []otlpKV `json:"values"`
	} `json:"kvlistValue"`
}

// otlpInt accepts 123 and "123".
type otlpInt struct {
	Set bool
	N   int64
}

func (o *otlpInt) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	s := strings.Trim(string(b), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if f, ferr := strconv.ParseFloat(s, 64); ferr == nil {
			n, err = int64(f), nil
		} else {
			return &otlpIntError{raw: append([]byte(nil), b...)}
		}
	}
	o.Set, o.N = true, n
	return nil
}

// otlpIntError names the bad value so the decoder can find its path.
type otlpIntError struct{ raw []byte }

func (e *otlpIntError) Error() string { return "expected an integer, got " + string(e.raw) }

// otlpDecode unmarshals an OTLP record, reporting a bad integer at its path.
func otlpDecode(file string, n int, raw []byte, v any) *LineError {
	err := json.Unmarshal(raw, v)
	var ie *otlpIntError
	if errors.As(err, &ie) {
		path := ""
		if off := bytes.Index(raw, ie.raw); off >= 0 {
			path = pathAt(raw, int64(off+len(ie.raw)))
		}
		return &LineError{File: file, Line: n, Path: path, Msg: ie.Error()}
	}
	if err != nil {
		return jsonError(file, n, raw, err)
	}
	return nil
}

func (a otlpAny) value() any {
	switch {
	case a.StringValue != nil:
		return *a.StringValue
	case a.IntValue.Set:
		return json.Number(strconv.FormatInt(a.IntValue.N, 10))
	case a.BoolValue != nil:
		return *a.BoolValue
	case a.DoubleValue != nil:
		switch d := a.DoubleValue.(type) {
		case float64:
			return json.Number(strconv.FormatFloat(d, 'g', -1, 64))
		case string:
			// The JSON mapping writes NaN and the infinities as strings.
			if f, err := strconv.ParseFloat(d, 64); err == nil && json.Valid([]byte(d)) && !math.IsInf(f, 0) {
				return json.Number(d)
			}
			return d
		}
		return nil
	case a.BytesValue != nil:
		return *a.BytesValue
	case a.ArrayValue != nil:
		out := make([]any, len(a.ArrayValue.Values))
		for i, v := range a.ArrayValue.Values {
			out[i] = v.value()
		}
		return out
	case a.KvlistValue != nil:
		return otlpAttrs(a.KvlistValue.Values)
	}
	return nil
}

func otlpAttrs(kvs []otlpKV) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value.value()
	}
	return m
}

func (s otlpSpan) toGen(res map[string]any, line int) *genSpan {
	g := &genSpan{
		TraceID: strings.ToLower(s.TraceID), SpanID: strings.ToLower(s.SpanID), Parent: strings.ToLower(s.ParentSpanID),
		Name: s.Name, Start: s.Start.N, Attrs: otlpAttrs(s.Attributes), Res: res, Line: line,
	}
	code := strings.Trim(string(s.Status.Code), `"`)
	g.Error = code == "2" || code == "STATUS_CODE_ERROR"
	for _, e := range s.Events {
		g.Events = append(g.Events, genEvent{Name: e.Name, Attrs: otlpAttrs(e.Attributes)})
	}
	return g
}

// otelIdle is how many records a trace may go without a new span before
// it is taken as complete and emitted; it bounds memory on long files.
const otelIdle = 1000

func parseOtel(ctx context.Context, r io.Reader, file string, emit Emit) error {
	g := newSpanGroups(file, otelIdle, func(id string, spans []*genSpan) Record {
		return spanRecord(file, "otel", id, spans, otelTrace)
	})
	rec := 0
	err := genRecords(ctx, r, func(n int, raw []byte) error {
		rec++
		spans, flat, lerr := otelDecode(file, n, raw)
		if lerr != nil {
			return emit(Record{Line: n, Err: lerr})
		}
		if flat != nil {
			return emit(spanRecord(file, "otel", genID("otel", raw), []*genSpan{flat}, otelTrace))
		}
		return g.add(rec, spans, emit)
	})
	if err != nil {
		return err
	}
	return g.flush(emit)
}

// otelDecode reads one record: an OTLP request, a bare OTLP span, or a
// flat attribute map (returned as flat, a trace of its own).
func otelDecode(file string, n int, raw []byte) ([]*genSpan, *genSpan, *LineError) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, nil, &LineError{File: file, Line: n, Msg: "expected a JSON object: an OTLP request with resourceSpans, an OTLP span, or a gen_ai.* attribute map"}
	}
	if bytes.Contains(raw, []byte(`"spanName"`)) { // a span dump (spandump.go)
		if v, err := genDecode(raw); err == nil {
			if sp := spanDump(asObj(v), "", n); sp != nil {
				return nil, sp, nil
			}
		}
	}
	var rec struct {
		ResourceSpans []otlpResourceSpans `json:"resourceSpans"`
		otlpSpan
	}
	if lerr := otlpDecode(file, n, raw, &rec); lerr != nil {
		return nil, nil, lerr
	}
	switch {
	case rec.ResourceSpans != nil:
		var out []*genSpan
		for i, rs := range rec.ResourceSpans {
			res := otlpAttrs(rs.Resource.Attributes)
			scopes := append(rs.ScopeSpans, rs.InstrumentationLibrarySpans...)
			for j, ss := range scopes {
				for k, sp := range ss.Spans {
					if sp.TraceID == "" {
						return nil, nil, &LineError{File: file, Line: n, Path: fmt.Sprintf("resourceSpans[%d].scopeSpans[%d].spans[%d].traceId", i, j, k), Msg: "required, the hex trace id"}
					}
					out = append(out, sp.toGen(res, n))
				}
			}
		}
		return out, nil, nil
	case rec.TraceID != "" || rec.SpanID != "":
		if rec.TraceID == "" {
			return nil, nil, &LineError{File: file, Line: n, Path: "traceId", Msg: "required, the hex trace id"}
		}
		return []*genSpan{rec.otlpSpan.toGen(nil, n)}, nil, nil
	}
	v, err := genDecode(raw)
	if err != nil {
		return nil, nil, jsonError(file, n, raw, err)
	}
	attrs, _ := v.(map[string]any)
	if !hasAnyPrefix(attrs, "gen_ai.") {
		return nil, nil, &LineError{File: file, Line: n, Msg: "expected resourceSpans, an OTLP span (traceId, spanId) or gen_ai.* attributes"}
	}
	return nil, &genSpan{Attrs: attrs, Line: n}, nil
}

func hasAnyPrefix(m map[string]any, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// spanGroups gathers spans by trace id and emits a trace once no span of
// it arrived for idle records (or at the end of the file).
type spanGroups struct {
	file  string
	idle  int
	open  map[string]*spanGroup
	order []string
	done  map[string]bool
	build func(id string, spans []*genSpan) Record
}

type spanGroup struct {
	spans []*genSpan
	last  int
	root  bool // the root span arrived: the trace ends soon
}

// rootIdle is how many records a trace whose root span arrived may still
// wait for late children (exporters batch spans as they end, so the root
// usually comes last).
const rootIdle = 16

func newSpanGroups(file string, idle int, build func(string, []*genSpan) Record) *spanGroups {
	return &spanGroups{file: file, idle: idle, open: map[string]*spanGroup{}, done: map[string]bool{}, build: build}
}

func (g *spanGroups) add(rec int, spans []*genSpan, emit Emit) error {
	for _, sp := range spans {
		if g.done[sp.TraceID] {
			if err := emit(Record{Line: sp.Line, Err: &LineError{File: g.file, Line: sp.Line,
				Msg: fmt.Sprintf("span %s of trace %s arrives after its trace was imported (%d records after its root span, or %d after its last span)", sp.SpanID, sp.TraceID, rootIdle, g.idle)}}); err != nil {
				return err
			}
			continue
		}
		gr := g.open[sp.TraceID]
		if gr == nil {
			gr = &spanGroup{}
			g.open[sp.TraceID] = gr
			g.order = append(g.order, sp.TraceID)
		}
		gr.spans = append(gr.spans, sp)
		gr.last = rec
		gr.root = gr.root || sp.Parent == ""
	}
	if rec%rootIdle != 0 {
		return nil
	}
	kept := g.order[:0]
	for _, id := range g.order {
		gr := g.open[id]
		if rec-gr.last > g.idle || gr.root && rec-gr.last > rootIdle {
			if err := g.emitOne(id, emit); err != nil {
				return err
			}
			continue
		}
		kept = append(kept, id)
	}
	g.order = kept
	return nil
}

func (g *spanGroups) emitOne(id string, emit Emit) error {
	gr := g.open[id]
	delete(g.open, id)
	g.done[id] = true
	return emit(g.build(id, gr.spans))
}

func (g *spanGroups) flush(emit Emit) error {
	for _, id := range g.order {
		if err := g.emitOne(id, emit); err != nil {
			return err
		}
	}
	g.order = nil
	return nil
}

// spanRecord converts the spans of one trace and checks the result is a
// trace: steps and a question.
func spanRecord(file, format, id string, spans []*genSpan, conv func(*model.Trace, []*genSpan)) Record {
	line := spans[0].Line
	for _, sp := range spans {
		line = min(line, sp.Line)
	}
	t := &model.Trace{TraceID: id}
	conv(t, spans)
	t.Source = model.Source{File: file, Format: format, Line: line}
	if len(t.Steps) == 0 {
		return Record{Line: line, Err: &LineError{File: file, Line: line,
			Msg: fmt.Sprintf("trace %s holds no conversation in its %d span(s): no input/output messages and no tool execution", id, len(spans))}}
	}
	if t.Question == "" {
		return Record{Line: line, Err: &LineError{File: file, Line: line,
			Msg: fmt.Sprintf("trace %s: no user message, so no question (%d steps; a fragment of a trace?)", id, len(t.Steps))}}
	}
	return Record{Line: line, Trace: t}
}

// otelTrace applies the GenAI conventions to the spans of one trace.
func otelTrace(t *model.Trace, spans []*genSpan) {
	order := genSpanOrder(len(spans),
		func(i int) string { return spans[i].SpanID },
		func(i int) string { return spans[i].Parent },
		func(i int) int64 { return spans[i].Start })
	c := newGenConvo()
	chat := otelHasChat(spans)
	var agentUsage model.Usage
	var start int64
	for _, i := range order {
		sp := spans[i]
		if sp.Start > 0 && (start == 0 || sp.Start < start) {
			start = sp.Start
		}
		otelSpanContext(t, sp)
		otelContracts(c, sp)
		op := sp.str("gen_ai.operation.name")
		agent := op == "invoke_agent" || op == "create_agent"
		u := model.Usage{InputTokens: gInt(sp.attr("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")),
			OutputTokens: gInt(sp.attr("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"))}
		if agent {
			agentUsage.InputTokens += u.InputTokens
			agentUsage.OutputTokens += u.OutputTokens
		} else {
			t.Usage.InputTokens += u.InputTokens
			t.Usage.OutputTokens += u.OutputTokens
		}
		switch {
		case op == "execute_tool":
			otelToolRun(c, sp)
		case agent && chat:
			// the chat spans below it carry the same conversation
		default:
			if in, out := otelMessages(sp); len(in)+len(out) > 0 {
				c.turn(in, out)
			}
		}
	}
	if t.Usage.InputTokens == 0 && t.Usage.OutputTokens == 0 {
		t.Usage = agentUsage
	}
	if t.Server == "" && t.Metadata["agent"] != nil {
		t.Server, _ = t.Metadata["agent"].(string)
	}
	if len(order) > 0 && spans[order[0]].Error {
		t.Outcome = model.OutcomeFailure
	}
	t.StartedAt = genTime(start)
	c.finish(t)
}

// otelHasChat reports whether a span other than an agent's or a tool's
// carries messages: then the agent spans repeat what the chat spans say.
func otelHasChat(spans []*genSpan) bool {
	for _, sp := range spans {
		op := sp.str("gen_ai.operation.name")
		if op != "invoke_agent" && op != "create_agent" && op != "execute_tool" && otelHasMessages(sp) {
			return true
		}
	}
	return false
}

// otelSpanContext takes who, where, which session, which agent and which
// model from the first span that names each.
func otelSpanContext(t *model.Trace, sp *genSpan) {
	if t.AsUser == "" {
		t.AsUser = genFirstString(sp.str("enduser.id", "user.id"), gStr(sp.Res, "enduser.id", "user.id"))
	}
	if t.Server == "" {
		if s := gStr(sp.Res, "service.name"); s != "" && !strings.HasPrefix(s, "unknown_service") {
			t.Server = s
		}
	}
	setMeta := func(k, v string) {
		if v == "" || t.Metadata[k] != nil {
			return
		}
		if t.Metadata == nil {
			t.Metadata = map[string]any{}
		}
		t.Metadata[k] = v
	}
	setMeta("session_id", genFirstString(sp.str("gen_ai.conversation.id", "session.id"), gStr(sp.Res, "session.id")))
	if op := sp.str("gen_ai.operation.name"); op == "invoke_agent" || op == "create_agent" {
		setMeta("agent", sp.str("gen_ai.agent.name"))
	}
	if m := sp.str("gen_ai.response.model", "gen_ai.request.model"); m != "" && t.Model == "" {
		t.Model = m
	}
}

// otelToolRun records an execute_tool span: the call's arguments, its
// result, whether it failed, and the tool's description as a contract.
func otelToolRun(c *genConvo, sp *genSpan) {
	var args, result json.RawMessage
	if a := sp.attr("gen_ai.tool.call.arguments", "input"); a != nil {
		args = genArgs(a)
	}
	isErr := sp.Error || sp.str("error.type") != ""
	if r := sp.attr("gen_ai.tool.call.result", "output"); r != nil {
		var e2 bool
		result, e2 = genResult(r)
		isErr = isErr || e2
	}
	c.execution(sp.str("gen_ai.tool.call.id"), sp.str("gen_ai.tool.name"), args, result, isErr)
	if d := sp.str("gen_ai.tool.description"); d != "" && sp.str("gen_ai.tool.name") != "" {
		c.contract(map[string]any{"name": sp.str("gen_ai.tool.name"), "description": d})
	}
}

func genFirstString(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// otelContracts reads gen_ai.tool.definitions (a JSON string or array).
func otelContracts(c *genConvo, sp *genSpan) {
	v := sp.attr("gen_ai.tool.definitions")
	if s, ok := v.(string); ok {
		v, _ = genMaybeJSON(s)
	}
	defs, _ := v.([]any)
	for _, d := range defs {
		if dm, ok := d.(map[string]any); ok {
			c.contract(dm)
		}
	}
}

func otelHasMessages(sp *genSpan) bool {
	if sp.attr("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.prompt", "gen_ai.completion") != nil {
		return true
	}
	if hasAnyPrefix(sp.Attrs, "gen_ai.prompt.") || hasAnyPrefix(sp.Attrs, "gen_ai.completion.") {
		return true
	}
	for _, e := range sp.Events {
		if strings.HasPrefix(e.Name, "gen_ai.") {
			return true
		}
	}
	return false
}

// otelMessages finds a span's input and output messages: the current
// gen_ai.input/output.messages attributes (on the span or on a
// gen_ai.client.inference.operation.details event), the deprecated
// gen_ai.prompt/completion attributes (whole or indexed), or the older
// per-message events.
func otelMessages(sp *genSpan) (in, out []genMsg) {
	attrs := sp.Attrs
	for _, e := range sp.Events {
		if e.Attrs["gen_ai.input.messages"] != nil || e.Attrs["gen_ai.output.messages"] != nil {
			attrs = e.Attrs
		}
	}
	if v := firstNonNil(attrs["gen_ai.input.messages"], sp.Attrs["gen_ai.prompt"]); v != nil {
		in, _ = genMessages(v, "user")
	} else if hasAnyPrefix(sp.Attrs, "gen_ai.prompt.") {
		in, _ = genMessages(genList(gObj(gObj(genTree(sp.Attrs), "gen_ai"), "prompt")), "user")
	}
	if v := firstNonNil(attrs["gen_ai.output.messages"], sp.Attrs["gen_ai.completion"]); v != nil {
		out, _ = genMessages(v, "assistant")
	} else if hasAnyPrefix(sp.Attrs, "gen_ai.completion.") {
		out, _ = genMessages(genList(gObj(gObj(genTree(sp.Attrs), "gen_ai"), "completion")), "assistant")
	}
	if len(in)+len(out) > 0 {
		return in, out
	}
	for _, e := range sp.Events {
		m := map[string]any{}
		for k, v := range e.Attrs {
			m[strings.TrimPrefix(k, "gen_ai.")] = v
		}
		if s, ok := m["tool_calls"].(string); ok {
			m["tool_calls"], _ = genMaybeJSON(s)
		}
		switch e.Name {
		case "gen_ai.system.message":
		case "gen_ai.user.message":
			m["role"] = "user"
			msgs, _ := genMessages(m, "user")
			in = append(in, msgs...)
		case "gen_ai.assistant.message":
			m["role"] = "assistant"
			msgs, _ := genMessages(m, "assistant")
			in = append(in, msgs...)
		case "gen_ai.tool.message":
			m["role"] = "tool"
			if m["tool_call_id"] == nil {
				m["tool_call_id"] = m["id"]
			}
			msgs, _ := genMessages(m, "tool")
			in = append(in, msgs...)
		case "gen_ai.choice":
			msg := m["message"]
			if s, ok := msg.(string); ok {
				msg, _ = genMaybeJSON(s)
			}
			if msg == nil {
				msg = m
			}
			if mm, ok := msg.(map[string]any); ok {
				if s, ok := mm["tool_calls"].(string); ok {
					mm["tool_calls"], _ = genMaybeJSON(s)
				}
				if mm["role"] == nil {
					mm["role"] = "assistant"
				}
			}
			msgs, _ := genMessages(msg, "assistant")
			out = append(out, msgs...)
		case "gen_ai.content.prompt":
			msgs, _ := genMessages(m["prompt"], "user")
			in = append(in, msgs...)
		case "gen_ai.content.completion":
			msgs, _ := genMessages(m["completion"], "assistant")
			out = append(out, msgs...)
		}
	}
	return in, out
}

// genTree turns dotted keys into nested maps ("a.b.0.c" -> a{b{0{c}}}),
// recursively, so flattened and nested attribute forms read the same.
func genTree(v any) map[string]any {
	out := map[string]any{}
	m, _ := v.(map[string]any)
	for k, val := range m {
		val = genTreeValue(val)
		parts := strings.Split(k, ".")
		cur := out
		ok := true
		for _, p := range parts[:len(parts)-1] {
			next, exists := cur[p]
			if !exists {
				nm := map[string]any{}
				cur[p] = nm
				cur = nm
				continue
			}
			nm, isMap := next.(map[string]any)
			if !isMap {
				ok = false
				break
			}
			cur = nm
		}
		if !ok {
			out[k] = val
			continue
		}
		last := parts[len(parts)-1]
		if existing, isMap := cur[last].(map[string]any); isMap {
			if vm, ok := val.(map[string]any); ok {
				for kk, vv := range vm {
					existing[kk] = vv
				}
				continue
			}
		}
		cur[last] = val
	}
	return out
}

func genTreeValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return genTree(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = genTreeValue(e)
		}
		return out
	}
	return v
}

// genList reads an array, or a map keyed by indexes ("0", "3", ...) in
// index order.
func genList(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case map[string]any:
		type kv struct {
			i int
			v any
		}
		var items []kv
		for k, val := range x {
			if i, err := strconv.Atoi(k); err == nil {
				items = append(items, kv{i, val})
			}
		}
		for a := 1; a < len(items); a++ {
			for b := a; b > 0 && items[b].i < items[b-1].i; b-- {
				items[b], items[b-1] = items[b-1], items[b]
			}
		}
		out := make([]any, len(items))
		for i, it := range items {
			out[i] = it.v
		}
		return out
	}
	return nil
}
