package importers

// Files that hold no conversation: a benchmark's question list (BFCL's
// {id, question: [[message]], function: [tool]} lines) asks the questions
// a model is to answer, with no answer, so there is nothing to label.
// Such a file is refused saying so, not as a format tracelab does not
// know.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrNoConversation is returned by Detect for a file of a known kind that
// holds no conversation to import.
var ErrNoConversation = errors.New("holds no conversation")

// explainNoConversation says what a head holds when it is such a file,
// "" otherwise.
func explainNoConversation(head []byte) string {
	m := headObject(head)
	if m == nil {
		return ""
	}
	_, question := m["question"]
	_, prompt := m["prompt"]
	tools := m["function"] != nil || m["functions"] != nil || m["tools"] != nil
	for _, k := range []string{"messages", "response", "output", "steps", "answer", "completion", "result", "trajectory", "events"} {
		if m[k] != nil {
			return "" // something answered: not a bare question list
		}
	}
	if !(question || prompt) || !tools {
		return ""
	}
	return fmt.Sprintf("a benchmark's question list (first object's keys %s): questions and tool definitions with no model response or tool call, nothing to label", objectKeys(json.RawMessage(firstJSONLine(head))))
}

// noConversationError is the refusal of such a file.
func noConversationError(file, why string) error {
	return fmt.Errorf("%s: %w: %s", file, ErrNoConversation, strings.TrimSpace(why))
}
