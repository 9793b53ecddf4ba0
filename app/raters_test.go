package app

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// Two people label one trace: agreeing, the final label is theirs;
// disagreeing, the case waits in the disputed queue until someone
// adjudicates; undo of the adjudication reopens it.
func TestRatersAdjudication(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	const id = "trace_9f31c2"
	sem, ent := model.ClassSemantic, model.ClassEntity
	// The scorer suggests semantic: ana's 2 changes nothing, her confirm
	// endorses it and makes her a rater.
	if _, err := e.Labels.SetClass(ctx, id, "ana", &sem); err != nil {
		t.Fatal(err)
	}
	if tr, _ := e.Raters.Of(ctx, id); tr.Rater("ana") != nil {
		t.Error("a key that changed nothing made ana a rater")
	}
	if _, err := e.Labels.ConfirmLabel(ctx, id, "ana", true); err != nil {
		t.Fatal(err)
	}
	rec, _ := e.Traces.CaseForTrace(ctx, id)
	if got := classStr(rec.Case.Label.FailureClass); got != "semantic" {
		t.Fatalf("one person's class: final %s, want semantic", got)
	}
	// bob starts from the final label and agrees on the class.
	if _, err := e.Labels.ToggleCorrect(ctx, id, "bob"); err != nil {
		t.Fatal(err)
	}
	tr, err := e.Raters.Of(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Final.Disputed || classStr(tr.Final.Label.FailureClass) != "semantic" || boolStr(tr.Final.Label.Correct) != "yes" {
		t.Fatalf("agreeing raters: final %+v", tr.Final)
	}
	if names := raterNames(tr.Labels); names != "ana, bob, tracelab" {
		t.Errorf("raters %s, want ana, bob, tracelab", names)
	}
	// bob changes his mind on the class: a disagreement.
	if _, err := e.Labels.SetClass(ctx, id, "bob", &ent); err != nil {
		t.Fatal(err)
	}
	rec, _ = e.Traces.CaseForTrace(ctx, id)
	if !rec.Case.Label.Unset() {
		t.Errorf("disputed case: final label %+v, want unset (pending adjudication)", rec.Case.Label)
	}
	c, err := e.Traces.Counts(ctx, Filter{Disputed: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Total != 1 || c.Disputed != 1 {
		t.Errorf("disputed queue: %d traces, %d disputed; want 1, 1", c.Total, c.Disputed)
	}
	ds, err := e.Raters.Disagreements(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Disagreement{{TraceID: id, CaseID: id, Aspects: []string{"class"}, Raters: []string{"ana", "bob"}}}
	if !reflect.DeepEqual(ds, want) {
		t.Errorf("disagreements %+v, want %+v", ds, want)
	}
	// ana's own label is what she edits, not the unset final one.
	if res, err := e.Labels.ToggleCorrect(ctx, id, "ana"); err != nil || boolStr(res.Case.Case.Label.Correct) != "?" {
		t.Fatalf("ana toggles correct: %v, final %+v", err, res.Case.Case.Label)
	}
	tr, _ = e.Raters.Of(ctx, id)
	if got := boolStr(tr.Rater("ana").Label.Correct); got != "yes" {
		t.Errorf("ana's correct %s, want yes (from her own unset correct)", got)
	}
	if _, err := e.Raters.Adjudicate(ctx, id, "lead", AdjudicateRequest{Pick: "nobody"}); err == nil {
		t.Error("picking a rater who did not label: no error")
	}
	res, err := e.Raters.Adjudicate(ctx, id, "lead", AdjudicateRequest{Pick: "bob", Note: "the id scheme is wrong"})
	if err != nil {
		t.Fatal(err)
	}
	if classStr(res.Case.Case.Label.FailureClass) != "entity" || res.Case.Case.Label.Note != "the id scheme is wrong" {
		t.Errorf("adjudicated final %+v", res.Case.Case.Label)
	}
	if c, _ := e.Traces.Counts(ctx, Filter{}); c.Disputed != 0 {
		t.Errorf("after adjudication %d disputed, want 0", c.Disputed)
	}
	p, err := e.Raters.Progress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != 3 || p[0] != (LabelerProgress{Rater: "ana", Kind: model.RaterHuman, Labeled: 1, Confirmed: 1}) || p[2].Rater != "tracelab" {
		t.Errorf("progress %+v", p)
	}
	evs, _ := e.Traces.Events(ctx, id)
	if last := evs[len(evs)-1]; last.Field != "adjudication" || last.Who != "lead" {
		t.Errorf("last event %s by %s, want adjudication by lead", last.Field, last.Who)
	}
	if _, err := e.Labels.Undo(ctx, id, "lead"); err != nil {
		t.Fatal(err)
	}
	if ds, _ := e.Raters.Disagreements(ctx); len(ds) != 1 {
		t.Errorf("undo of the adjudication: %d disagreements, want 1", len(ds))
	}
	if _, err := e.Raters.Adjudicate(ctx, id, "lead", AdjudicateRequest{}); err == nil {
		t.Error("adjudication with neither pick nor label: no error")
	}
}

// A judge's label sits beside the people's and never decides the final one.
func TestJudgeNeverDecides(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	const id = "trace_9f31c2"
	no := false
	before, _ := e.Traces.CaseForTrace(ctx, id)
	if err := e.Raters.PutRaterLabel(ctx, id, RaterLabel{Rater: "judge:x", Kind: model.RaterJudge, Label: model.Label{Correct: &no}}); err != nil {
		t.Fatal(err)
	}
	rec, _ := e.Traces.CaseForTrace(ctx, id)
	if !reflect.DeepEqual(rec.Case.Label, before.Case.Label) {
		t.Errorf("judge alone: final %+v, want the label as it was, %+v", rec.Case.Label, before.Case.Label)
	}
	if err := e.Raters.PutRaterLabel(ctx, id, RaterLabel{Rater: "tracelab"}); err == nil {
		t.Error("a rater named tracelab was stored")
	}
	if _, err := e.Raters.Of(ctx, "nosuch"); !errors.Is(err, ErrNotFound) {
		t.Errorf("raters of no trace: %v", err)
	}
}

// An import with a labeler adds that person's label beside the others'
// and never overwrites the case; their own next file replaces their row.
func TestImportAddsALabelerBeside(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	line := func(correct string) string {
		return `{"case_id":"c-017","source_trace":"trace_9f31c2","user_role":"r","as_user":"u","question":"How many active customers did we have in EMEA last quarter?",` +
			`"gold":{"answer":1284,"required_fields":["customers.sales_region"],"forbidden_fields":[]},` +
			`"label":{"correct":` + correct + `,"grounded":false,"failure_class":"semantic","note":""},"cost":{}}` + "\n"
	}
	imp := func(body, labeler string) ImportResult {
		t.Helper()
		res, err := e.Imports.Reader(ctx, strings.NewReader(body), labeler+".jsonl", ImportOptions{Labeler: labeler})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if r := imp(line("true"), "ana"); r.New != 1 || r.Labels != 1 {
		t.Errorf("ana's file: %s", r.Summary())
	}
	if r := imp(line("false"), "bob"); r.New != 0 || r.Labels != 1 || r.Unchanged != 0 {
		t.Errorf("bob's file: %s", r.Summary())
	}
	if r := imp(line("false"), "bob"); r.Labels != 0 || r.Unchanged != 1 {
		t.Errorf("bob's file again: %s", r.Summary())
	}
	tr, err := e.Raters.Of(ctx, "trace_9f31c2")
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Final.Disputed || !reflect.DeepEqual(tr.Final.Aspects, []string{"correct"}) {
		t.Errorf("ana says correct, bob not: final %+v", tr.Final)
	}
	if r := imp(line("true"), "bob"); r.Labels != 1 {
		t.Errorf("bob changes his mind: %s", r.Summary())
	}
	rec, _ := e.Traces.CaseForTrace(ctx, "trace_9f31c2")
	if boolStr(rec.Case.Label.Correct) != "yes" || rec.Case.CaseID != "c-017" {
		t.Errorf("after bob agrees: case %s, final %+v", rec.Case.CaseID, rec.Case.Label)
	}
	if tr, _ := e.Raters.Of(ctx, "trace_9f31c2"); tr.LabelFor("bob").Correct == nil || tr.LabelFor("carol") != tr.Final.Label {
		t.Errorf("LabelFor: bob %+v, carol %+v", tr.LabelFor("bob"), tr.LabelFor("carol"))
	}
}

// BenchmarkToggleTwoRaters: one label action on a case two people label,
// the rater rows read and the final label settled in the same write.
func BenchmarkToggleTwoRaters(b *testing.B) {
	ctx := context.Background()
	e, err := Open(ctx, filepath.Join(b.TempDir(), "b.db"), Files{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Imports.File(ctx, "../testdata/traces/generic-warehouse.jsonl", ImportOptions{}); err != nil {
		b.Fatal(err)
	}
	who := []string{"ana", "bob"}
	i := 0
	for b.Loop() {
		if _, err := e.Labels.ToggleCorrect(ctx, "trace_9f31c2", who[i%2]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
