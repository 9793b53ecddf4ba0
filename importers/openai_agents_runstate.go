package importers

// OpenAI Agents SDK RunState: what RunState.to_json() writes to pause a
// run (for a tool approval) and resume it: {$schemaVersion,
// original_input (text or input items), generated_items: [{type, agent,
// raw_item}], model_responses: [{output, usage, response_id}],
// current_agent: {name}, current_step: {data: {interruptions}}, trace:
// {id, workflow_name}}. raw_item is a Responses API item (message,
// function_call, function_call_output, reasoning), read as the Responses
// reader reads it. One trace per state; a run paused on approvals keeps
// them in metadata, with no answer yet.
//
// Reference: openai/openai-agents-python src/agents/run_state.py and its
// tests/fixtures/run_state.

import (
	"context"
	"io"

	"github.com/tracelab-dev/tracelab/model"
)

func init() {
	register(Format{
		Name:     "openai_agents_runstate",
		Priority: 30,
		Doc:      "OpenAI Agents SDK RunState JSON (original_input, generated_items of Responses items, model_responses, interruptions awaiting approval)",
		Detect:   detectRunState,
		Parse:    parseRunState,
	})
}

func detectRunState(head []byte) bool {
	m := headObject(head)
	return m != nil && m["original_input"] != nil && m["generated_items"] != nil && (m["current_agent"] != nil || m["$schemaVersion"] != nil)
}

func parseRunState(ctx context.Context, r io.Reader, file string, emit Emit) error {
	data, err := readWhole(ctx, r, file, "RunState")
	if err != nil {
		return err
	}
	v, err := genDecode(data)
	if err != nil {
		return emit(Record{Line: 1, Err: jsonError(file, 1, data, err)})
	}
	m := asObj(v)
	run := newRunAcc(1)
	in, _ := genMessages(m["original_input"], "user")
	for _, msg := range in {
		run.c.message(msg)
	}
	for _, it := range gArr(m, "generated_items") {
		raw := gObj(asObj(it), "raw_item")
		if raw == nil {
			continue
		}
		msgs, _ := genMessages([]any{raw}, "assistant")
		for _, msg := range msgs {
			run.c.message(msg)
		}
	}
	for _, resp := range gArr(m, "model_responses") {
		u := gObj(asObj(resp), "usage")
		run.usage(gInt(u["input_tokens"]), gInt(u["output_tokens"]), 0)
	}
	tr := gObj(m, "trace")
	t := &model.Trace{TraceID: gStr(tr, "id", "trace_id")}
	run.trace(t)
	if len(t.Steps) == 0 {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "RunState holds no conversation: no original input and no generated item"}})
	}
	if t.TraceID == "" {
		t.TraceID = genID("openai_agents_runstate", data)
	}
	t.Metadata = map[string]any{}
	if a := gStr(gObj(m, "current_agent"), "name"); a != "" {
		t.Metadata["agent"] = a
	}
	if w := gStr(tr, "workflow_name"); w != "" {
		t.Metadata["workflow_name"] = w
	}
	var pending []any
	for _, in := range gArr(gObj(gObj(m, "current_step"), "data"), "interruptions") {
		if name := gStr(gObj(asObj(in), "raw_item"), "name"); name != "" {
			pending = append(pending, name)
		}
	}
	if len(pending) > 0 {
		t.Metadata["pending_approvals"] = pending
	}
	t.Source = model.Source{File: file, Format: "openai_agents_runstate", Line: 1}
	return emit(Record{Line: 1, Trace: t})
}
