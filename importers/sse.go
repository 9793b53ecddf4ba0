package importers

import "strings"

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
