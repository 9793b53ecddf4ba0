package importers

import (
	"context"
	"encoding/json"
	"io"

	"github.com/tracelab-dev/tracelab/model"
)

// Codex CLI writes a rollout JSONL per session under ~/.codex/sessions/:
// {timestamp, type: session_meta | response_item | event_msg |
// turn_context, payload}. response_item payloads are OpenAI Responses
// items (message, reasoning, function_call, function_call_output,
// local_shell_call, custom_tool_call…); event_msg token_count carries the
// running token totals; turn_context names the model. Older rollouts put
// {id, timestamp, instructions} on the first line and bare items after it.
func init() {
	register(Format{
		Name:     "codex_cli",
		Priority: 25,
		Doc:      "Codex CLI rollout JSONL (~/.codex/sessions/…/rollout-*.jsonl: session_meta, response_item, event_msg, turn_context); emitted by OpenAI Codex CLI",
		Detect:   detectCodex,
		Parse:    parseCodex,
	})
}

func detectCodex(head []byte) bool {
	line := firstJSONLine(head)
	var m struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.Payload) == 0 {
		return false
	}
	switch m.Type {
	case "session_meta", "response_item", "turn_context", "event_msg", "compacted":
		return true
	}
	return false
}

func parseCodex(ctx context.Context, r io.Reader, file string, emit Emit) error {
	run := newRunAcc(1)
	id := ""
	var totalIn, totalOut int64
	meta := map[string]any{}
	err := genRecords(ctx, r, func(n int, raw []byte) error {
		v, err := genDecode(raw)
		if err != nil {
			return emit(Record{Line: n, Err: jsonError(file, n, raw, err)})
		}
		m, ok := v.(map[string]any)
		if !ok {
			return emit(Record{Line: n, Err: &LineError{File: file, Line: n, Msg: "expected a rollout line object {timestamp, type, payload}"}})
		}
		ts := runTime(m["timestamp"])
		run.span(ts, ts)
		p := gObj(m, "payload")
		switch gStr(m, "type") {
		case "session_meta":
			id = genFirstString(id, gStr(p, "id"))
			if cwd := gStr(p, "cwd"); cwd != "" {
				meta["cwd"] = cwd
			}
			if o := gStr(p, "originator"); o != "" {
				meta["originator"] = o
			}
		case "turn_context":
			run.setModel(gStr(p, "model"))
		case "event_msg":
			if gStr(p, "type") == "token_count" {
				// Totals so far: the last one is the session's.
				if tu := gObj(gObj(p, "info"), "total_token_usage"); tu != nil {
					totalIn, totalOut = gInt(tu["input_tokens"]), gInt(tu["output_tokens"])
				}
			}
		case "response_item":
			codexItem(run, p)
		default:
			if p == nil && gStr(m, "type") != "" && m["role"] != nil || gStr(m, "type") == "function_call" || gStr(m, "type") == "function_call_output" {
				codexItem(run, m) // an older rollout: bare items
			} else if p == nil && m["instructions"] != nil {
				id = genFirstString(id, gStr(m, "id"))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	t := &model.Trace{TraceID: id}
	run.usage(totalIn, totalOut, 0)
	run.trace(t)
	if len(meta) > 0 {
		if t.Metadata == nil {
			t.Metadata = map[string]any{}
		}
		for k, v := range meta {
			t.Metadata[k] = v
		}
	}
	if len(t.Steps) == 0 {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "rollout holds no response_item message or call: no conversation to import"}})
	}
	if t.TraceID == "" {
		t.TraceID = genID("codex_cli", []byte(file))
	}
	t.Source = model.Source{File: file, Format: "codex_cli", Line: 1}
	return emit(Record{Line: 1, Trace: t})
}

// codexItem adds one Responses item, mapping Codex's own call kinds
// (local_shell_call, custom_tool_call) to tool calls.
func codexItem(run *runAcc, p map[string]any) {
	c := run.c
	switch gStr(p, "type") {
	case "local_shell_call":
		c.call(gStr(p, "call_id", "id"), "shell", genArgs(gObj(p, "action")))
		return
	case "custom_tool_call":
		c.call(gStr(p, "call_id", "id"), gStr(p, "name"), genArgs(p["input"]))
		return
	case "custom_tool_call_output", "local_shell_call_output":
		r, _ := genResult(p["output"])
		c.result(gStr(p, "call_id"), "", r, false)
		return
	}
	msgs, _ := genMessages([]any{p}, "")
	for _, m := range msgs {
		c.message(m)
	}
}
