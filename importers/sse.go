package importers

import (
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// MetaIncomplete is the Metadata key set on a trace read from a stream
// cut before its end event; its value says what was missing.
const MetaIncomplete = model.MetaIncomplete

// markIncomplete records that t was cut short. What the stream had
// reached stays, but interim text is not a final answer: it becomes an
// assistant message, and the trace has no answer.
func markIncomplete(t *model.Trace, why string) {
	for i := range t.Steps {
		if t.Steps[i].Kind == model.KindAnswer {
			t.Steps[i].Kind = model.KindAssistant
		}
	}
	t.Answer = ""
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	t.Metadata[MetaIncomplete] = why
}

// Server-sent events: the "data:" payloads of a streamed response.

// eachSSEData calls fn with the payload of every "data:" line of SSE text
// (n is the 1-based line in text), skipping OpenAI's "[DONE]" sentinel,
// until fn returns false.
func eachSSEData(text string, fn func(n int, data string) bool) {
	for n := 1; text != ""; n++ {
		var l string
		l, text, _ = strings.Cut(text, "\n")
		data, ok := strings.CutPrefix(strings.TrimSpace(l), "data:")
		if !ok {
			continue
		}
		if data = strings.TrimSpace(data); data == "" || data == "[DONE]" {
			continue
		}
		if !fn(n, data) {
			return
		}
	}
}
