package suite

import (
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
)

// TestJudgeFollowsTheSuiteLabel: a person's label is the baseline; a label
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
	} {
		c := &model.Case{CaseID: "c", Gold: gold, Label: tt.label}
		if got := Judge(c, tt.score, "1").Verdict; got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}
