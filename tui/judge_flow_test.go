package tui

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

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
	tm := teatest.NewTestModel(t, New(eng, Options{Labeler: "tester", Theme: "dark"}),
		teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	var all []byte
	mark := 0
	waitFor := func(s string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		buf := make([]byte, 64<<10)
		for {
			n, _ := tm.Output().Read(buf)
			all = append(all, buf[:n]...)
			if i := bytes.Index(all[mark:], []byte(s)); i >= 0 {
				mark += i + len(s)
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%q not drawn within 5s; output since the last match:\n%q", s, all[mark:])
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("33 traces")
	tm.Send(keyMsg("m"))
	waitFor("≠ scorer or unsure 1")
	tm.Send(keyMsg("enter"))
	waitFor("judge:gpt-4o-mini")
	waitFor("the result has no as_of")
	tm.Send(keyMsg("m"))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		rec, err := eng.Traces.CaseForTrace(ctx, "trace_9f31c2")
		if err == nil && rec != nil && rec.Case.Label.FailureClass != nil && *rec.Case.Label.FailureClass == temporal &&
			strings.HasPrefix(rec.Case.Label.MachineNote, "from judge:gpt-4o-mini (gpt-4o-mini") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the judge's label was not accepted: %+v %v", rec, err)
		}
	}
	tr, err := eng.Raters.Of(ctx, "trace_9f31c2")
	if err != nil {
		t.Fatal(err)
	}
	if me := tr.Rater("tester"); me == nil || me.Kind != model.RaterHuman || me.Label.FailureClass == nil || *me.Label.FailureClass != temporal {
		t.Errorf("the labeler's own label: %+v", me)
	}
	tm.Send(keyMsg("?"))
	waitFor("accept judge's label")
	tm.Send(keyMsg("ctrl+c"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}
