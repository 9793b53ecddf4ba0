package importers

import (
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

const caseHead = `{"case_id":"c1","question":"How many?","gold":{},"label":{"correct":true,"grounded":null,"failure_class":null}`

// The rater fields of a case line (labeler, labels, adjudication) are
// checked like the rest: a bad one names its path.
func TestParseCaseRaters(t *testing.T) {
	for _, tt := range []struct{ tail, want string }{
		{`,"labeler":"ana"}`, ""},
		{`,"labels":[{"rater":"ana","kind":"human","label":{"correct":false},"status":"confirmed"},{"rater":"tracelab","kind":"machine","label":{}}]}`, ""},
		{`,"labels":[{"rater":"","kind":"human","label":{}}]}`, "labels[0].rater: required"},
		{`,"labels":[{"rater":"x","kind":"robot","label":{}}]}`, `labels[0].kind: "robot" is not one of human, judge, machine`},
		{`,"labels":[{"rater":"x","kind":"machine","label":{}}]}`, `labels[0].rater: only "tracelab"`},
		{`,"labels":[{"rater":"tracelab","kind":"human","label":{}}]}`, `labels[0].rater: only "tracelab"`},
		{`,"labels":[{"rater":"x","kind":"judge","label":{},"status":"done"}]}`, `labels[0].status: "done" is not one of`},
		{`,"labels":[{"rater":"x","kind":"judge","label":{"failure_class":"vibes"}}]}`, `labels[0].label.failure_class: "vibes"`},
		{`,"adjudication":{"label":{},"by":""}}`, "adjudication.by: required"},
		{`,"adjudication":{"label":{"failure_class":"x"},"by":"lead"}}`, `adjudication.label.failure_class: "x"`},
	} {
		c, lerr := ParseCase("f.jsonl", 3, []byte(caseHead+tt.tail))
		switch {
		case tt.want == "" && lerr != nil:
			t.Errorf("%s: %v", tt.tail, lerr)
		case tt.want != "" && (lerr == nil || !strings.Contains(lerr.Error(), tt.want)):
			t.Errorf("%s: error %v, want %q", tt.tail, lerr, tt.want)
		case tt.want == "" && strings.Contains(tt.tail, "labeler") && c.Labeler != "ana":
			t.Errorf("labeler %q, want ana", c.Labeler)
		}
	}
}

// A case's gold is checked by model.Gold.Problems, the rule the editor
// and the engine use too; the error keeps the file, the line and the path.
func TestParseCaseGold(t *testing.T) {
	const head = `{"case_id":"c1","question":"How many?","label":{},"gold":`
	for _, tt := range []struct{ gold, want string }{
		{`{"freshness_bound_hours":24,"required_fields":["orders.total"],"forbidden_fields":["orders.gross"]}`, ""},
		{`{"freshness_bound_hours":0}`, "f.jsonl:3: gold.freshness_bound_hours: must be greater than 0 hours (0)"},
		{`{"tolerance":-1}`, "f.jsonl:3: gold.tolerance: must not be negative (-1)"},
		{`{"required_fields":["a.b"],"forbidden_fields":["a.b"]}`, "f.jsonl:3: gold.forbidden_fields: a.b is also required: a field cannot be both required and forbidden"},
		{`{"window":{"start":"2026-04-01","end":"2026-13-01","calendar":"fiscal"}}`, `f.jsonl:3: gold.window.end: "2026-13-01" is not a date`},
	} {
		_, lerr := ParseCase("f.jsonl", 3, []byte(head+tt.gold+"}"))
		switch {
		case tt.want == "" && lerr != nil:
			t.Errorf("%s: %v", tt.gold, lerr)
		case tt.want != "" && (lerr == nil || !strings.HasPrefix(lerr.Error(), tt.want)):
			t.Errorf("%s: error %v, want it to start %q", tt.gold, lerr, tt.want)
		}
	}
}

// FuzzParseCase: any line is a case whose classes and raters are valid,
// or a precise error naming the file and line.
func FuzzParseCase(f *testing.F) {
	f.Add([]byte(caseHead + `}`))
	f.Add([]byte(caseHead + `,"labels":[{"rater":"bob","kind":"judge","label":{"failure_class":"policy"}}]}`))
	f.Add([]byte(caseHead + `,"adjudication":{"label":{"correct":true},"by":"lead","picked":"ana"}}`))
	f.Add([]byte(`{"case_id":1}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		c, lerr := ParseCase("f.jsonl", 7, line)
		if lerr != nil {
			if !strings.HasPrefix(lerr.Error(), "f.jsonl:7") {
				t.Fatalf("error without file and line: %v", lerr)
			}
			return
		}
		if c.CaseID == "" || c.Question == "" {
			t.Fatalf("case without id or question accepted: %+v", c)
		}
		if ps := c.Gold.Problems(); len(ps) > 0 {
			t.Fatalf("gold with problems accepted: %v", ps)
		}
		for _, rl := range c.Labels {
			if rl.Rater == "" || (rl.Kind != model.RaterHuman && rl.Kind != model.RaterJudge && rl.Kind != model.RaterMachine) {
				t.Fatalf("bad rater accepted: %+v", rl)
			}
			if fc := rl.Label.FailureClass; fc != nil && !model.ValidClass(string(*fc)) {
				t.Fatalf("bad class accepted: %q", *fc)
			}
		}
	})
}
