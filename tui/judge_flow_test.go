package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// TestJudgeCheckFlow: a judge labeled a trace and disagrees with the
// scorer. In the real program (teatest), m on the queue keeps the judge's
// disagreements, the trace screen shows the judge's label and reason, and
// m there takes it as the labeler's own, the judge named as its source.
func TestJudgeCheckFlow(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	ctx := context.Background()
	yes, no := true, false
	temporal := model.ClassTemporal
	if err := eng.Raters.PutRaterLabel(ctx, "trace_9f31c2", app.RaterLabel{Rater: "judge:gpt-4o-mini", Kind: model.RaterJudge,
		Label: model.Label{Correct: &yes, Grounded: &no, FailureClass: &temporal}, Rationale: "the result has no as_of",
		Model: "gpt-4o-mini", PromptSHA256: "9c9e3caa2a60"}); err != nil {
		t.Fatal(err)
	}
	p := newProgram(t, eng, Options{}, 120, 40)
	p.waitFor("33 traces")
	p.send("m")
	p.waitFor("≠ scorer or unsure 1")
	p.send("enter")
	p.waitFor("judge:gpt-4o-mini")
	p.waitFor("the result has no as_of")
	p.send("m")
	p.eventually("trace_9f31c2", "the judge's label accepted", func(rec *app.CaseRecord) bool {
		return rec.Case.Label.FailureClass != nil && *rec.Case.Label.FailureClass == temporal &&
			strings.HasPrefix(rec.Case.Label.MachineNote, "from judge:gpt-4o-mini (gpt-4o-mini")
	})
	tr, err := eng.Raters.Of(ctx, "trace_9f31c2")
	if err != nil {
		t.Fatal(err)
	}
	if me := tr.Rater("tester"); me == nil || me.Kind != model.RaterHuman || me.Label.FailureClass == nil || *me.Label.FailureClass != temporal {
		t.Errorf("the labeler's own label: %+v", me)
	}
	p.send("?")
	p.waitFor("accept judge's label")
	p.send("esc")
	p.quit()
}
