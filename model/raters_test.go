package model

import (
	"reflect"
	"testing"
)

func TestFinalLabel(t *testing.T) {
	yes, no := true, false
	sem, ent := ClassSemantic, ClassEntity
	human := func(name string, l Label, f *FieldSets) RaterLabel {
		return RaterLabel{Rater: name, Kind: RaterHuman, Label: l, Fields: f}
	}
	base := Label{Correct: &yes, Note: "from the suite"}
	judge := RaterLabel{Rater: "judge:gpt", Kind: RaterJudge, Label: Label{Correct: &no}}
	fa := &FieldSets{Required: []string{"a.x", "a.y"}, Forbidden: []string{}}
	fb := &FieldSets{Required: []string{"a.y", "a.x"}, Forbidden: []string{}}
	fc := &FieldSets{Required: []string{"a.x"}, Forbidden: []string{"a.z"}}
	tests := []struct {
		name   string
		raters []RaterLabel
		adj    *Adjudication
		want   Final
	}{
		{"nobody: the base stands", nil, nil, Final{Label: base}},
		{"a judge alone never decides", []RaterLabel{judge}, nil, Final{Label: base}},
		{"one person", []RaterLabel{judge, human("ana", Label{Correct: &no, Grounded: &no, FailureClass: &sem}, fa)}, nil,
			Final{Label: Label{Correct: &no, Grounded: &no, FailureClass: &sem}, Fields: fa}},
		{"two agree, each rated part", []RaterLabel{
			human("bob", Label{Correct: &yes, Note: "bob's"}, fb),
			human("ana", Label{Grounded: &no, FailureClass: &sem}, fa)}, nil,
			Final{Label: Label{Correct: &yes, Grounded: &no, FailureClass: &sem, Note: "bob's"}, Fields: fa}},
		{"disagree on correct", []RaterLabel{human("ana", Label{Correct: &yes}, nil), human("bob", Label{Correct: &no}, nil)}, nil,
			Final{Disputed: true, Aspects: []string{AspectCorrect}}},
		{"no class with grounded set is none, against a class", []RaterLabel{
			human("ana", Label{Grounded: &yes}, nil), human("bob", Label{FailureClass: &ent}, nil)}, nil,
			Final{Disputed: true, Aspects: []string{AspectClass}}},
		{"no class without grounded is unrated", []RaterLabel{
			human("ana", Label{Correct: &yes}, nil), human("bob", Label{Correct: &yes, FailureClass: &ent}, nil)}, nil,
			Final{Label: Label{Correct: &yes, FailureClass: &ent}}},
		{"three raters, fields and class", []RaterLabel{
			human("ana", Label{FailureClass: &sem}, fa), human("bob", Label{FailureClass: &sem}, fb),
			human("cy", Label{FailureClass: &ent}, fc)}, nil,
			Final{Disputed: true, Aspects: []string{AspectClass, AspectFields}}},
		{"adjudicated wins over the dispute", []RaterLabel{human("ana", Label{Correct: &yes}, nil), human("bob", Label{Correct: &no}, nil)},
			&Adjudication{Label: Label{Correct: &no, Note: "checked"}, Fields: fc, Picked: "bob", By: "lead"},
			Final{Label: Label{Correct: &no, Note: "checked"}, Fields: fc}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FinalLabel(base, tt.raters, tt.adj); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FinalLabel =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

func TestDisagreement(t *testing.T) {
	yes, no := true, false
	a := RaterLabel{Label: Label{Correct: &yes, Grounded: &yes}}
	b := RaterLabel{Label: Label{Correct: &no, Grounded: &yes}, Fields: &FieldSets{}}
	if got := Disagreement(a, b); !reflect.DeepEqual(got, []string{AspectCorrect}) {
		t.Errorf("got %v, want [correct] (fields unrated by a, class none for both)", got)
	}
	a.Fields = &FieldSets{Required: []string{"t.c"}}
	if got := Disagreement(a, b); !reflect.DeepEqual(got, []string{AspectCorrect, AspectFields}) {
		t.Errorf("got %v, want [correct fields]", got)
	}
}
