package importers

// A bare JSON array of chat messages, [{role, content}, …], with no
// request around it: mini-SWE-agent's trajectory (.traj.json, OpenAI
// shaped) and Cline / Roo Code's api_conversation_history.json (Anthropic
// shaped, tool_use and tool_result blocks) are written this way. The whole
// array is one conversation, so it is read whole (the record cap is the
// file's), not element by element as other top-level arrays are.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"

	"github.com/tracelab-dev/tracelab/model"
)

// bareMessageKeys are the keys a message of such an array may have: the
// chat roles' own, plus the timestamps and extras the agents add (Cline's
// ts, mini-SWE-agent's extra).
var bareMessageKeys = map[string]bool{
	"role": true, "content": true, "name": true, "tool_calls": true, "tool_call_id": true,
	"function_call": true, "reasoning_content": true, "refusal": true, "id": true,
	"ts": true, "timestamp": true, "extra": true, "type": true,
}

// bareChat reports whether head is a bare array of chat messages, and
// whether its messages are Anthropic shaped (content blocks only the
// Messages API has).
func bareChat(head []byte) (ok, anthropic bool) {
	if len(head) == 0 || head[0] != '[' {
		return false, false
	}
	m := headObject(head)
	if m == nil || m["role"] == nil {
		return false, false
	}
	var role string
	if json.Unmarshal(m["role"], &role) != nil {
		return false, false
	}
	switch role {
	case "system", "developer", "user", "assistant", "tool":
	default:
		return false, false
	}
	if _, ok := m["content"]; !ok && m["tool_calls"] == nil {
		return false, false
	}
	for k := range m {
		if !bareMessageKeys[k] {
			return false, false
		}
	}
	s := sniff(head)
	for _, k := range []string{"content.type=tool_use", "content.type=tool_result", "content.type=thinking", "content.type=redacted_thinking"} {
		if s.has(k) {
			return true, true
		}
	}
	return true, false
}

// isBareChat peeks at br for a bare array of chat messages, so a forced
// --format openai_chat or anthropic reads one as a conversation too.
func isBareChat(br *bufio.Reader) bool {
	head, _ := br.Peek(64 << 10)
	ok, _ := bareChat(bytes.TrimSpace(stripBOM(head)))
	return ok
}

// parseBareChat reads a bare array of messages as one conversation in the
// given format's message shape.
func parseBareChat(ctx context.Context, br *bufio.Reader, file, format string, emit Emit) error {
	data, err := readWhole(ctx, br, file, "array of messages")
	if err != nil {
		return err
	}
	data = bytes.TrimSpace(stripBOM(data))
	var t *model.Trace
	var lerr *LineError
	if format == "anthropic" {
		var msgs []anthMessage
		if lerr = decodeLine(file, 1, data, &msgs); lerr == nil {
			t, lerr = anthTraceOf(file, 1, data, &anthRecord{Messages: msgs})
		}
	} else {
		var msgs []chatMessage
		if lerr = decodeLine(file, 1, data, &msgs); lerr == nil {
			t, lerr = chatTraceOf(file, 1, data, &chatRecord{Messages: msgs})
		}
	}
	if lerr != nil {
		if lerr.Path != "" && lerr.Path[0] == 'm' { // messages[3]… is [3]… of the array
			lerr.Path = lerr.Path[len("messages"):]
		}
		return emit(Record{Line: 1, Err: lerr})
	}
	if t.TraceID == "" {
		t.TraceID = hashID(format, data)
	}
	if q := runQuestion(t.Steps); q != "" {
		t.Question = clineTask(q)
	}
	return emit(Record{Line: 1, Trace: t})
}
