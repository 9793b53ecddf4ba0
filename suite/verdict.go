package suite

import (
	"fmt"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
)

// Verdict is what `tracelab check` says of one suite case.
type Verdict string

const (
	// VerdictPass: the suite label was correct and grounded, and so is the new trace.
	VerdictPass Verdict = "pass"
	// VerdictRegressed: the suite label was correct and grounded and the
	// new trace is not, or the label was correct and the new answer is wrong.
	VerdictRegressed Verdict = "regressed"
	// VerdictFixed: the suite label was not correct-and-grounded; the new trace is.
	VerdictFixed Verdict = "fixed"
	// VerdictFailing: the suite label was not correct-and-grounded and the new trace still is not.
	VerdictFailing Verdict = "failing"
	// VerdictMissing: no new trace for the case.
	VerdictMissing Verdict = "missing"
)

// Verdicts lists the verdicts in report order.
var Verdicts = []Verdict{VerdictRegressed, VerdictFailing, VerdictMissing, VerdictFixed, VerdictPass}

// CaseCheck is the verdict on one suite case.
type CaseCheck struct {
	CaseID  string  `json:"case_id"`
	Verdict Verdict `json:"verdict"`
	Reason  string  `json:"reason"`
	// TraceID is the new trace the verdict is about ("" when missing).
	TraceID string `json:"trace_id,omitempty"`
	// Policy counts the new trace's calls that returned something the
	// user may not see: any of them blocks the release.
	PolicyViolations int `json:"policy_violations"`
	// Traces is how many new traces matched the case.
	Traces int `json:"traces"`
	// Seconds is the case's share of the scoring time of the batches its
	// traces were scored in (traces are scored in parallel batches).
	Seconds float64 `json:"seconds"`
}

// CheckSummary counts the verdicts.
type CheckSummary struct {
	Cases            int `json:"cases"`
	Pass             int `json:"pass"`
	Regressed        int `json:"regressed"`
	Fixed            int `json:"fixed"`
	Failing          int `json:"failing"`
	Missing          int `json:"missing"`
	PolicyViolations int `json:"policy_violations"` // cases whose new trace leaked
	Traces           int `json:"traces"`            // new traces read
	Unmatched        int `json:"unmatched"`         // new traces that matched no case
	// Untagged counts the unmatched traces that name no server while
	// their question and as_user belong to several servers' cases.
	Untagged int `json:"untagged"`
	Coverage
	// ContractsChanged counts the tools whose contract differs from the
	// one the suite's cases were labeled against; ContractsBlocking those
	// that became writers with no approval (a failure).
	ContractsChanged  int `json:"contracts_changed"`
	ContractsBlocking int `json:"contracts_blocking"`
	// PolicyChecked says a policy oracle ran; without one, leaks go unseen.
	PolicyChecked bool `json:"policy_checked"`
	// JudgeKappaFailed says why the judge gate (check --min-judge-kappa)
	// failed: the judges and classes below the minimum; "" when it passed
	// or was not asked for.
	JudgeKappaFailed string `json:"judge_kappa_failed,omitempty"`
	// Failed is the CI verdict: a regression, a policy violation, or too
	// few cases covered (Coverage).
	Failed bool `json:"failed"`
}

// Rank orders verdicts from worst (0) for picking among several traces;
// a policy violation makes a verdict worse than the same one without.
func Rank(cc CaseCheck) int {
	r := 0
	for i, v := range Verdicts {
		if v == cc.Verdict {
			r = i * 2
		}
	}
	if cc.PolicyViolations == 0 {
		r++
	}
	return r
}

// WasGood: the suite's label says the case was correct and grounded, with
// no failure class.
func WasGood(l model.Label) bool {
	return l.Correct != nil && *l.Correct && l.Grounded != nil && *l.Grounded && l.FailureClass == nil
}

// Baseline is the stored case's verdict as the report counts it
// (scoring.DecideVerdict, issue 26): the person's value where the suite's
// label sets one, the scorer's otherwise. In a check the scorer is the new
// trace's score, so a field nobody labeled neither regresses nor fixes.
func Baseline(l model.Label, ts scoring.TraceScore) model.Label {
	v := scoring.DecideVerdict(&l, ts)
	return model.Label{Correct: v.Correct, Grounded: v.Grounded, FailureClass: v.Class}
}

// Judge compares one new trace's score with its case's verdict (Baseline).
func Judge(c *model.Case, ts scoring.TraceScore, answer string) CaseCheck {
	cc := CaseCheck{CaseID: c.CaseID, TraceID: ts.TraceID}
	if ts.PolicyViolations != nil {
		cc.PolicyViolations = *ts.PolicyViolations
	}
	reasons := Reasons(c, ts, answer)
	answerChecked := hasAnswer(c.Gold)
	// An answer the checker cannot compare (names where the gold lists
	// ids) is no failure, but the reason says a person should look.
	nowCorrect := ts.Correct == nil || *ts.Correct
	nowWrong := answerChecked && ts.Correct != nil && !*ts.Correct
	nowGood := nowCorrect && ts.Grounded != nil && *ts.Grounded && cc.PolicyViolations == 0
	base := Baseline(c.Label, ts)
	wasCorrect := base.Correct != nil && *base.Correct
	// A pending label vouches for nothing: its verdict is all the
	// scorer's, so it can neither regress nor be fixed.
	switch good := WasGood(base) && !c.Label.Unset(); {
	case good && nowGood:
		cc.Verdict = VerdictPass
	case good || wasCorrect && nowWrong:
		cc.Verdict = VerdictRegressed
	case nowGood && c.Label.Unset():
		// Label pending in the suite: no person's baseline to have
		// fixed, so the new trace is judged on its own.
		cc.Verdict = VerdictPass
	case nowGood:
		cc.Verdict = VerdictFixed
	default:
		cc.Verdict = VerdictFailing
	}
	if nowGood {
		cc.Reason = "correct and grounded"
		switch {
		case !answerChecked:
			cc.Reason = "grounded (the case has no gold answer to check)"
		case ts.Correct == nil:
			ac := scoring.CheckAnswer(c.Gold.Answer, c.Gold.Tolerance, answer)
			cc.Reason = "grounded; the answer needs a person: " + ac.Reason
		}
		if cc.Verdict == VerdictFixed {
			cc.Reason += "; the suite label was " + LabelText(c.Label)
		}
	} else {
		if len(reasons) == 0 {
			reasons = []string{"not grounded"}
		}
		if c.Label.Unset() {
			reasons = append(reasons, "the suite's label is pending, so this is not counted as a regression")
		}
		cc.Reason = strings.Join(reasons, "; ")
	}
	cc.Reason = model.CleanLine(cc.Reason)
	return cc
}

// LabelText is a label as one line of words ("wrong, ungrounded, class
// temporal"), as verdicts and tests print it.
func LabelText(l model.Label) string {
	var parts []string
	switch {
	case l.Correct == nil:
		parts = append(parts, "correctness unknown")
	case *l.Correct:
		parts = append(parts, "correct")
	default:
		parts = append(parts, "wrong")
	}
	switch {
	case l.Grounded == nil:
		parts = append(parts, "grounding unknown")
	case *l.Grounded:
		parts = append(parts, "grounded")
	default:
		parts = append(parts, "not grounded")
	}
	if l.FailureClass != nil {
		parts = append(parts, string(*l.FailureClass))
	}
	return strings.Join(parts, ", ")
}

func hasAnswer(g model.Gold) bool {
	a := strings.TrimSpace(string(g.Answer))
	return a != "" && a != "null"
}

// Reasons explains why a new trace is not correct and grounded, most
// decisive first: policy violations, forbidden fields, missing required
// fields, the predicate that differs, the freshness bound, the answer (the
// trace's final answer), then what could not be decided.
func Reasons(c *model.Case, ts scoring.TraceScore, answer string) []string {
	var out []string
	for _, cv := range ts.Violations {
		for _, v := range cv.Violations {
			out = append(out, fmt.Sprintf("policy violation at step %d: %s", cv.Step, v.Reason))
			break // one line per call
		}
	}
	var forbidden []string
	used := map[string]bool{}
	for _, f := range ts.FieldsUsed {
		used[f.Field] = true
		if f.Status == scoring.FieldForbidden {
			forbidden = append(forbidden, fmt.Sprintf("%s (step %s)", f.Field, joinInts(f.Steps)))
		}
	}
	if len(forbidden) > 0 {
		out = append(out, "forbidden field used: "+strings.Join(forbidden, ", "))
	}
	var missing []string
	for _, f := range c.Gold.RequiredFields {
		if !used[scoring.NormField(f)] {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		out = append(out, "required field missing: "+strings.Join(missing, ", "))
	}
	for _, cl := range ts.Classes {
		for _, e := range cl.Evidence {
			r := e.Reason
			switch {
			case strings.HasPrefix(r, "WHERE does not apply the definition"):
				out = append(out, fmt.Sprintf("predicate differs at step %d: %s", e.Step, r))
			case ts.FreshnessPass != nil && !*ts.FreshnessPass && cl.Class == model.ClassTemporal &&
				(strings.Contains(r, "bound") || strings.Contains(r, "as_of")):
				out = append(out, fmt.Sprintf("freshness at step %d: %s", e.Step, r))
			case cl.Class == model.ClassPolicy && strings.Contains(r, "not as the end user"):
				out = append(out, fmt.Sprintf("policy at step %d: %s", e.Step, r))
			}
		}
	}
	if ts.Correct != nil && !*ts.Correct {
		ac := scoring.CheckAnswer(c.Gold.Answer, c.Gold.Tolerance, answer)
		why := "the answer differs from the gold answer " + compactJSON(c.Gold.Answer)
		if ac.Reason != "" {
			why = "wrong answer: " + ac.Reason
		}
		out = append(out, why)
	}
	if ts.SuggestedClass != nil && len(out) == 0 {
		for _, cl := range ts.Classes {
			if cl.Class == *ts.SuggestedClass && len(cl.Evidence) > 0 {
				out = append(out, fmt.Sprintf("%s at step %d: %s", cl.Class, cl.Evidence[0].Step, cl.Evidence[0].Reason))
			}
		}
	}
	if ts.Grounded == nil && len(out) == 0 {
		why := "grounding could not be decided"
		if len(ts.ReviewReasons) > 0 {
			why += ": " + strings.Join(ts.ReviewReasons, "; ")
		}
		out = append(out, why)
	}
	return out
}

func compactJSON(raw []byte) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}
