package scoring

import (
	"fmt"

	"github.com/tracelab-dev/tracelab/model"
)

// A trace the scorer cannot score must not stop the others: a 63 MiB
// reasoning step killed `score` and, because the trace stayed unscored,
// every later import, score, report and export of its database. Such a
// trace gets a score that says why ("unscorable, because …"), needs a
// person, and decides nothing; the rest are scored as ever.

// MaxScoredBytes is the most trace text (step texts, arguments, results,
// the question) the scorer reads: scoring costs a few times what it
// reads, and no real trace comes near it.
const MaxScoredBytes = 32 << 20

// MaxDetail bounds each detail list of a score (fields used, classes and
// their evidence, call grounding, review reasons, violations, unparsed
// SQL); DetailMore counts what was left out. Markers have their own caps.
const MaxDetail = 1000

// Score scores one trace. gold is nil when the trace has no case yet; then
// only gold-free checks run (markers, fields, classes that need no gold).
// A trace too large to score, or one the scorer fails on, is unscorable.
func (s *Scorer) Score(t *model.Trace, gold *model.Gold) (ts TraceScore) {
	if n := traceBytes(t); n > MaxScoredBytes {
		return unscorable(t, fmt.Sprintf("it holds %.1f MiB of text, over the %d MiB the scorer reads", float64(n)/(1<<20), MaxScoredBytes>>20))
	}
	defer func() {
		if r := recover(); r != nil {
			ts = unscorable(t, fmt.Sprintf("the scorer failed on it (%v)", r))
		}
	}()
	ts = s.score(t, gold)
	boundDetail(&ts)
	return ts
}

// traceBytes is how much text a trace gives the scorer to read.
func traceBytes(t *model.Trace) int {
	n := len(t.Question) + len(t.Answer)
	for _, st := range t.Steps {
		n += len(st.Text) + len(st.Args) + len(st.Result) + len(st.Tool) + len(st.AsOf)
	}
	for _, tc := range t.Tools {
		n += len(tc.Raw) + len(tc.InputSchema) + len(tc.OutputSchema) + len(tc.Description)
	}
	return n
}

// unscorable is the score of a trace that could not be scored: nothing
// decided, a person to look, and why.
func unscorable(t *model.Trace, why string) TraceScore {
	why = "unscorable, because " + why
	return TraceScore{
		TraceID: t.TraceID, CaseID: t.CaseID(), Server: t.Server, RunID: t.RunID,
		Calls: t.ToolCalls(), CostUSD: t.Usage.USD,
		FieldsUsed: []FieldStatus{}, Markers: []Marker{}, Classes: []ClassSuggestion{},
		NeedsHumanReview: true, ReviewReasons: []string{why}, Unscorable: why,
	}
}

// boundDetail cuts every detail list to MaxDetail entries, counting the rest.
func boundDetail(ts *TraceScore) {
	ts.FieldsUsed = capList(ts.FieldsUsed, &ts.DetailMore)
	ts.Classes = capList(ts.Classes, &ts.DetailMore)
	for i := range ts.Classes {
		ts.Classes[i].Evidence = capList(ts.Classes[i].Evidence, &ts.DetailMore)
	}
	ts.CallGrounding = capList(ts.CallGrounding, &ts.DetailMore)
	ts.ReviewReasons = capList(ts.ReviewReasons, &ts.DetailMore)
	ts.Violations = capList(ts.Violations, &ts.DetailMore)
	for i := range ts.Violations {
		ts.Violations[i].Violations = capList(ts.Violations[i].Violations, &ts.DetailMore)
	}
	ts.UnparsedSQL = capList(ts.UnparsedSQL, &ts.DetailMore)
}

func capList[T any](xs []T, more *int) []T {
	if len(xs) <= MaxDetail {
		return xs
	}
	*more += len(xs) - MaxDetail
	return xs[:MaxDetail:MaxDetail]
}
