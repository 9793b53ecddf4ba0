package model

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"testing"
)

// CaseLines writes Case's fields itself: a field added to Case must be
// added to it (or to the cases it hands to MarshalLine) too.
func TestCaseLinesKnowEveryField(t *testing.T) {
	var names []string
	for f := range reflect.TypeFor[Case]().Fields() {
		names = append(names, f.Name)
	}
	want := []string{"CaseID", "SourceTrace", "Server", "UserRole", "AsUser", "Question", "Gold", "Label", "Cost",
		"Contracts", "Labeler", "Labels", "Adjudication"}
	if !slices.Equal(names, want) {
		t.Fatalf("Case's fields are %v; CaseLines.Append writes %v: teach it the new ones", names, want)
	}
}

func caseLinesCases() []Case {
	yes, no := true, false
	tol, hours := 0.01, 24.0
	class := ClassSemantic
	gold := Gold{Answer: json.RawMessage(`[ 1, "a<b>&c" ]`), Tolerance: &tol, RequiredFields: []string{"t.a", "t.b"},
		ForbiddenFields: []string{}, Definition: "x < y && \"z\"", Window: &Window{Start: "2026-04-01", End: "2026-06-30", Calendar: "fiscal"},
		FreshnessBoundHours: &hours, PolicyScope: "region:EMEA"}
	plain := Case{CaseID: "k1", SourceTrace: "t1", Server: "s1", UserRole: "r", AsUser: "u", Question: "How many?",
		Gold: gold, Label: Label{Correct: &yes, Grounded: &no, FailureClass: &class, Note: "n"},
		Cost: Case{}.Cost, Contracts: map[string]string{"b": "2", "a": "1", "<c>": "é"}}
	plain.Cost.InputTokens, plain.Cost.USD = 10, 0.0181
	out := []Case{plain, {CaseID: "bare"}}
	for _, s := range []string{"", "plain", `quo"te`, `back\slash`, "tab\there", "nl\n", "\x00\x01\x1f", "\x7f", "<html>&amp;",
		"é ü 日本", "line\u2028sep\u2029", "c1 \u0085 \u009f", "bidi \u202e \u2066", "bad \xff utf8", "half \xe2\x80"} {
		c := plain
		c.CaseID, c.SourceTrace, c.Server, c.UserRole, c.AsUser, c.Question = s, s, s, s, s, s
		c.Label.Note, c.Gold.Definition = s, s
		c.Contracts = map[string]string{s: s, "z": s}
		out = append(out, c)
	}
	for _, usd := range []float64{0, math.Copysign(0, -1), 1e-6, 1e-7, 123456789.125, 9.99e20, 1e21, -0.5, math.SmallestNonzeroFloat64, math.MaxFloat64} {
		c := plain
		c.Cost.USD = usd
		out = append(out, c)
	}
	withLabels := plain
	withLabels.Labels = []RaterLabel{{Rater: "ana", Kind: "human", Label: plain.Label, Status: StatusConfirmed}}
	withLabeler := plain
	withLabeler.Labeler = "bo"
	withAdj := plain
	withAdj.Adjudication = &Adjudication{Label: plain.Label, By: "cy", At: "now"}
	noContracts := plain
	noContracts.Contracts = map[string]string{}
	return append(out, withLabels, withLabeler, withAdj, noContracts)
}

// Every line CaseLines writes is MarshalLine's, byte for byte, with and
// without the memo of gold and label texts.
func TestCaseLinesAreMarshalLine(t *testing.T) {
	cl := NewCaseLines()
	for round := range 2 { // the second round reads the memo
		for i, c := range caseLinesCases() {
			want, err := MarshalLine(&c)
			if err != nil {
				t.Fatal(err)
			}
			gk, _ := json.Marshal(c.Gold)
			lk, _ := json.Marshal(c.Label)
			for _, keys := range [][2]string{{string(gk), string(lk)}, {"", ""}} {
				got, err := cl.Append([]byte("prefix"), &c, keys[0], keys[1])
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, append([]byte("prefix"), want...)) {
					t.Errorf("round %d case %d keys %v:\n got %s\nwant prefix%s", round, i, keys != [2]string{}, got, want)
				}
			}
		}
	}
}

func FuzzCaseLinesAreMarshalLine(f *testing.F) {
	for _, c := range caseLinesCases() {
		f.Add(c.CaseID, c.Question, c.Gold.Definition, c.Cost.USD)
	}
	f.Fuzz(func(t *testing.T, id, question, def string, usd float64) {
		if math.IsNaN(usd) || math.IsInf(usd, 0) {
			return // encoding/json refuses them, and so does Append (tested below)
		}
		c := caseLinesCases()[0]
		c.CaseID, c.Question, c.Gold.Definition, c.Cost.USD = id, question, def, usd
		c.Contracts = map[string]string{question: id, def: question}
		want, err := MarshalLine(&c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := NewCaseLines().Append(nil, &c, "", "")
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("got %s (%v)\nwant %s", got, err, want)
		}
	})
}

// A value encoding/json refuses is refused, not written.
func TestCaseLinesRefuseWhatMarshalLineRefuses(t *testing.T) {
	c := caseLinesCases()[0]
	c.Cost.USD = math.Inf(1)
	if _, err := MarshalLine(&c); err == nil {
		t.Fatal("MarshalLine wrote an infinite cost")
	}
	if _, err := NewCaseLines().Append(nil, &c, "", ""); err == nil {
		t.Error("Append wrote an infinite cost")
	}
}
