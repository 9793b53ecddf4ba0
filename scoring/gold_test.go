package scoring

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// The glossary entry for the seed's "active" (shaped after the seed's case
// emea-active-q2-017 and DESIGN.md's glossary fields).
const glossaryJSON = `[{"term":"active customers","definition":"active = subscription_status in (ACTIVE, PAUSED_BILLING) at any point in the fiscal quarter",
 "predicate":"subscription_status IN ('ACTIVE','PAUSED_BILLING')",
 "required_fields":["customers.subscription_status","subscriptions.period_start","subscriptions.period_end"],
 "forbidden_fields":["customers.is_active"],"timestamp_column":"subscriptions.period_start","calendar":"fiscal"}]`

func TestSuggestGold(t *testing.T) {
	b := loadBundled(t)
	byID := map[string]*model.Trace{}
	for _, tr := range b.traces {
		byID[tr.TraceID] = tr
	}
	s, _ := NewScorer(Config{})
	seedA := byID["trace_9f31c2"]
	scoreA := s.Score(seedA, nil) // as if it had no gold yet

	// The grounded task-specific trace of the same question lends its
	// confirmed gold; the warehouse trace's guessed columns become forbidden.
	peer := b.cases["trace_4be07a"]
	peers := []Peer{
		{TraceID: "trace_4be07a", Question: byID["trace_4be07a"].Question, Server: "task-specific", Gold: &peer.Gold, Grounded: true},
		{TraceID: "trace_5c0d91", Question: byID["trace_5c0d91"].Question, Server: "generic-warehouse", Grounded: false},
	}
	g := s.SuggestGold(seedA, scoreA, peers)
	wantReq := []string{"customers.sales_region", "customers.subscription_status", "subscriptions.period_end", "subscriptions.period_start"}
	wantForb := []string{"customers.created_at", "customers.is_active", "customers.region_code"}
	if !reflect.DeepEqual(g.Gold.RequiredFields, wantReq) || !reflect.DeepEqual(g.Gold.ForbiddenFields, wantForb) {
		t.Errorf("required %v forbidden %v\nwant      %v / %v\nsources %q", g.Gold.RequiredFields, g.Gold.ForbiddenFields, wantReq, wantForb, g.Sources)
	}
	if g.Gold.Definition != peer.Gold.Definition || g.Gold.Window == nil || g.Gold.Window.Calendar != "fiscal" {
		t.Errorf("definition %q window %+v, want the peer's", g.Gold.Definition, g.Gold.Window)
	}

	// A peer on the same server, or not grounded, or another question, lends nothing.
	none := s.SuggestGold(seedA, scoreA, []Peer{
		{TraceID: "x", Question: seedA.Question, Server: seedA.Server, Gold: &peer.Gold, Grounded: true},
		{TraceID: "y", Question: seedA.Question, Server: "task-specific", Gold: &peer.Gold, Grounded: false},
		{TraceID: "z", Question: "How many active customers did we have in APAC last quarter?", Server: "task-specific", Gold: &peer.Gold, Grounded: true},
	})
	if len(none.Gold.RequiredFields) != 0 || len(none.Gold.ForbiddenFields) != 0 {
		t.Errorf("unrelated peers lent %v / %v", none.Gold.RequiredFields, none.Gold.ForbiddenFields)
	}

	// The glossary alone: its required fields, its look-alikes, and the
	// guessed columns that are not required.
	gl, err := ParseGlossary([]byte(glossaryJSON))
	if err != nil {
		t.Fatal(err)
	}
	sg, _ := NewScorer(Config{Glossary: gl})
	g2 := sg.SuggestGold(seedA, sg.Score(seedA, nil), nil)
	if !reflect.DeepEqual(g2.Gold.RequiredFields, []string{"customers.subscription_status", "subscriptions.period_end", "subscriptions.period_start"}) ||
		!reflect.DeepEqual(g2.Gold.ForbiddenFields, wantForb) || !strings.HasPrefix(g2.Gold.Definition, "active =") {
		t.Errorf("glossary gold: %+v", g2.Gold)
	}
	// A grounded peer without a confirmed gold lends the fields it used.
	scoreB := s.Score(byID["trace_4be07a"], nil)
	var used []string
	for _, f := range scoreB.FieldsUsed {
		used = append(used, f.Field)
	}
	g3 := s.SuggestGold(seedA, scoreA, []Peer{{TraceID: "trace_4be07a", Question: seedA.Question, Server: "task-specific", Grounded: true, FieldsUsed: used}})
	if !reflect.DeepEqual(g3.Gold.RequiredFields, wantReq) {
		t.Errorf("fields of an unconfirmed grounded peer: %v", g3.Gold.RequiredFields)
	}
}

func TestGlossaryDefinitionMatch(t *testing.T) {
	gl, err := ParseGlossary([]byte(glossaryJSON))
	if err != nil {
		t.Fatal(err)
	}
	if !gl[0].UsedBy("How many ACTIVE  customers did we have?") || gl[0].UsedBy("inactive customers") {
		t.Error("UsedBy is not word-bounded and case-insensitive")
	}
	b := loadBundled(t)
	s, _ := NewScorer(Config{Glossary: gl})
	// No gold: the glossary's predicate is what the question's term means.
	for id, want := range map[string]bool{"trace_9f31c2": false, "trace_e1a7d0": true, "trace_4be07a": true, "trace_5c0d91": false} {
		var tr *model.Trace
		for _, x := range b.traces {
			if x.TraceID == id {
				tr = x
			}
		}
		ts := s.Score(tr, &model.Gold{Answer: json.RawMessage(`null`)})
		if ts.DefinitionMatch == nil || *ts.DefinitionMatch != want {
			t.Errorf("%s definition match = %v, want %v (%v)", id, bptr(ts.DefinitionMatch), want, ts.ReviewReasons)
		}
	}
	for _, bad := range []string{`{"terms":[{"definition":"x"}]}`, `[{"term":"a","calendar":"lunar"}]`, `3`} {
		if _, err := ParseGlossary([]byte(bad)); err == nil {
			t.Errorf("ParseGlossary(%s): want an error", bad)
		}
	}
}

func TestReportLabelsAndNulls(t *testing.T) {
	yes, no := true, false
	sem := model.ClassSemantic
	one := 1
	zero := 0
	results := []CaseResult{
		// The machine says correct and grounded; a person confirmed it wrong.
		{Score: TraceScore{TraceID: "a", Server: "s1", RunID: "r2", Correct: &yes, Grounded: &yes, Calls: 2, PolicyViolations: &one, CostUSD: 0.25, NeedsHumanReview: true},
			Label: &model.Label{Correct: &yes, Grounded: &no, FailureClass: &sem}, Confirmed: true},
		// An unconfirmed label does not override the machine.
		{Score: TraceScore{TraceID: "b", Server: "s1", RunID: "r1", Correct: &yes, Grounded: &yes, Calls: 2, PolicyViolations: &zero, CostUSD: 0.5, Clarifications: 1},
			Label: &model.Label{Correct: &no}},
		// No oracle, no gold: every rate of s0 has an empty denominator.
		{Score: TraceScore{TraceID: "c", Server: "s0", Calls: 1, CostUSD: 0.1, NeedsHumanReview: true}},
	}
	rep := BuildReport(results)
	if len(rep) != 2 || rep[0].Server != "s0" || rep[1].Server != "s1" {
		t.Fatalf("servers not sorted: %s", mustJSON(t, rep))
	}
	s0, s1 := rep[0], rep[1]
	js := mustJSON(t, s0)
	for _, k := range []string{"grounding_precision", "grounding_recall", "definition_match_rate", "freshness_pass_rate", "policy_violation_rate", "cost_per_correct_answer_usd"} {
		if !strings.Contains(js, `"`+k+`":null`) {
			t.Errorf("s0 %s is not null: %s", k, js)
		}
	}
	if s0.NeedsHumanReview != 1 || s0.Cases != 1 || *s0.ClarificationLoopsPerTask != 0 {
		t.Errorf("s0 = %s", js)
	}
	if s1.Correct != 2 || s1.CorrectAndGrounded != 1 || s1.FailuresByClass["semantic"] != 1 || s1.NeedsHumanReview != 0 {
		t.Errorf("confirmed label did not override: %s", mustJSON(t, s1))
	}
	if s1.RunID != "r1,r2" || *s1.PolicyViolationRate != 0.25 || s1.CostTotalUSD != 0.75 || *s1.CostPerCorrectAnswerUSD != 0.75 || *s1.ClarificationLoopsPerTask != 0.5 {
		t.Errorf("s1 figures: %s", mustJSON(t, s1))
	}
	if len(s1.FailuresByClass) != 5 {
		t.Errorf("failures_by_class must list all five classes: %v", s1.FailuresByClass)
	}

	l := SuggestLabel(TraceScore{Correct: &yes, Grounded: &no, SuggestedClass: &sem,
		Classes: []ClassSuggestion{{Class: sem, Confidence: 0.9, Evidence: []Evidence{{Step: 5, Reason: "guess marker"}}}}})
	if l.FailureClass == nil || *l.FailureClass != sem || !strings.Contains(l.MachineNote, "step 5: guess marker") || l.Note != "" {
		t.Errorf("SuggestLabel = %+v", l)
	}
}

func TestParseLineage(t *testing.T) {
	lin, err := ParseLineage([]byte(`{"t.a":["Sales.Customers.Region"],"t.$tool":["x.y"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(lin["t.a"], []string{"customers.region"}) || !reflect.DeepEqual(lin["t.$tool"], []string{"x.y"}) {
		t.Errorf("lineage = %v", lin)
	}
	for _, bad := range []string{`{"noarg":["a.b"]}`, `{"t.a":["nodot"]}`, `[]`, `{"t.a":"a.b"}`} {
		if _, err := ParseLineage([]byte(bad)); err == nil {
			t.Errorf("ParseLineage(%s): want an error", bad)
		}
	}
}

func FuzzParseLineage(f *testing.F) {
	f.Add(`{"active_customer_count.region":["customers.sales_region"]}`)
	f.Add(`{"a.$tool":["s.t.c"]}`)
	f.Fuzz(func(t *testing.T, data string) {
		lin, err := ParseLineage([]byte(data))
		if err != nil {
			return
		}
		for k, fs := range lin {
			if !strings.Contains(k, ".") {
				t.Fatalf("key %q", k)
			}
			for _, f := range fs {
				if strings.Count(f, ".") == 0 {
					t.Fatalf("field %q", f)
				}
			}
		}
	})
}

func FuzzParseGlossary(f *testing.F) {
	f.Add(glossaryJSON)
	f.Add(`{"terms":[{"term":"x","definition":"x = a in (b"}]}`)
	f.Fuzz(func(t *testing.T, data string) {
		gl, err := ParseGlossary([]byte(data))
		if err != nil {
			return
		}
		if _, err := NewScorer(Config{Glossary: gl}); err != nil {
			t.Fatal(err)
		}
	})
}

// report.json does not depend on the order results come in, nor on the
// number of workers that scored them.
func TestReportDeterministic(t *testing.T) {
	b := loadBundled(t)
	var jobs []Job
	for _, tr := range b.traces {
		if c := b.cases[tr.TraceID]; c != nil {
			jobs = append(jobs, Job{Trace: tr, Gold: &c.Gold})
		}
	}
	s, _ := NewScorer(Config{})
	var first string
	for i, workers := range []int{1, 2, 7} {
		scores := s.ScoreAll(jobs, workers)
		results := make([]CaseResult, len(scores))
		perm := rand.New(rand.NewPCG(uint64(i), 9)).Perm(len(scores)) // a different order each round
		for k, ts := range scores {
			results[perm[k]] = CaseResult{Score: ts}
		}
		if len(scores) != 28 {
			t.Fatalf("%d cases scored, want the 28 bundled cases", len(scores))
		}
		got := mustJSON(t, BuildReport(results))
		if i == 0 {
			first = got
		} else if got != first {
			t.Fatalf("report differs with %d workers in another order:\n%s\n%s", workers, first, got)
		}
	}
}
