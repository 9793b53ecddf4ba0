package importers

import (
	"context"
	"encoding/json"
	"io"
	"sort"

	"github.com/tracelab-dev/tracelab/model"
)

// OpenAI Agents SDK traces as its exporter sends them ({data: [item…]},
// or the items one per line or in an array): a trace {object: "trace",
// id, workflow_name, group_id, metadata} and its spans {object:
// "trace.span", id, trace_id, parent_id, started_at, ended_at, error,
// span_data}, where span_data.type is agent (name, tools, handoffs),
// generation (input and output messages, model, usage), function (name,
// input, output: a tool run), response (response_id, and input / output
// when the exporter keeps them), handoff, guardrail or custom. One trace
// per trace_id.
func init() {
	register(Format{
		Name:     "openai_agents",
		Priority: 30,
		Doc:      "OpenAI Agents SDK trace export (trace and trace.span objects with span_data agent/generation/function/response), {data:[…]}, JSON array or JSONL; emitted by openai-agents (Python, JS) trace processors",
		Detect:   detectOpenAIAgents,
		Parse:    parseOpenAIAgents,
	})
}

func detectOpenAIAgents(head []byte) bool {
	m := headObject(head)
	if m == nil {
		return false
	}
	if raw := m["data"]; len(raw) > 0 && raw[0] == '[' {
		m = headObject(raw)
		if m == nil {
			return false
		}
	}
	var obj string
	_ = json.Unmarshal(m["object"], &obj)
	return obj == "trace" && m["workflow_name"] != nil || obj == "trace.span" && m["span_data"] != nil
}

type agentsSpan struct {
	m    map[string]any
	line int
}

// agentsGroup is one trace being read: its trace object and spans.
type agentsGroup struct {
	id    string
	trace map[string]any
	spans []agentsSpan
}

func parseOpenAIAgents(ctx context.Context, r io.Reader, file string, emit Emit) error {
	open := newOpenRuns[*agentsGroup]()
	group := func(id string) *agentsGroup {
		g, ok := open.get(id)
		if !ok {
			g = &agentsGroup{id: id}
			open.add(id, g)
		}
		return g
	}
	flush := func(all bool) error {
		for _, g := range open.idle(all) {
			if err := emitAgentsTrace(file, g, emit); err != nil {
				return err
			}
		}
		return nil
	}
	err := genRecords(ctx, r, func(n int, raw []byte) error {
		open.next()
		v, err := genDecode(raw)
		if err != nil {
			return emit(Record{Line: n, Err: jsonError(file, n, raw, err)})
		}
		items, isList := v.([]any)
		if !isList {
			if d := gArr(asObj(v), "data"); d != nil {
				items = d
			} else {
				items = []any{v}
			}
		}
		for _, it := range items {
			m := asObj(it)
			switch gStr(m, "object") {
			case "trace":
				group(gStr(m, "id")).trace = m
			case "trace.span":
				g := group(gStr(m, "trace_id"))
				g.spans = append(g.spans, agentsSpan{m: m, line: n})
			default:
				if err := emit(Record{Line: n, Err: &LineError{File: file, Line: n, Path: "object", Msg: `expected "trace" or "trace.span"`}}); err != nil {
					return err
				}
			}
		}
		return flush(false)
	})
	if err == nil {
		err = flush(true)
	}
	return err
}

func emitAgentsTrace(file string, g *agentsGroup, emit Emit) error {
	t, line := agentsTrace(g.id, g.trace, g.spans)
	if len(t.Steps) == 0 {
		return emit(Record{Line: line, Err: &LineError{File: file, Line: line,
			Msg: "trace " + g.id + ": no generation, response or function span with content: no conversation to import"}})
	}
	t.Source = model.Source{File: file, Format: "openai_agents", Line: line}
	return emit(Record{Line: line, Trace: t})
}

func agentsTrace(tid string, tr map[string]any, spans []agentsSpan) (*model.Trace, int) {
	sort.SliceStable(spans, func(i, j int) bool { return runTime(spans[i].m["started_at"]) < runTime(spans[j].m["started_at"]) })
	order := genSpanOrder(len(spans),
		func(i int) string { return gStr(spans[i].m, "id") },
		func(i int) string { return gStr(spans[i].m, "parent_id") },
		func(i int) int64 { return runTime(spans[i].m["started_at"]) })
	line := 1
	if len(spans) > 0 {
		line = spans[0].line
	}
	acc := newRunAcc(line)
	t := &model.Trace{TraceID: tid, Server: gStr(tr, "workflow_name")}
	if g := gStr(tr, "group_id"); g != "" {
		t.Metadata = map[string]any{"group_id": g}
	}
	for _, i := range order {
		m := spans[i].m
		d := gObj(m, "span_data")
		acc.span(runTime(m["started_at"]), runTime(m["ended_at"]))
		isErr := m["error"] != nil
		switch gStr(d, "type") {
		case "generation", "response":
			resp := gObj(d, "response")
			in, tools := genMessages(d["input"], "user")
			for _, def := range tools {
				acc.c.contract(def)
			}
			var out []genMsg
			if resp != nil {
				out, _ = genMessages(resp, "assistant")
			} else {
				out, _ = genMessages(d["output"], "assistant")
			}
			acc.c.turn(in, out)
			u := firstObj(d, "usage")
			if u == nil {
				u = gObj(resp, "usage")
			}
			acc.usage(gInt(firstNonNil(u["input_tokens"], u["prompt_tokens"])), gInt(firstNonNil(u["output_tokens"], u["completion_tokens"])), 0)
			acc.setModel(genFirstString(gStr(d, "model"), gStr(resp, "model")))
		case "function":
			var r json.RawMessage
			if d["output"] != nil || isErr {
				r, _ = genResult(d["output"])
				if isErr && d["output"] == nil {
					r = genJSON(m["error"])
				}
			}
			acc.c.execution("", gStr(d, "name"), genArgs(d["input"]), r, isErr)
			if srv := gStr(gObj(d, "mcp_data"), "server"); srv != "" && t.Server == "" {
				t.Server = srv
			}
		case "agent":
			if t.Server == "" {
				t.Server = gStr(d, "name")
			}
		}
		if isErr && gStr(m, "parent_id") == "" {
			t.Outcome = model.OutcomeFailure
		}
	}
	acc.trace(t)
	return t, line
}
