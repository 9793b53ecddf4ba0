package app

import (
	"encoding/json"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

func TestFollowAnswer(t *testing.T) {
	yes, no := true, false
	caseWith := func(answer string, correct *bool) model.Case {
		c := model.Case{}
		if answer != "" {
			c.Gold.Answer = json.RawMessage(answer)
		}
		c.Label.Correct = correct
		return c
	}
	for _, tc := range []struct {
		name    string
		cur     model.Case
		edits   []FieldEdit
		correct string // the label.correct added, "" for none
	}{
		{"unset follows the right answer", caseWith("", nil), []FieldEdit{{"gold.answer", json.RawMessage(`1284`)}}, "true"},
		{"unset follows a wrong answer", caseWith("", nil), []FieldEdit{{"gold.answer", json.RawMessage(`1147`)}}, "false"},
		{"correct that followed the old answer follows", caseWith(`1284`, &yes), []FieldEdit{{"gold.answer", json.RawMessage(`1147`)}}, "false"},
		{"a person's verdict against the check stays", caseWith(`1284`, &no), []FieldEdit{{"gold.answer", json.RawMessage(`1147`)}}, ""},
		{"no answer: correct back to unknown", caseWith(`1284`, &yes), []FieldEdit{{"gold.answer", json.RawMessage(`null`)}}, "null"},
		{"tolerance moves it too", caseWith(`1280`, &no), []FieldEdit{{"gold.tolerance", json.RawMessage(`10`)}}, "true"},
		{"same verdict: nothing added", caseWith(`1284`, &yes), []FieldEdit{{"gold.answer", json.RawMessage(`"1,284"`)}}, ""},
		{"other fields: nothing added", caseWith("", nil), []FieldEdit{{"gold.definition", json.RawMessage(`"x"`)}}, ""},
		{"correct set in the edit wins", caseWith("", nil),
			[]FieldEdit{{"gold.answer", json.RawMessage(`1284`)}, {"label.correct", json.RawMessage(`false`)}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := json.Marshal(tc.cur)
			got := followAnswer("1,284", tc.cur, tc.edits)
			after, _ := json.Marshal(tc.cur)
			if string(before) != string(after) {
				t.Fatalf("the case was changed: %s -> %s", before, after)
			}
			added := ""
			if len(got) > len(tc.edits) {
				last := got[len(got)-1]
				if last.Field != "label.correct" {
					t.Fatalf("added %s", last.Field)
				}
				added = string(last.Value)
			}
			if added != tc.correct {
				t.Errorf("label.correct added %q, want %q", added, tc.correct)
			}
		})
	}
}

func TestEditsStand(t *testing.T) {
	ev := func(field, old, nv string) Event {
		return Event{Field: field, Old: json.RawMessage(old), New: json.RawMessage(nv)}
	}
	for _, tc := range []struct {
		name string
		evs  []Event
		want bool
	}{
		{"no events: the machine's", nil, false},
		{"an import alone", []Event{ev("case", "", `{}`)}, false},
		{"one edit", []Event{ev("label.correct", "null", "true")}, true},
		{"edit then its undo", []Event{ev("label.correct", "null", "true"), ev("label.correct", "true", "null")}, false},
		{"two fields, one undone", []Event{ev("label.correct", "null", "true"), ev("gold.answer", "null", "1284"),
			ev("gold.answer", "1284", "null")}, true},
		{"toggled twice", []Event{ev("label.correct", "null", "true"), ev("label.correct", "true", "false"),
			ev("label.correct", "false", "null")}, false},
		{"edits before an import are its past", []Event{ev("label.correct", "null", "true"), ev("case", "", `{}`)}, false},
		{"a rater's label or a status alone", []Event{ev("rater", "null", `{}`), ev("status", `"suggested"`, `"confirmed"`)}, false},
		{"same value spelled apart", []Event{ev("gold.required_fields", `["a", "b"]`, `[]`), ev("gold.required_fields", `[]`, `["a","b"]`)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := editsStand(tc.evs); got != tc.want {
				t.Errorf("editsStand = %v, want %v", got, tc.want)
			}
		})
	}
}
