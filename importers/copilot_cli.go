package importers

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// GitHub Copilot CLI keeps each session under ~/.copilot/session-state/.
// The current form is an events JSONL: {type, data, id, timestamp,
// parentId} with types session.start (sessionId, context: cwd, branch,
// repository), session.model_change (newModel), user.message (content as
// typed, transformedContent as sent), assistant.message (content,
// toolRequests: [{toolCallId, name, arguments}], reasoningText),
// tool.execution_complete (toolCallId, success, result: {content}),
// session.task_complete (summary), session.shutdown (modelMetrics with
// token usage) and bookkeeping (turn starts and ends, mode changes). A
// resumed session appends to the same file: one trace per file. The older
// form is one JSON object {sessionId, startTime, chatMessages: [OpenAI
// chat messages], timeline: [{type: user | copilot | info |
// tool_call_requested | tool_call_completed, text, callId, name,
// arguments, result: {type, log}}]}.
//
// Reference: the session files Copilot CLI 0.0.3xx and 1.0 write, as
// read by VibeCodingTracker's src/session/copilot.rs.
func init() {
	register(Format{
		Name:     "copilot_cli",
		Priority: 25,
		Doc:      "GitHub Copilot CLI sessions (~/.copilot/session-state: events JSONL of session.start, user.message, assistant.message, tool.execution_complete…, or the older {sessionId, chatMessages, timeline} JSON); emitted by GitHub Copilot CLI",
		Detect:   detectCopilotCLI,
		Parse:    parseCopilotCLI,
	})
}

func detectCopilotCLI(head []byte) bool {
	m := headObject(head)
	if m == nil || head[0] != '{' {
		return false
	}
	if m["sessionId"] != nil && (m["chatMessages"] != nil || m["timeline"] != nil) {
		return true
	}
	var typ string
	_ = json.Unmarshal(m["type"], &typ)
	if m["data"] == nil || m["id"] == nil {
		return false
	}
	for _, p := range []string{"session.", "user.", "assistant.", "tool.", "system."} {
		if strings.HasPrefix(typ, p) {
			return true
		}
	}
	return false
}

func parseCopilotCLI(ctx context.Context, r io.Reader, file string, emit Emit) error {
	run := newRunAcc(1)
	t := &model.Trace{Outcome: model.OutcomeUnknown, Metadata: map[string]any{}}
	var totalIn, totalOut int64
	err := readValues(ctx, r, file, false, func(v jsonValue) error {
		return eachObject(file, v.line, v.raw, emit, "a session event object", func(_ string, m map[string]any) string {
			if m["timeline"] != nil || m["chatMessages"] != nil {
				copilotLegacy(run, t, m)
				return ""
			}
			if gStr(m, "type") == "" {
				return "expected a session event {type, data, id, timestamp}"
			}
			if in, out, ok := copilotEvent(run, t, m); ok {
				totalIn, totalOut = in, out
			}
			return ""
		})
	})
	if err != nil {
		return err
	}
	if totalIn > 0 || totalOut > 0 {
		run.in, run.out = totalIn, totalOut // the shutdown's totals cover every call
	}
	run.trace(t)
	if len(t.Steps) == 0 {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "session holds no user or assistant message: no conversation to import"}})
	}
	if t.TraceID == "" {
		t.TraceID = genID("copilot_cli", []byte(file))
	}
	if len(t.Metadata) == 0 {
		t.Metadata = nil
	}
	t.Source = model.Source{File: file, Format: "copilot_cli", Line: 1}
	return emit(Record{Line: 1, Trace: t})
}

// copilotEvent folds one event in; a shutdown gives the session's token
// totals (ok set).
func copilotEvent(run *runAcc, t *model.Trace, m map[string]any) (in, out int64, ok bool) {
	c := run.c
	ts := runTime(m["timestamp"])
	run.span(ts, ts)
	d := gObj(m, "data")
	switch gStr(m, "type") {
	case "session.start", "session.resume":
		if t.TraceID == "" {
			t.TraceID = gStr(d, "sessionId")
		}
		if ctx := gObj(d, "context"); ctx != nil {
			for k, key := range map[string]string{"cwd": "cwd", "branch": "git_branch", "repository": "repository"} {
				if s := gStr(ctx, k); s != "" {
					t.Metadata[key] = s
				}
			}
		}
	case "session.model_change":
		run.setModel(gStr(d, "newModel"))
	case "user.message":
		// An empty content is a message the CLI sent on its own (autopilot's
		// "You have not yet marked the task as complete"), not the person's.
		if text := gStr(d, "content"); strings.TrimSpace(text) != "" {
			c.user(text)
		}
	case "assistant.message":
		var parts []genPart
		if th := gStr(d, "reasoningText"); th != "" {
			parts = append(parts, genPart{Kind: "reasoning", Text: th})
		}
		if text := gStr(d, "content"); strings.TrimSpace(text) != "" {
			parts = append(parts, genPart{Kind: "text", Text: text})
		}
		for _, tr := range gArr(d, "toolRequests") {
			tm := asObj(tr)
			parts = append(parts, genPart{Kind: "call", ID: gStr(tm, "toolCallId"), Name: gStr(tm, "name"), Args: genArgs(tm["arguments"])})
		}
		c.message(genMsg{Role: "assistant", Parts: parts})
	case "tool.execution_complete":
		res := d["result"]
		if rm := asObj(res); rm != nil && rm["content"] != nil {
			res = rm["content"]
		}
		if res == nil {
			res = d["error"]
		}
		r, _ := genResult(res)
		success, _ := d["success"].(bool)
		c.result(gStr(d, "toolCallId"), "", r, !success)
		run.setModel(gStr(d, "model"))
	case "session.task_complete":
		if s := gStr(d, "summary"); s != "" {
			c.message(genMsg{Role: "assistant", Parts: []genPart{{Kind: "text", Text: s}}})
		}
	case "session.error":
		t.Metadata["error"] = firstNonEmpty(gStr(d, "message"), gStr(d, "errorType"))
		t.Outcome = model.OutcomeFailure
	case "session.shutdown":
		for name, mm := range gObj(d, "modelMetrics") {
			u := gObj(asObj(mm), "usage")
			in += gInt(u["inputTokens"])
			out += gInt(u["outputTokens"])
			run.setModel(firstNonEmpty(gStr(d, "currentModel"), name))
		}
		return in, out, true
	}
	return 0, 0, false
}

// copilotLegacy reads the older single-object session: its chat messages
// when it kept them, else its timeline.
func copilotLegacy(run *runAcc, t *model.Trace, m map[string]any) {
	c := run.c
	t.TraceID = gStr(m, "sessionId")
	run.span(runTime(m["startTime"]), runTime(m["startTime"]))
	if msgs := gArr(m, "chatMessages"); len(msgs) > 0 {
		gm, _ := genMessages(msgs, "")
		for _, g := range gm {
			c.message(g)
		}
		return
	}
	for _, e := range gArr(m, "timeline") {
		ev := asObj(e)
		ts := runTime(ev["timestamp"])
		run.span(ts, ts)
		switch gStr(ev, "type") {
		case "user":
			c.user(gStr(ev, "text"))
		case "copilot":
			if text := gStr(ev, "text"); strings.TrimSpace(text) != "" {
				c.message(genMsg{Role: "assistant", Parts: []genPart{{Kind: "text", Text: text}}})
			}
		case "tool_call_requested", "tool_call_completed":
			id := gStr(ev, "callId")
			if !c.hasCall(id) {
				c.message(genMsg{Role: "assistant", Parts: []genPart{{Kind: "call", ID: id, Name: gStr(ev, "name"), Args: genArgs(ev["arguments"])}}})
			}
			if gStr(ev, "type") == "tool_call_completed" {
				res := gObj(ev, "result")
				r, _ := genResult(firstNonNil(res["log"], res["content"], ev["result"]))
				c.result(id, gStr(ev, "name"), r, gStr(res, "type") == "failure" || gStr(res, "type") == "error")
			}
		}
	}
}
