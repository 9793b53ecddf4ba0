package importers

// Folding the calls of one agent run, logged one per turn, into one trace.

import (
	"bytes"

	"github.com/tracelab-dev/tracelab/model"
)

// prefixMerger holds back the trace of a logged API call ({request,
// response} record or cassette interaction) until the next record shows
// whether it is only the start of the same conversation (an agent run logs
// one call per turn, each request repeating the history): a trace whose
// steps the next one repeats, or a response the next request continues
// (Responses API previous_response_id), is folded into the next one, its
// usage added, so the conversation is one trace.
type prefixMerger struct {
	emit Emit
	held *Record
}

// add takes the next record; prev is the id of the response its request
// continues, if any.
func (m *prefixMerger) add(r Record, prev string) error {
	if h := m.held; h != nil && r.Trace != nil {
		switch {
		case prev != "" && prev == h.Trace.TraceID:
			r.Trace.Steps = append(append([]model.Step(nil), h.Trace.Steps...), r.Trace.Steps...)
			tools := map[string]string{}
			for i, st := range r.Trace.Steps {
				if st.Kind == model.KindToolCall {
					tools[st.ID] = st.Tool
				} else if st.Kind == model.KindToolResult && st.Tool == "" {
					r.Trace.Steps[i].Tool = tools[st.CallID]
				}
			}
			foldInto(r.Trace, h.Trace)
			r.Line, m.held = h.Line, nil
		case stepsPrefix(h.Trace.Steps, r.Trace.Steps):
			foldInto(r.Trace, h.Trace)
			r.Line, m.held = h.Line, nil
		case narrationDropped(h.Trace.Steps, r.Trace.Steps):
			// The client re-sent the history without what the model
			// said before its tool calls (CrewAI on Bedrock, Cohere's
			// tool_plan): the narration stays, from the earlier call.
			n := len(h.Trace.Steps) - countKind(h.Trace.Steps, model.KindAssistant) - countKind(h.Trace.Steps, model.KindReasoning)
			r.Trace.Steps = append(append([]model.Step(nil), h.Trace.Steps...), r.Trace.Steps[n:]...)
			foldInto(r.Trace, h.Trace)
			r.Line, m.held = h.Line, nil
		}
	}
	if m.held != nil {
		if err := m.emit(*m.held); err != nil {
			return err
		}
		m.held = nil
	}
	if r.Trace == nil {
		return m.emit(r)
	}
	m.held = &r
	return nil
}

// foldInto adds what an earlier part of the conversation carried to t.
func foldInto(t, earlier *model.Trace) {
	t.Usage.InputTokens += earlier.Usage.InputTokens
	t.Usage.OutputTokens += earlier.Usage.OutputTokens
	t.Usage.USD += earlier.Usage.USD
	if earlier.StartedAt != "" {
		t.StartedAt = earlier.StartedAt
	}
	if t.Question == "" {
		t.Question = earlier.Question
	}
	t.AsUser = firstNonEmpty(t.AsUser, earlier.AsUser)
	t.Model = firstNonEmpty(t.Model, earlier.Model)
	t.Server = firstNonEmpty(t.Server, earlier.Server)
	for _, tc := range earlier.Tools {
		addContract(t, tc, tc.Raw)
	}
	t.Source.Line = earlier.Source.Line
}

func (m *prefixMerger) flush() error {
	if m.held == nil {
		return nil
	}
	r := *m.held
	m.held = nil
	return m.emit(r)
}

// stepsPrefix reports whether a is b's beginning (the kind of an open
// turn's text may change once the conversation goes on, so kinds of text
// steps are not compared).
func stepsPrefix(a, b []model.Step) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if (x.Kind != y.Kind && (x.Text == "" || y.Text == "")) || x.Text != y.Text || x.Tool != y.Tool ||
			x.ID != y.ID || x.CallID != y.CallID || !bytes.Equal(x.Args, y.Args) || !bytes.Equal(x.Result, y.Result) {
			return false
		}
	}
	return true
}

// narrationDropped reports whether a, less its assistant messages (text
// said before tool calls, not answers) and reasoning, is b's beginning, a
// having some.
func narrationDropped(a, b []model.Step) bool {
	if countKind(a, model.KindAssistant)+countKind(a, model.KindReasoning) == 0 {
		return false
	}
	kept := make([]model.Step, 0, len(a))
	for _, s := range a {
		if s.Kind != model.KindAssistant && s.Kind != model.KindReasoning {
			kept = append(kept, s)
		}
	}
	return stepsPrefix(kept, b)
}

func countKind(steps []model.Step, k model.StepKind) int {
	n := 0
	for _, s := range steps {
		if s.Kind == k {
			n++
		}
	}
	return n
}
