package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracelab-dev/tracelab/suite"
)

// TestCheckCountsAPartialLabelAsTheReportDoes: a person marks a trace the
// scorer finds grounded (and not wrong) as correct (grounded left to the
// scorer) and confirms it. The report counts the case good; check of the
// same trace against the exported suite must pass it, not call it
// "fixed" from a groundedness nobody rated (issue 26).
func TestCheckCountsAPartialLabelAsTheReportDoes(t *testing.T) {
	ctx := context.Background()
	template, _ := numbersTemplate(t)
	all := func(e *Engine) ReportDetail {
		d, err := e.Suite.ReportDetail(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	probe := openNumbersEngine(t, copyDB(t, template, t.TempDir(), "probe.db"))
	var good []string
	for _, c := range all(probe).Cases {
		v := c.Verdict
		// Correct unset where the gold has no answer: the person's
		// "correct" then decides it.
		if (v.Correct == nil || *v.Correct) && v.Grounded != nil && *v.Grounded && v.Class == nil {
			good = append(good, c.TraceID)
		}
	}
	probe.Close()
	if len(good) == 0 {
		t.Fatal("the bundled traces have no trace the scorer finds grounded, not wrong and of no class")
	}
	traces, _ := filepath.Glob("../testdata/traces/*.jsonl")
	for _, id := range good {
		dir := t.TempDir()
		e := openNumbersEngine(t, copyDB(t, template, dir, "t.db"))
		if _, err := e.Labels.ToggleCorrect(ctx, id, "ana"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Labels.ConfirmLabel(ctx, id, "ana", true); err != nil {
			t.Fatal(err)
		}
		d, err := e.Suite.ReportDetail(ctx, false)
		if err != nil || len(d.Cases) != 1 || !*d.Cases[0].Verdict.Grounded {
			t.Fatalf("the report after confirming %s: %+v %v", id, d.Cases, err)
		}
		if _, err := e.Suite.Export(ctx, ExportOptions{Dir: filepath.Join(dir, "suite")}); err != nil {
			t.Fatal(err)
		}
		e.Close()
		rep, err := RunCheck(ctx, CheckInput{Suite: filepath.Join(dir, "suite", "cases.jsonl"), Traces: traces, TempDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Cases) != 1 || rep.Cases[0].Traces != 1 {
			os.RemoveAll(dir)
			continue // another bundled trace asks the same question: try the next
		}
		if cc := rep.Cases[0]; cc.Verdict != suite.VerdictPass {
			t.Fatalf("check says %s for %s (%s); the report counts it correct and grounded", cc.Verdict, id, cc.Reason)
		}
		return
	}
	t.Fatalf("none of the %d good traces is the only trace of its question", len(good))
}
