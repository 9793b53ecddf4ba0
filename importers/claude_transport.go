package importers

// Claude Agent SDK transport recordings: what passed between the SDK and
// the Claude Code CLI, {metadata: {cli_version}, messages: [{direction:
// send | recv, message}]} (pydantic/logfire's test cassettes record it
// so). The messages are the SDK's own stream: the user's prompt sent,
// system init, assistant, user (tool results) and result received, with
// control requests and responses (initialize, hook callbacks) between
// them, which hold no conversation and are left out. The prompt is sent
// under the session id "default" before the CLI names the real one; it is
// put under the real one so the run is one trace.

import (
	"bytes"
	"encoding/json"
)

// claudeTransportHead reports whether a head object is a transport
// recording.
func claudeTransportHead(head []byte, m map[string]json.RawMessage) bool {
	return m != nil && m["messages"] != nil && m["metadata"] != nil && bytes.Contains(head, []byte(`"direction"`))
}

// claudeTransport gives the stream messages of a transport recording in
// order, nil when m is no recording.
func claudeTransport(m map[string]any) []map[string]any {
	items := gArr(m, "messages")
	if items == nil || m["metadata"] == nil {
		return nil
	}
	var out []map[string]any
	session := ""
	for _, it := range items {
		im := asObj(it)
		if gStr(im, "direction") == "" {
			return nil
		}
		msg := gObj(im, "message")
		switch gStr(msg, "type") {
		case "user", "assistant", "system", "result":
			out = append(out, msg)
			if id := gStr(msg, "session_id"); session == "" && id != "" && id != "default" {
				session = id
			}
		}
	}
	for _, msg := range out {
		if id := gStr(msg, "session_id"); session != "" && (id == "" || id == "default") {
			msg["session_id"] = session
		}
	}
	return out
}
