package scoring

import (
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// A trace nobody wrote gold for has only its own words to go on. The
// seed's semantic symptom is "A reasoning step that contains 'sounds
// like,' 'probably,' or 'I will assume.'"; an imported chat trace writes
// its reasoning as visible assistant text before the tool call (thinking
// blocks are rare), so without gold a hedge in that text, before a call
// that uses a field, is the same symptom. With gold the definition,
// fields and window checks decide, and only thinking blocks count.

// noGold: the trace has no gold, or gold that states nothing to check
// against (a suggestion made from no glossary term and no peer).
func (st *state) noGold() bool {
	g := st.gold
	if g == nil {
		return true
	}
	answer := strings.TrimSpace(string(g.Answer))
	return (answer == "" || answer == "null") && len(g.RequiredFields) == 0 && len(g.ForbiddenFields) == 0 &&
		strings.TrimSpace(g.Definition) == "" && g.Window == nil && g.FreshnessBoundHours == nil
}

// hedgeBeforeFieldCall: step is the model's own text before a tool call
// (reasoning or assistant) and a later call uses a field.
func (st *state) hedgeBeforeFieldCall(step int) bool {
	switch st.t.Steps[step].Kind {
	case model.KindReasoning, model.KindAssistant:
	default:
		return false
	}
	for _, c := range st.calls {
		if c.step > step && !c.discovery && len(c.fields) > 0 {
			return true
		}
	}
	return false
}

// hedgeOnly: the suggestion rests on nothing but guess markers (semantic
// with guess_marker evidence alone). Without gold that says the model
// guessed, not that the answer was wrong for the wrong reason: grounded
// stays unknown.
func (st *state) hedgeOnly(ts TraceScore) bool {
	if ts.SuggestedClass == nil || *ts.SuggestedClass != model.ClassSemantic {
		return false
	}
	for class, kinds := range st.ev {
		for kind, k := range kinds {
			if k.conf >= SuggestThreshold && (class != model.ClassSemantic || kind != "guess_marker") {
				return false
			}
		}
	}
	return true
}
