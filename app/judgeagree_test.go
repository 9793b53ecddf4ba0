package app

import (
	"reflect"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

func lab(correct, grounded bool, class string) model.Label {
	l := model.Label{Correct: &correct, Grounded: &grounded}
	if class != "" {
		c := model.FailureClass(class)
		l.FailureClass = &c
	}
	return l
}

// A judge against people over a suite's labels: kappa on the class and per
// class, the disagreements with the judge's reason, and the gate naming
// the classes below the minimum.
func TestSuiteJudgeCalibration(t *testing.T) {
	person := func(l model.Label) model.RaterLabel {
		return model.RaterLabel{Rater: "ana", Kind: model.RaterHuman, Label: l}
	}
	judge := func(l model.Label, why string) model.RaterLabel {
		return model.RaterLabel{Rater: "judge:m", Kind: model.RaterJudge, Label: l, Rationale: why, Model: "m", PromptSHA256: "p"}
	}
	cases := []model.Case{
		{CaseID: "c1", Labels: []model.RaterLabel{person(lab(true, false, "semantic")), judge(lab(true, false, "semantic"), "")}},
		{CaseID: "c2", Labels: []model.RaterLabel{person(lab(true, false, "semantic")), judge(lab(true, false, "semantic"), "")}},
		{CaseID: "c3", Labels: []model.RaterLabel{person(lab(false, false, "temporal")), judge(lab(false, false, "temporal"), "")}},
		{CaseID: "c4", Labels: []model.RaterLabel{person(lab(true, true, "")), judge(lab(true, true, ""), "")}},
		{CaseID: "c5", Labels: []model.RaterLabel{person(lab(false, false, "policy")), judge(lab(false, false, "temporal"), "stale")}},
		// No person: the judge's label is not compared.
		{CaseID: "c6", Labels: []model.RaterLabel{judge(lab(true, true, ""), "")}},
		// No label at all from the judge: nothing rated, nothing compared.
		{CaseID: "c7", Labels: []model.RaterLabel{person(lab(true, true, "")), judge(model.Label{}, "no label, because the model refused")}},
	}
	cals := SuiteJudgeCalibrations(cases)
	if len(cals) != 1 {
		t.Fatalf("%d calibrations", len(cals))
	}
	cal := cals[0]
	if cal.Judge != "judge:m" || cal.Cases != 5 || !reflect.DeepEqual(cal.Models, []string{"m"}) {
		t.Fatalf("%+v", cal)
	}
	want := []JudgeDisagreement{{ID: "c5", Aspect: "class", Judge: "temporal", People: "policy", Rationale: "stale"}}
	if !reflect.DeepEqual(cal.Disagreements, want) {
		t.Errorf("disagreements %+v", cal.Disagreements)
	}
	class := cal.Aspects[0]
	if class.Aspect != "class" || class.Pair.N != 5 || class.Pair.Agreement.Value != 0.8 {
		t.Errorf("class: %+v", class.Pair)
	}
	// Per class: semantic and none agree fully (kappa 1); temporal: the
	// judge put 2, people 1, over 5 cases; policy: people 1, judge 0 (0).
	per := map[string]ClassAgreement{}
	for _, c := range cal.Classes {
		per[c.Class] = c
	}
	if k := per["semantic"].Kappa; !k.Defined || k.Value != 1 {
		t.Errorf("semantic %+v", per["semantic"])
	}
	if k := per["policy"].Kappa; !k.Defined || k.Value != 0 || per["policy"].People != 1 || per["policy"].Judge != 0 {
		t.Errorf("policy %+v", per["policy"])
	}
	if got := cal.ShortClasses(0.6); !reflect.DeepEqual(got, []string{"temporal", "policy"}) {
		t.Errorf("short at 0.6: %v", got)
	}
	if got := cal.ShortClasses(0.5); !reflect.DeepEqual(got, []string{"policy"}) {
		t.Errorf("short at 0.5: %v", got)
	}
	g := judgeGate(0.6, "cases.jsonl", cals, nil)
	if !g.Failed || g.Reason != "judge:m below kappa 0.6 on temporal, policy" {
		t.Errorf("gate: %+v", g)
	}
	if g := judgeGate(-0.5, "cases.jsonl", cals, nil); g.Failed {
		t.Errorf("gate at -0.5: %+v", g)
	}
	m := &SuiteManifest{Judges: []ManifestJudge{{Rater: "judge:m"}}}
	if g := judgeGate(0.6, "cases.jsonl", nil, m); !g.Failed {
		t.Error("a suite naming judges with no labels passed")
	}
	if g := judgeGate(0.6, "cases.jsonl", nil, nil); g.Failed {
		t.Error("a suite no judge labeled failed")
	}
}
