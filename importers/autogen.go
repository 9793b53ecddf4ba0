package importers

// AutoGen (autogen-core / autogen-agentchat 0.4+) model messages: a model
// context's saved state {messages: [LLMMessage]} (BufferedChatCompletion-
// Context.save_state, the handoff samples' chat history), and the client
// recordings its tests replay (ChatCompletionCache / a recording client:
// a list of {mode: create | create_stream, messages, response:
// CreateResult, stream}). An LLMMessage is {type: SystemMessage |
// UserMessage | AssistantMessage | FunctionExecutionResultMessage, content,
// source, thought}: an assistant's content is text or FunctionCall
// {id, name, arguments}, a result message's content FunctionExecutionResult
// {call_id, name, content, is_error}. A saved context is one trace; each
// recorded call is read as a call, and calls whose history goes on in the
// next are folded into one trace.
//
// Reference: microsoft/autogen python/packages/autogen-core/src/autogen_core/
// models/_types.py (LLMMessage, CreateResult, RequestUsage).

import (
	"context"
	"fmt"
	"io"
	"strings"
)

func init() {
	register(Format{
		Name:     "autogen",
		Priority: 30,
		Doc:      "AutoGen model-context state ({messages} of UserMessage, AssistantMessage, FunctionExecutionResultMessage) and client recordings ([{mode, messages, response}])",
		Detect:   detectAutoGen,
		Parse:    parseAutoGen,
	})
}

func detectAutoGen(head []byte) bool {
	s := sniff(head)
	return s.has("messages.type=UserMessage") || s.has("messages.type=AssistantMessage") ||
		s.has("messages.type=FunctionExecutionResultMessage") ||
		s.has("messages.type=SystemMessage") && s.has("response.finish_reason")
}

func parseAutoGen(ctx context.Context, r io.Reader, file string, emit Emit) error {
	data, err := readWhole(ctx, r, file, "AutoGen recording")
	if err != nil {
		return err
	}
	v, err := genDecode(data)
	if err != nil {
		return emit(Record{Line: 1, Err: jsonError(file, 1, data, err)})
	}
	if m := asObj(v); m != nil { // a saved model context: one conversation
		call := apiCall{in: autogenMessages(gArr(m, "messages"))}
		t, lerr := call.trace("autogen", file, jsonValue{line: 1, raw: data})
		if lerr != nil {
			return emit(Record{Line: 1, Err: lerr})
		}
		return emit(Record{Line: 1, Trace: t})
	}
	calls, _ := v.([]any)
	merge := &prefixMerger{emit: emit}
	for i, c := range calls {
		cm := asObj(c)
		path := fmt.Sprintf("[%d]", i)
		if cm == nil || gArr(cm, "messages") == nil {
			if err := merge.add(Record{Line: 1, Err: &LineError{File: file, Line: 1, Path: path, Msg: "expected a recorded call {mode, messages, response}"}}, ""); err != nil {
				return err
			}
			continue
		}
		call := apiCall{in: autogenMessages(gArr(cm, "messages"))}
		if resp := gObj(cm, "response"); resp != nil {
			call.out = autogenMessages([]any{map[string]any{"type": "AssistantMessage", "content": resp["content"], "thought": resp["thought"]}})
			u := gObj(resp, "usage")
			call.inTok, call.outTok = gInt(u["prompt_tokens"]), gInt(u["completion_tokens"])
		}
		t, lerr := call.trace("autogen", file, jsonValue{line: 1, path: path, raw: genJSON(cm)})
		rec := Record{Line: 1, Trace: t}
		if lerr != nil {
			rec = Record{Line: 1, Err: lerr}
		}
		if err := merge.add(rec, ""); err != nil {
			return err
		}
	}
	return merge.flush()
}

// autogenMessages maps LLMMessages to genMsg.
func autogenMessages(items []any) []genMsg {
	var out []genMsg
	for _, it := range items {
		m := asObj(it)
		var parts []genPart
		role := ""
		switch gStr(m, "type") {
		case "SystemMessage":
			role = "system"
			parts = autogenText(m["content"])
		case "UserMessage":
			role = "user"
			parts = autogenText(m["content"])
		case "AssistantMessage":
			role = "assistant"
			if t := gStr(m, "thought"); strings.TrimSpace(t) != "" {
				parts = append(parts, genPart{Kind: "reasoning", Text: t})
			}
			if calls, ok := m["content"].([]any); ok {
				for _, c := range calls {
					cm := asObj(c)
					parts = append(parts, genPart{Kind: "call", ID: gStr(cm, "id"), Name: gStr(cm, "name"), Args: genArgs(cm["arguments"])})
				}
			} else {
				parts = append(parts, autogenText(m["content"])...)
			}
		case "FunctionExecutionResultMessage":
			role = "tool"
			for _, r := range gArr(m, "content") {
				rm := asObj(r)
				res, _ := genResult(rm["content"])
				isErr, _ := rm["is_error"].(bool)
				parts = append(parts, genPart{Kind: "result", ID: gStr(rm, "call_id"), Name: gStr(rm, "name"), Result: res, IsErr: isErr})
			}
		}
		if role != "" && len(parts) > 0 {
			out = append(out, genMsg{Role: role, Parts: parts})
		}
	}
	return out
}

// autogenText reads content given as text or a list of text pieces
// (images carry no text).
func autogenText(c any) []genPart {
	switch x := c.(type) {
	case string:
		if strings.TrimSpace(x) != "" {
			return []genPart{{Kind: "text", Text: x}}
		}
	case []any:
		var b []string
		for _, p := range x {
			if s, ok := p.(string); ok {
				b = append(b, s)
			}
		}
		return autogenText(strings.Join(b, "\n"))
	}
	return nil
}
