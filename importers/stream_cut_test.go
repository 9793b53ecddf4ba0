package importers

import (
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// TestStreamCut: a streamed response cut before its end event imports
// with what it had, the streamed text an assistant message and never the
// final answer, and the trace marked incomplete; the same stream whole
// gives the answer and no mark. Every stream shape: chunks and events as
// records, and SSE bodies inside a {request, response} log.
func TestStreamCut(t *testing.T) {
	chunk := func(delta, finish string) string {
		return `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}`
	}
	chatChunks := []string{chunk(`{"role":"assistant","content":"Par"}`, "null"), chunk(`{"content":"is"}`, "null")}
	chatEnd := chunk(`{}`, `"stop"`)
	ev := func(typ, rest string) string { return `{"type":"` + typ + `"` + rest + `}` }
	respEvs := []string{
		ev("response.created", `,"response":{"id":"r1","object":"response","output":[]}`),
		ev("response.output_text.delta", `,"delta":"Par"`),
		ev("response.output_text.delta", `,"delta":"is"`),
	}
	respEnd := ev("response.output_item.done", `,"item":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Paris"}]}`) + "\n" +
		ev("response.completed", `,"response":{"id":"r1","object":"response","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Paris"}]}]}`)
	sse := func(lines []string) string {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString("data: " + l + "\n\n")
		}
		return b.String()
	}
	quote := func(s string) string {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
	}
	chatLog := func(body string) string {
		return `{"request":{"model":"m","messages":[{"role":"user","content":"Capital of France?"}]},"response":` + quote(body) + `}`
	}
	respLog := func(body string) string {
		return `{"request":{"model":"m","input":"Capital of France?"},"response":` + quote(body) + `}`
	}
	tests := []struct {
		name, format, data string
		cut                bool
	}{
		{"chat chunks cut", "openai_chat", strings.Join(chatChunks, "\n"), true},
		{"chat chunks whole", "openai_chat", strings.Join(append(chatChunks, chatEnd), "\n"), false},
		{"chat SSE body cut", "openai_chat", chatLog(sse(chatChunks)), true},
		{"chat SSE body whole", "openai_chat", chatLog(sse(append(chatChunks, chatEnd)) + "data: [DONE]\n"), false},
		{"responses events cut", "openai_responses", strings.Join(respEvs, "\n"), true},
		{"responses events whole", "openai_responses", strings.Join(respEvs, "\n") + "\n" + respEnd, false},
		{"responses SSE body cut", "openai_responses", respLog(sse(respEvs)), true},
		{"responses SSE body whole", "openai_responses", respLog(sse(append(respEvs, strings.Split(respEnd, "\n")...))), false},
	}
	for _, tt := range tests {
		// A Responses log whose response is an SSE string has nothing a
		// detector can tell from a chat log by: the test names its format.
		f, recs, err := parseBytes(t, []byte(tt.data+"\n"), Options{Format: tt.format})
		if err != nil || f.Name != tt.format || len(recs) != 1 || recs[0].Trace == nil {
			t.Errorf("%s: format %s, err %v, records %+v", tt.name, f.Name, err, recs)
			continue
		}
		tr := recs[0].Trace
		why, marked := tr.Metadata[MetaIncomplete]
		var answer, said string
		for _, s := range tr.Steps {
			switch s.Kind {
			case model.KindAnswer:
				answer = s.Text
			case model.KindAssistant:
				said = s.Text
			}
		}
		if tt.cut {
			if !marked || why == "" || answer != "" || said != "Paris" {
				t.Errorf("%s: incomplete=%v (%v), answer %q, assistant %q; want marked, no answer, assistant \"Paris\"", tt.name, marked, why, answer, said)
			}
		} else if marked || answer != "Paris" {
			t.Errorf("%s: incomplete=%v, answer %q; want unmarked with answer \"Paris\"", tt.name, marked, answer)
		}
	}
}
