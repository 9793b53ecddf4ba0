package importers

import (
	"context"
	"encoding/json"
	"io"
	"strconv"

	"github.com/tracelab-dev/tracelab/model"
)

// OpenHands saves a conversation as a list of events (a trajectory JSON
// array) and its evaluation harness writes output.jsonl, one instance per
// line: {instance_id, instruction, history: [events], metadata: {llm_config:
// {model}}, metrics: {accumulated_cost, accumulated_token_usage}, error,
// test_result}. An event is an action {id, timestamp, source: user | agent
// | environment, message, action, args, tool_call_metadata: {function_name,
// tool_call_id, model_response}} or an observation {…, cause, observation,
// content, extras}. A tool action's arguments are the model's own (its
// model_response's tool call), its observation the result; message and
// finish actions are what the agent said; system, recall and agent-state
// events are the harness's bookkeeping and are left out.
//
// Reference: OpenHands' openhands/events (action and observation classes,
// serialization/event.py) and evaluation/benchmarks/*/run_infer.py.
func init() {
	register(Format{
		Name:     "openhands",
		Priority: 30,
		Doc:      "OpenHands trajectories (a JSON array of action/observation events) and evaluation output.jsonl ({instance_id, instruction, history, metrics}); emitted by OpenHands",
		Detect:   detectOpenHands,
		Parse:    parseOpenHands,
	})
}

func detectOpenHands(head []byte) bool {
	m := headObject(head)
	if m == nil {
		return false
	}
	if head[0] == '[' {
		_, act := m["action"]
		_, obs := m["observation"]
		return m["source"] != nil && m["id"] != nil && (act || obs)
	}
	return m["instance_id"] != nil && m["history"] != nil && (m["instruction"] != nil || m["metadata"] != nil || m["test_result"] != nil)
}

func parseOpenHands(ctx context.Context, r io.Reader, file string, emit Emit) error {
	br := asBufio(r)
	if head, _ := br.Peek(1); len(head) == 1 && head[0] == '[' || isArrayAhead(br) {
		data, err := readWhole(ctx, br, file, "event list")
		if err != nil {
			return err
		}
		v, err := genDecode(data)
		if err != nil {
			return emit(Record{Line: 1, Err: jsonError(file, 1, data, err)})
		}
		events, _ := v.([]any)
		t := &model.Trace{TraceID: genID("openhands", data)}
		return emitOpenHands(file, 1, t, events, nil, emit)
	}
	return genRecords(ctx, br, func(n int, raw []byte) error {
		return eachObject(file, n, raw, emit, "an evaluation output object {instance_id, history}", func(_ string, m map[string]any) string {
			events := gArr(m, "history")
			if events == nil {
				return "expected an evaluation output object with history: [events]"
			}
			t := &model.Trace{TraceID: gStr(m, "instance_id")}
			if t.TraceID == "" {
				t.TraceID = genID("openhands", raw)
			}
			if err := emitOpenHands(file, n, t, events, m, emit); err != nil {
				return err.Error()
			}
			return ""
		})
	})
}

// isArrayAhead reports whether the first non-blank byte is '['.
func isArrayAhead(br interface{ Peek(int) ([]byte, error) }) bool {
	head, _ := br.Peek(4096)
	for _, b := range head {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b == '['
	}
	return false
}

// emitOpenHands builds one trace from an event list; out is the
// evaluation record around it, nil for a bare trajectory.
func emitOpenHands(file string, line int, t *model.Trace, events []any, out map[string]any, emit Emit) error {
	run := newRunAcc(line)
	oh := &ohConvo{run: run, calls: map[string]bool{}, counted: map[string]bool{}}
	for _, e := range events {
		if m := asObj(e); m != nil {
			oh.event(m)
		}
	}
	t.Outcome = model.OutcomeUnknown
	if out != nil {
		ohOutput(t, run, out)
	}
	if oh.failed {
		t.Outcome = model.OutcomeFailure
	}
	run.trace(t)
	if len(t.Steps) == 0 {
		return emit(Record{Line: line, Err: &LineError{File: file, Line: line, Msg: "event list holds no message, action or observation of the agent: no conversation to import"}})
	}
	t.Source = model.Source{File: file, Format: "openhands", Line: line}
	return emit(Record{Line: line, Trace: t})
}

type ohConvo struct {
	run     *runAcc
	calls   map[string]bool // call ids made into tool calls
	pending int             // calls with no result yet
	counted map[string]bool // model responses whose usage was counted
	failed  bool            // the agent ended in its error state
}

// ohNotArgs are the keys of an action's args that OpenHands adds, not the
// model.
var ohNotArgs = map[string]bool{"thought": true, "impl_source": true, "translated_ipython_code": true,
	"is_input": true, "blocking": true, "hidden": true, "confirmation_state": true, "security_risk": true,
	"include_extra": true, "kernel_init_code": true, "wait_for_response": true, "image_urls": true}

func (o *ohConvo) event(m map[string]any) {
	c := o.run.c
	ts := runTime(m["timestamp"])
	o.run.span(ts, ts)
	args := gObj(m, "args")
	tcm := gObj(m, "tool_call_metadata")
	o.response(gObj(tcm, "model_response"))
	if obs := gStr(m, "observation"); obs != "" {
		o.observation(m, obs, tcm)
		return
	}
	switch act := gStr(m, "action"); act {
	case "", "system", "recall", "change_agent_state", "null":
		if gStr(args, "agent_state") == "error" {
			o.failed = true
		}
	case "message":
		text := firstNonEmpty(gStr(args, "content"), gStr(m, "message"))
		if gStr(m, "source") == "user" {
			c.user(text)
		} else if text != "" {
			c.message(genMsg{Role: "assistant", Parts: []genPart{{Kind: "text", Text: text}}})
		}
	case "finish":
		text := firstNonEmpty(gStr(args, "final_thought"), gStr(gObj(args, "outputs"), "content"), gStr(args, "thought"), gStr(m, "message"))
		if text != "" {
			c.message(genMsg{Role: "assistant", Parts: []genPart{{Kind: "text", Text: text}}})
		}
	case "think":
		if th := firstNonEmpty(gStr(args, "thought"), gStr(m, "message")); th != "" {
			c.add(model.Step{Kind: model.KindReasoning, Text: th})
		}
	default:
		o.action(m, act, args, tcm)
	}
}

// action adds a tool action: the model's thought, then the call with the
// arguments the model gave (from its response) or else the action's own.
func (o *ohConvo) action(m map[string]any, act string, args, tcm map[string]any) {
	id := gStr(tcm, "tool_call_id")
	tool := gStr(tcm, "function_name")
	var callArgs json.RawMessage
	if tcm != nil {
		callArgs = ohModelArgs(gObj(tcm, "model_response"), id)
	}
	if id == "" {
		id = "openhands-" + strconv.FormatInt(gInt(m["id"]), 10)
	}
	if tool == "" {
		tool = act
	}
	if callArgs == nil {
		own := map[string]any{}
		for k, v := range args {
			if !ohNotArgs[k] {
				own[k] = v
			}
		}
		callArgs = genArgs(own)
	}
	parts := []genPart{}
	if th := gStr(args, "thought"); th != "" {
		parts = append(parts, genPart{Kind: "text", Text: th})
	}
	parts = append(parts, genPart{Kind: "call", ID: id, Name: tool, Args: callArgs})
	o.run.c.message(genMsg{Role: "assistant", Parts: parts})
	o.calls[id] = true
	o.pending++
}

// observation adds what a tool action gave back, paired by its call id
// (or the action it is caused by); the harness's own observations are
// left out.
func (o *ohConvo) observation(m map[string]any, obs string, tcm map[string]any) {
	switch obs {
	case "null", "agent_state_changed", "recall", "user_rejected":
		if gStr(gObj(m, "extras"), "agent_state") == "error" {
			o.failed = true
		}
		return
	}
	id := gStr(tcm, "tool_call_id")
	if id == "" && m["cause"] != nil {
		id = "openhands-" + strconv.FormatInt(gInt(m["cause"]), 10)
	}
	if !o.calls[id] {
		if obs != "error" || o.pending == 0 {
			return // the answer to an action that is no call (think)
		}
		id = "" // an error for the call waiting longest
	}
	content := firstNonEmpty(gStr(m, "content"), gStr(m, "message"))
	isErr := obs == "error"
	if md := gObj(gObj(m, "extras"), "metadata"); md != nil && md["exit_code"] != nil && gInt(md["exit_code"]) != 0 {
		isErr = true
	}
	if s, ok := m["success"].(bool); ok && !s {
		isErr = true
	}
	o.run.c.result(id, gStr(tcm, "function_name"), convResult(content), isErr)
	if o.pending > 0 {
		o.pending--
	}
}

// response counts a model response's usage once (every call of a
// parallel response carries the same response) and names its model.
func (o *ohConvo) response(resp map[string]any) {
	if resp == nil {
		return
	}
	o.run.setModel(gStr(resp, "model"))
	id := gStr(resp, "id")
	if id != "" && o.counted[id] {
		return
	}
	o.counted[id] = true
	if u := gObj(resp, "usage"); u != nil {
		o.run.usage(gInt(u["prompt_tokens"]), gInt(u["completion_tokens"]), 0)
	}
}

// ohModelArgs is the arguments of call id in a model response, nil when
// the response does not hold it.
func ohModelArgs(resp map[string]any, id string) json.RawMessage {
	for _, ch := range gArr(resp, "choices") {
		for _, tc := range gArr(gObj(asObj(ch), "message"), "tool_calls") {
			tm := asObj(tc)
			if gStr(tm, "id") == id {
				return genArgs(gObj(tm, "function")["arguments"])
			}
		}
	}
	return nil
}

// ohOutput reads an evaluation record: the instance, the model, the
// totals, and an error that ended the run.
func ohOutput(t *model.Trace, run *runAcc, out map[string]any) {
	t.Metadata = map[string]any{"instance_id": gStr(out, "instance_id")}
	if md := gObj(out, "metadata"); md != nil {
		run.setModel(gStr(gObj(md, "llm_config"), "model"))
		if ac := gStr(md, "agent_class"); ac != "" {
			t.Metadata["agent_class"] = ac
		}
	}
	if mt := gObj(out, "metrics"); mt != nil {
		u := gObj(mt, "accumulated_token_usage")
		if u != nil && (gInt(u["prompt_tokens"]) > 0 || gInt(u["completion_tokens"]) > 0) {
			// The harness's totals cover every call, the condenser's too.
			run.in, run.out = gInt(u["prompt_tokens"]), gInt(u["completion_tokens"])
		}
		run.usd = gFloat(mt["accumulated_cost"])
	}
	if e := gStr(out, "error"); e != "" {
		t.Metadata["error"] = e
		t.Outcome = model.OutcomeFailure
	}
	if p := gStr(gObj(out, "test_result"), "git_patch"); p != "" {
		t.Metadata["git_patch"] = p
	}
}
