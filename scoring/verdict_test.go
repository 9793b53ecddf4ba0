package scoring

import (
	"encoding/json"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

func TestDecideVerdict(t *testing.T) {
	yes, no := true, false
	sem, ent := model.ClassSemantic, model.ClassEntity
	// The scorer says: correct, not grounded, entity, unsure.
	ts := TraceScore{Correct: &yes, Grounded: &no, SuggestedClass: &ent, NeedsHumanReview: true}
	type want struct {
		correct, grounded any // bool or nil
		class             any // class name or nil
		from              [3]Source
		state             LabelState
		review            bool
	}
	S, H := FromScorer, FromHuman
	cases := []struct {
		name  string
		label *model.Label
		want  want
	}{
		{"nobody behind the case: all the scorer's", nil,
			want{true, false, "entity", [3]Source{S, S, S}, LabelSuggested, true}},
		{"all-null label is no label: pending, scorer counts", &model.Label{},
			want{true, false, "entity", [3]Source{S, S, S}, LabelPending, true}},
		{"a note alone is still no label", &model.Label{Note: "looked at it"},
			want{true, false, "entity", [3]Source{S, S, S}, LabelPending, true}},
		{"person set correct only: grounded and class stay the scorer's", &model.Label{Correct: &no},
			want{false, false, "entity", [3]Source{H, S, S}, LabelPartial, true}},
		{"correct and grounded with a null class means no failure", &model.Label{Correct: &yes, Grounded: &yes},
			want{true, true, nil, [3]Source{H, H, H}, LabelLabeled, false}},
		{"grounded set, class null: no failure although the scorer names one", &model.Label{Grounded: &no},
			want{true, false, nil, [3]Source{S, H, H}, LabelPartial, true}},
		{"class set without grounded: the class is the person's", &model.Label{FailureClass: &sem},
			want{true, false, "semantic", [3]Source{S, S, H}, LabelPartial, true}},
		{"correct set, class null, grounded null: class is the scorer's", &model.Label{Correct: &yes},
			want{true, false, "entity", [3]Source{H, S, S}, LabelPartial, true}},
		{"full label overrides every field and clears review", &model.Label{Correct: &no, Grounded: &no, FailureClass: &sem},
			want{false, false, "semantic", [3]Source{H, H, H}, LabelLabeled, false}},
	}
	for _, c := range cases {
		v := DecideVerdict(c.label, ts)
		var class any
		if v.Class != nil {
			class = string(*v.Class)
		}
		got := want{bptr(v.Correct), bptr(v.Grounded), class, [3]Source{v.From.Correct, v.From.Grounded, v.From.Class}, v.State, v.Review}
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
		if v.Pending() != (c.want.state == LabelPending) {
			t.Errorf("%s: Pending() = %v", c.name, v.Pending())
		}
	}
	// A scorer that is sure (no review) stays sure for a pending case.
	if v := DecideVerdict(&model.Label{}, TraceScore{Correct: &yes}); v.Review {
		t.Errorf("review without the scorer asking: %+v", v)
	}
}

// The workflow: gold written by experts, labels still empty. The
// report must count the scorer's verdicts, not zeros, and a person's label
// must override field by field.
func TestReportGoldOnlyCasesCountScorer(t *testing.T) {
	yes, no := true, false
	sem, tmp := model.ClassSemantic, model.ClassTemporal
	var empty model.Label
	if err := json.Unmarshal([]byte(`{"correct":null,"grounded":null,"failure_class":null}`), &empty); err != nil {
		t.Fatal(err)
	}
	score := func(id string, correct, grounded bool, class *model.FailureClass, review bool) TraceScore {
		return TraceScore{TraceID: id, Server: "s", Correct: &correct, Grounded: &grounded, SuggestedClass: class,
			NeedsHumanReview: review, CostUSD: 1}
	}
	results := []CaseResult{
		{Score: score("a", true, true, nil, false), Label: &empty, Confirmed: true},
		{Score: score("b", true, false, &sem, true), Label: &empty, Confirmed: true},
		{Score: score("c", false, false, &tmp, false), Confirmed: true}, // no label object at all
		// A person overrides only grounded: ungrounded, so no failure (null class with grounded set).
		{Score: score("d", true, true, &sem, true), Label: &model.Label{Grounded: &no}, Confirmed: true},
		// A person says correct and grounded; the scorer's class and review are dropped.
		{Score: score("e", false, false, &sem, true), Label: &model.Label{Correct: &yes, Grounded: &yes}, Confirmed: true},
	}
	rep := BuildReport(results)[0]
	// correct: a, b, d (scorer), e (person) = 4; correct and grounded: a, e.
	if rep.Correct != 4 || rep.CorrectAndGrounded != 2 {
		t.Errorf("correct %d, correct_and_grounded %d, want 4, 2", rep.Correct, rep.CorrectAndGrounded)
	}
	if rep.CostPerCorrectAnswerUSD == nil || *rep.CostPerCorrectAnswerUSD != 2.5 {
		t.Errorf("cost_per_correct_answer_usd = %v, want 2.5", f64(rep.CostPerCorrectAnswerUSD))
	}
	if rep.FailuresByClass["semantic"] != 1 || rep.FailuresByClass["temporal"] != 1 {
		t.Errorf("failures_by_class = %v, want semantic 1 (b; d's person set grounded), temporal 1", rep.FailuresByClass)
	}
	// b (pending) and d (partly labeled) still rest on an unsure scorer.
	if rep.NeedsHumanReview != 2 {
		t.Errorf("needs_human_review = %d, want 2", rep.NeedsHumanReview)
	}
	ls := BuildLabelStatus(append(results, CaseResult{Score: score("f", true, true, nil, false)}))
	want := ServerLabels{Server: "s", Cases: 6, Labeled: 1, PartlyLabeled: 1, LabelPending: 3, Suggested: 1}
	if len(ls) != 1 || ls[0] != want {
		t.Errorf("BuildLabelStatus = %+v, want %+v", ls, want)
	}
}
