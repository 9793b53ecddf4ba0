package scoring

import "github.com/tracelab-dev/tracelab/model"

// Source says who decided one field of a verdict.
type Source string

// Verdict sources.
const (
	FromHuman  Source = "human"
	FromScorer Source = "scorer"
)

// LabelState is how far a person has labeled a case.
type LabelState string

// Label states. Suggested: no person stands behind the case (its gold and
// label are the machine's). Pending: a person confirmed the gold but set
// none of correct, grounded, failure_class ("gold confirmed, label
// pending"). Partial: a person set some of them, the scorer fills the rest.
// Labeled: a person decided all three.
const (
	LabelSuggested LabelState = "suggested"
	LabelPending   LabelState = "label_pending"
	LabelPartial   LabelState = "partly_labeled"
	LabelLabeled   LabelState = "labeled"
)

// Verdict is the final word on a case, field by field: a person's value
// where one was set, the scorer's otherwise.
type Verdict struct {
	Correct  *bool
	Grounded *bool
	Class    *model.FailureClass // nil: no failure (or none decided)
	From     struct{ Correct, Grounded, Class Source }
	State    LabelState
	// Review: the scorer asked for a human and at least one field of the
	// verdict is still the scorer's. A case a person decided in full needs
	// no review, whatever the scorer was unsure of.
	Review bool
}

// Pending reports "gold confirmed, label pending".
func (v Verdict) Pending() bool { return v.State == LabelPending }

// DecideVerdict is the one rule for reading a case's verdict, used by the
// report, report.json, check, sample strata and the TUI alike.
//
// human is the label a person stands behind: nil when nobody confirmed the
// case (then every field is the scorer's, State is LabelSuggested). A
// non-nil label whose correct, grounded and failure_class are all null is
// no label: State is LabelPending and the scorer's verdict counts. Each
// field a person set wins over the scorer's; the note never counts.
//
// failure_class: null in JSON cannot say "none" from "not set". A person's
// null class means "no failure" only when that person also set grounded
// (whoever judged groundedness and named no class judged there is none);
// otherwise the class is the scorer's suggestion. ts is the trace's score.
func DecideVerdict(human *model.Label, ts TraceScore) Verdict {
	v := Verdict{Correct: ts.Correct, Grounded: ts.Grounded, Class: ts.SuggestedClass, State: LabelSuggested}
	v.From.Correct, v.From.Grounded, v.From.Class = FromScorer, FromScorer, FromScorer
	if human != nil {
		if human.Correct != nil {
			v.Correct, v.From.Correct = human.Correct, FromHuman
		}
		if human.Grounded != nil {
			v.Grounded, v.From.Grounded = human.Grounded, FromHuman
		}
		if human.FailureClass != nil || human.Grounded != nil {
			v.Class, v.From.Class = human.FailureClass, FromHuman
		}
		switch {
		case human.Unset():
			v.State = LabelPending
		case v.From.Correct == FromHuman && v.From.Grounded == FromHuman && v.From.Class == FromHuman:
			v.State = LabelLabeled
		default:
			v.State = LabelPartial
		}
	}
	v.Review = ts.NeedsHumanReview && v.State != LabelLabeled
	return v
}
