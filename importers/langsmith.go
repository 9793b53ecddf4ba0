package importers

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// LangSmith run payloads: the SDK's batch ingest {post: [run…], patch:
// [run…]} (a run posted at start, patched with outputs at the end), a run
// list, or one run tree with child_runs. A run is {id, trace_id,
// parent_run_id, dotted_order, name, run_type: llm | tool | chain |
// retriever…, inputs, outputs, error, start_time, end_time, extra.metadata
// (ls_model_name), prompt_tokens / completion_tokens / total_cost}. One
// trace per trace_id.
func init() {
	register(Format{
		Name:     "langsmith",
		Priority: 30,
		Doc:      "LangSmith run exports: {post, patch} ingest payloads, run lists, run trees with child_runs (run_type llm/tool/chain); emitted by the langsmith SDK (@traceable, wrap_openai), LangChain / LangGraph tracing and run exports",
		Detect:   detectLangSmith,
		Parse:    parseLangSmith,
	})
}

func detectLangSmith(head []byte) bool {
	m := headObject(head)
	if m == nil {
		return false
	}
	for _, k := range []string{"post", "patch"} {
		if raw := m[k]; len(raw) > 0 && raw[0] == '[' {
			inner := headObject(raw)
			return inner != nil && inner["id"] != nil && (inner["run_type"] != nil || inner["dotted_order"] != nil || inner["outputs"] != nil)
		}
	}
	_, rt := m["run_type"]
	return rt && (m["inputs"] != nil || m["outputs"] != nil) && (m["child_runs"] != nil || m["trace_id"] != nil || m["dotted_order"] != nil || m["parent_run_id"] != nil)
}

type lsRun struct {
	m    map[string]any
	line int
}

// lsGroup is the runs of one trace read so far.
type lsGroup struct {
	id   string
	byID map[string]*lsRun
	runs []*lsRun
}

func parseLangSmith(ctx context.Context, r io.Reader, file string, emit Emit) error {
	open := newOpenRuns[*lsGroup]()
	traceOf := map[string]string{} // run id -> trace id, for open traces
	unnamed := 0
	var add func(n int, m map[string]any, parent string)
	add = func(n int, m map[string]any, parent string) {
		id := gStr(m, "id")
		if id == "" {
			unnamed++
			id = fmt.Sprintf("run-%d", unnamed)
		}
		if parent != "" && gStr(m, "parent_run_id") == "" {
			m["parent_run_id"] = parent
		}
		tid := genFirstString(traceOf[id], gStr(m, "trace_id"), traceOf[gStr(m, "parent_run_id")], id)
		g, ok := open.get(tid)
		if !ok {
			g = &lsGroup{id: tid, byID: map[string]*lsRun{}}
			open.add(tid, g)
		}
		if prev := g.byID[id]; prev != nil {
			for k, v := range m { // a patch completes the posted run
				if v != nil {
					prev.m[k] = v
				}
			}
		} else {
			m["trace_id"] = tid
			run := &lsRun{m: m, line: n}
			g.byID[id] = run
			g.runs = append(g.runs, run)
			traceOf[id] = tid
		}
		for _, c := range gArr(m, "child_runs") {
			if cm := asObj(c); cm != nil {
				add(n, cm, id)
			}
		}
	}
	flush := func(all bool) error {
		for _, g := range open.idle(all) {
			for id := range g.byID {
				delete(traceOf, id)
			}
			if err := emitLSTrace(file, g, emit); err != nil {
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
		var items []any
		switch x := v.(type) {
		case []any:
			items = x
		case map[string]any:
			if x["post"] != nil || x["patch"] != nil {
				items = append(gArr(x, "post"), gArr(x, "patch")...)
			} else {
				items = []any{x}
			}
		}
		if len(items) == 0 {
			return emit(Record{Line: n, Err: &LineError{File: file, Line: n, Msg: "expected a LangSmith run {id, run_type, inputs, outputs}, a run list or {post, patch}"}})
		}
		for _, it := range items {
			if m := asObj(it); m != nil {
				add(n, m, "")
			}
		}
		return flush(false)
	})
	if err == nil {
		err = flush(true)
	}
	return err
}

func emitLSTrace(file string, g *lsGroup, emit Emit) error {
	line := g.runs[0].line
	t := lsTrace(g.id, g.runs)
	if len(t.Steps) == 0 {
		return emit(Record{Line: line, Err: &LineError{File: file, Line: line,
			Msg: fmt.Sprintf("trace %s: no run with messages, a tool call or an input and output", g.id)}})
	}
	t.Source = model.Source{File: file, Format: "langsmith", Line: line}
	return emit(Record{Line: line, Trace: t})
}

// lsTrace builds one trace from its runs, in dotted_order (the run tree
// depth first, by start time).
func lsTrace(tid string, runs []*lsRun) *model.Trace {
	sort.SliceStable(runs, func(i, j int) bool {
		a, b := gStr(runs[i].m, "dotted_order"), gStr(runs[j].m, "dotted_order")
		if a != b && a != "" && b != "" {
			return a < b
		}
		return runTime(runs[i].m["start_time"]) < runTime(runs[j].m["start_time"])
	})
	acc := newRunAcc(runs[0].line)
	llm := false
	for _, run := range runs {
		if gStr(run.m, "run_type") == "llm" || gStr(run.m, "run_type") == "tool" {
			llm = true
		}
	}
	t := &model.Trace{TraceID: tid}
	for _, run := range runs {
		m := run.m
		acc.span(runTime(m["start_time"]), runTime(m["end_time"]))
		in, out := m["inputs"], m["outputs"]
		switch gStr(m, "run_type") {
		case "llm":
			msgs, tools := genMessages(lsMessages(in), "user")
			for _, d := range tools {
				acc.c.contract(d)
			}
			res, _ := genMessages(lsMessages(lsOutput(out)), "assistant")
			acc.c.turn(msgs, res)
			meta := gObj(gObj(m, "extra"), "metadata")
			acc.setModel(genFirstString(gStr(asObj(out), "model"), gStr(meta, "ls_model_name"), gStr(gObj(gObj(m, "extra"), "invocation_params"), "model")))
			pt, ct := gInt(m["prompt_tokens"]), gInt(m["completion_tokens"])
			if pt == 0 && ct == 0 {
				u := firstObj(asObj(out), "usage_metadata", "usage")
				pt = gInt(firstNonNil(u["input_tokens"], u["prompt_tokens"]))
				ct = gInt(firstNonNil(u["output_tokens"], u["completion_tokens"]))
			}
			acc.usage(pt, ct, gFloat(m["total_cost"]))
		case "tool":
			var args any = in
			if im := asObj(in); len(im) == 1 && im["input"] != nil {
				args = im["input"]
			}
			var result any = out
			if om := asObj(out); len(om) == 1 && om["output"] != nil {
				result = om["output"]
			}
			r, isErr := genResult(result)
			if gStr(m, "error") != "" {
				r, isErr = genJSON(map[string]any{"error": gStr(m, "error")}), true
			}
			acc.c.execution(gStr(asObj(in), "tool_call_id"), gStr(m, "name"), genArgs(args), r, isErr)
		default:
			if !llm && (in != nil || out != nil) {
				q, _ := genMessages(lsPlain(in), "user")
				a, _ := genMessages(lsPlain(out), "assistant")
				acc.c.turn(q, a)
			}
		}
		if gStr(m, "parent_run_id") == "" && gStr(m, "error") != "" {
			t.Outcome = model.OutcomeFailure
		}
	}
	// The root run's output is the final answer when no model call gave
	// one (the agent returned a tool's result or post-processed the text).
	if root := runs[0].m; gStr(root, "parent_run_id") == "" && llm {
		if s, ok := lsPlain(root["outputs"]).(string); ok && s != "" {
			if n := len(acc.c.steps); n == 0 || acc.c.steps[n-1].Kind != model.KindAnswer {
				acc.c.message(genMsg{Role: "assistant", Parts: []genPart{{Kind: "text", Text: s}}})
			}
		}
	}
	acc.trace(t)
	return t
}

// lsMessages turns LangChain's serialized messages ({lc, type:
// constructor, id: [..., "HumanMessage"], kwargs}) and batched message
// lists ([[…]]) into plain message dicts.
func lsMessages(v any) any {
	switch x := v.(type) {
	case []any:
		if len(x) == 1 {
			if inner, ok := x[0].([]any); ok {
				return lsMessages(inner)
			}
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = lsMessages(e)
		}
		return out
	case map[string]any:
		if kw := gObj(x, "kwargs"); kw != nil && x["lc"] != nil {
			m := map[string]any{}
			for k, v := range kw {
				m[k] = v
			}
			if m["role"] == nil {
				ids := gArr(x, "id")
				cls := ""
				if len(ids) > 0 {
					cls, _ = ids[len(ids)-1].(string)
				}
				m["role"] = genFirstString(genRole(gStr(kw, "type")), genRole(strings.TrimSuffix(strings.TrimSuffix(cls, "MessageChunk"), "Message")))
			}
			return m
		}
		if msgs := x["messages"]; msgs != nil {
			m := map[string]any{}
			for k, v := range x {
				m[k] = v
			}
			m["messages"] = lsMessages(msgs)
			return m
		}
	}
	return v
}

// lsOutput unwraps an llm run's outputs: LangChain's {generations:
// [[{message}]]}, else the chat completion or message as is.
func lsOutput(v any) any {
	om := asObj(v)
	if gens := gArr(om, "generations"); len(gens) > 0 {
		g := gens[0]
		if inner, ok := g.([]any); ok && len(inner) > 0 {
			g = inner[0]
		}
		if msg := gObj(asObj(g), "message"); msg != nil {
			if kw := gObj(msg, "kwargs"); kw != nil { // a serialized LangChain message
				kw2 := map[string]any{"role": "assistant"}
				for k, v := range kw {
					kw2[k] = v
				}
				return kw2
			}
			return msg
		}
		return map[string]any{"role": "assistant", "content": gStr(asObj(g), "text")}
	}
	return v
}

// lsPlain takes the text out of a chain's {input}/{output}/{question}/
// {answer} wrapper so it reads as one message.
func lsPlain(v any) any {
	m := asObj(v)
	if len(m) == 1 {
		for _, k := range []string{"input", "output", "question", "answer", "query", "result"} {
			if s, ok := m[k].(string); ok {
				return s
			}
		}
	}
	return v
}
