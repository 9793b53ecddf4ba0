package importers

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// Cline and Roo Code keep a task in two files under
// tasks/<task id>/: api_conversation_history.json, the Anthropic messages
// the model saw (a bare array, read by the anthropic format, see
// bare_messages.go), and ui_messages.json, what the chat panel showed: an
// array of {ts, type: say | ask, say | ask: the kind, text, partial}. Its
// kinds: say task (the person's request), text, reasoning, user_feedback,
// api_req_started (text: JSON {tokensIn, tokensOut, cacheWrites,
// cacheReads, cost}), tool / ask tool (text: JSON {tool, path, content,
// diff…}), ask command and say command_output, ask use_mcp_server (text:
// JSON {serverName, toolName, arguments}) and say mcp_server_response,
// ask followup (a clarifying question), completion_result (the answer),
// error. One trace per file.
//
// Reference: Cline's src/shared/ExtensionMessage.ts (ClineMessage,
// ClineAsk, ClineSay, ClineSayTool, ClineApiReqInfo).
func init() {
	register(Format{
		Name:     "cline",
		Priority: 30,
		Doc:      "Cline / Roo Code task ui_messages.json ({ts, type: say|ask, text}: task, tool, command, completion_result…); their api_conversation_history.json is read as anthropic",
		Detect:   detectCline,
		Parse:    parseCline,
	})
}

func detectCline(head []byte) bool {
	if len(head) == 0 || head[0] != '[' {
		return false
	}
	m := headObject(head)
	if m == nil || m["ts"] == nil {
		return false
	}
	var typ string
	_ = json.Unmarshal(m["type"], &typ)
	return (typ == "say" && m["say"] != nil) || (typ == "ask" && m["ask"] != nil)
}

func parseCline(ctx context.Context, r io.Reader, file string, emit Emit) error {
	data, err := readWhole(ctx, r, file, "ui messages")
	if err != nil {
		return err
	}
	v, err := genDecode(data)
	if err != nil {
		return emit(Record{Line: 1, Err: jsonError(file, 1, data, err)})
	}
	msgs, ok := v.([]any)
	if !ok {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "expected an array of ui messages {ts, type, say|ask, text}"}})
	}
	run := newRunAcc(1)
	cl := &clineConvo{run: run}
	for i, e := range msgs {
		m := asObj(e)
		if m == nil {
			return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Path: "[" + strconv.Itoa(i) + "]", Msg: "expected a ui message object {ts, type, say|ask, text}"}})
		}
		if p, _ := m["partial"].(bool); p {
			continue // a streaming placeholder, written again whole
		}
		cl.message(m)
	}
	t := &model.Trace{TraceID: genID("cline", data), Outcome: model.OutcomeUnknown}
	run.trace(t)
	if cl.task != "" {
		t.Question = cl.task
	}
	if len(t.Steps) == 0 {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "ui messages hold no task, text or tool message: no conversation to import"}})
	}
	t.Source = model.Source{File: file, Format: "cline", Line: 1}
	return emit(Record{Line: 1, Trace: t})
}

type clineConvo struct {
	run  *runAcc
	task string // the person's request
	n    int    // calls made, for their ids
	// The ids of the last command and MCP calls: their output answers
	// them, whatever file tool came between.
	command, mcp string
}

func (cl *clineConvo) message(m map[string]any) {
	c := cl.run.c
	ts := runTime(m["ts"])
	cl.run.span(ts, ts)
	text := gStr(m, "text")
	say := func(kind, s string) {
		if strings.TrimSpace(s) != "" {
			c.message(genMsg{Role: "assistant", Parts: []genPart{{Kind: kind, Text: s}}})
		}
	}
	kind := gStr(m, "say")
	if gStr(m, "type") == "ask" {
		kind = "ask:" + gStr(m, "ask")
	}
	switch kind {
	case "task":
		cl.task = text
		c.user(text)
	case "user_feedback":
		c.user(text)
	case "text":
		say("text", text)
	case "reasoning":
		say("reasoning", text)
	case "completion_result", "ask:completion_result":
		say("text", text)
	case "ask:followup":
		q := text
		var f struct {
			Question string `json:"question"`
		}
		if json.Unmarshal([]byte(text), &f) == nil && f.Question != "" {
			q = f.Question
		}
		c.add(model.Step{Kind: model.KindClarification, Text: q})
	case "api_req_started":
		var info struct {
			TokensIn, TokensOut, CacheWrites, CacheReads int64
			Cost                                         float64
		}
		if json.Unmarshal([]byte(text), &info) == nil {
			cl.run.usage(info.TokensIn+info.CacheWrites+info.CacheReads, info.TokensOut, info.Cost)
		}
	case "tool", "ask:tool":
		cl.tool(text)
	case "ask:command", "command":
		args, _ := json.Marshal(map[string]string{"command": text})
		cl.command = cl.call("execute_command", args)
	case "command_output":
		c.result(cl.command, "", convResult(text), false)
	case "ask:use_mcp_server", "use_mcp_server":
		var u struct {
			ServerName string          `json:"serverName"`
			ToolName   string          `json:"toolName"`
			Arguments  json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal([]byte(text), &u) == nil && u.ToolName != "" {
			cl.mcp = cl.call(u.ToolName, convArgs(u.Arguments))
		}
	case "mcp_server_response":
		c.result(cl.mcp, "", convResult(text), false)
	case "error":
		c.result("", "", convResult(text), true)
	}
}

// call adds a tool call with an id of this file's own, and returns it.
func (cl *clineConvo) call(tool string, args json.RawMessage) string {
	cl.n++
	id := "cline-" + strconv.Itoa(cl.n)
	cl.run.c.message(genMsg{Role: "assistant", Parts: []genPart{{Kind: "call", ID: id, Name: tool, Args: args}}})
	return id
}

// tool adds a file tool the panel showed: its arguments are what the
// model asked for (path, regex, diff); content, when the tool read
// something, is its result.
func (cl *clineConvo) tool(text string) {
	var t map[string]any
	if json.Unmarshal([]byte(text), &t) != nil || gStr(t, "tool") == "" {
		return
	}
	args := map[string]any{}
	for k, v := range t {
		if k != "tool" && k != "content" {
			args[k] = v
		}
	}
	cl.call(gStr(t, "tool"), genArgs(args))
	if content, ok := t["content"].(string); ok {
		cl.run.c.result("cline-"+strconv.Itoa(cl.n), gStr(t, "tool"), convResult(content), false)
	}
}

// clineTask is the request inside Cline's <task>…</task> wrapper (its
// first user message in api_conversation_history.json, followed by
// <environment_details>); s itself when there is none.
func clineTask(s string) string {
	_, rest, ok := strings.Cut(s, "<task>")
	if !ok {
		return s
	}
	inner, _, ok := strings.Cut(rest, "</task>")
	if !ok || strings.TrimSpace(inner) == "" {
		return s
	}
	return strings.TrimSpace(inner)
}
