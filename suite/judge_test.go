package suite

import (
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
)

// TestJudgeFollowsTheSuiteLabel: the case's verdict (Baseline) is the
// baseline, a person's value where set and the scorer's elsewhere; a label
// the suite leaves pending (all null) has none, so the new trace is judged
// on its own and never counted as a regression or a fix.
func TestJudgeFollowsTheSuiteLabel(t *testing.T) {
	yes, no := true, false
	semantic := model.ClassSemantic
	good := scoring.TraceScore{TraceID: "t", Correct: &yes, Grounded: &yes}
	bad := scoring.TraceScore{TraceID: "t", Correct: &yes, Grounded: &no}
	gold := model.Gold{Answer: []byte(`"1"`)}
	for _, tt := range []struct {
		name  string
		label model.Label
		score scoring.TraceScore
		want  Verdict
	}{
		{"good stays good", model.Label{Correct: &yes, Grounded: &yes}, good, VerdictPass},
		{"good turns ungrounded", model.Label{Correct: &yes, Grounded: &yes}, bad, VerdictRegressed},
		{"bad turns good", model.Label{Correct: &yes, Grounded: &no, FailureClass: &semantic}, good, VerdictFixed},
		{"bad stays bad", model.Label{Correct: &yes, Grounded: &no, FailureClass: &semantic}, bad, VerdictFailing},
		{"pending, new trace good", model.Label{}, good, VerdictPass},
		{"pending, new trace bad", model.Label{}, bad, VerdictFailing},
		// A partial label's unset fields are the scorer's, as the report
		// counts them (scoring.DecideVerdict): the same good trace again
		// passes, it is not "fixed" from a groundedness nobody rated.
		{"correct only, new trace good", model.Label{Correct: &yes}, good, VerdictPass},
		{"grounded only, new trace good", model.Label{Grounded: &yes}, good, VerdictPass},
		{"correct only, new trace ungrounded", model.Label{Correct: &yes}, bad, VerdictFailing},
		{"wrong only, new trace good", model.Label{Correct: &no}, good, VerdictFixed},
		{"grounded only, new trace wrong", model.Label{Grounded: &yes}, scoring.TraceScore{TraceID: "t", Correct: &no, Grounded: &yes}, VerdictFailing},
	} {
		c := &model.Case{CaseID: "c", Gold: gold, Label: tt.label}
		if got := Judge(c, tt.score, "1").Verdict; got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}
