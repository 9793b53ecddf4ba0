package suite

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
)

// population builds n candidates: three tool sets, two roles, and one
// trace in ten a retry, one in ten a clarification.
func population(n int) []store.SampleCandidate {
	tools := [][]string{{"run_sql"}, {"active_customer_count"}, {"list_open_tickets", "resolve_customer_id"}}
	roles := []string{"finance_analyst", "support_lead"}
	var out []store.SampleCandidate
	for i := 0; i < n; i++ {
		o := model.OutcomePass
		switch i % 10 {
		case 3:
			o = model.OutcomeRetry
		case 7:
			o = model.OutcomeClarification
		}
		out = append(out, store.SampleCandidate{TraceID: fmt.Sprintf("t%04d", i), Tools: tools[i%3], UserRole: roles[i%2],
			Outcome: o, Status: model.StatusNone})
	}
	return out
}

func TestSampleIsDeterministicAndStratified(t *testing.T) {
	pop := population(600)
	opts := SampleOptions{N: 60, Seed: 42, Oversample: map[model.Outcome]float64{model.OutcomeRetry: 3, model.OutcomeClarification: 3}}
	a, err := Sample(pop, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The same seed over the same traces in another order draws the same sample.
	rev := slices.Clone(pop)
	slices.Reverse(rev)
	b, _ := Sample(rev, opts)
	if !slices.Equal(a.TraceIDs, b.TraceIDs) {
		t.Fatal("same seed, different sample")
	}
	opts.Seed = 43
	c, _ := Sample(pop, opts)
	if slices.Equal(a.TraceIDs, c.TraceIDs) {
		t.Error("another seed drew the very same sample")
	}
	if len(a.TraceIDs) != 60 || len(a.Strata) != 12 {
		t.Fatalf("%d traces in %d strata", len(a.TraceIDs), len(a.Strata))
	}
	seen := map[string]bool{}
	for _, id := range a.TraceIDs {
		if seen[id] {
			t.Fatalf("%s drawn twice", id)
		}
		seen[id] = true
	}
	sum := 0
	for _, s := range a.Strata {
		if s.Sampled < 1 {
			t.Errorf("stratum %q got no trace", s.Key)
		}
		sum += s.Sampled
	}
	if sum != 60 {
		t.Errorf("strata sum to %d", sum)
	}
	// Retries and clarifications are 20% of the traces; weighted 3x they
	// are 3*0.2/(0.8+3*0.2) = 43% of the weight, so well over 20% of the sample.
	over := 0
	for _, id := range a.TraceIDs {
		var n int
		fmt.Sscanf(id, "t%d", &n)
		if n%10 == 3 || n%10 == 7 {
			over++
		}
	}
	if over < 18 {
		t.Errorf("%d retries and clarifications in 60, want oversampling (>= 18)", over)
	}
	// Without oversampling their share drops.
	opts.Oversample, opts.Seed = nil, 42
	d, _ := Sample(pop, opts)
	plain := 0
	for _, id := range d.TraceIDs {
		var n int
		fmt.Sscanf(id, "t%d", &n)
		if n%10 == 3 || n%10 == 7 {
			plain++
		}
	}
	if plain >= over {
		t.Errorf("oversampling did not raise the share: %d with, %d without", over, plain)
	}
}

func TestSampleRefusesFewTracesAndSkipsConfirmed(t *testing.T) {
	_, err := Sample(population(49), SampleOptions{N: 10, Seed: 1})
	if !errors.Is(err, ErrTooFewTraces) || !strings.Contains(err.Error(), "the database holds 49 traces") ||
		!strings.Contains(err.Error(), "--force") {
		t.Fatalf("err = %v", err)
	}
	// Fifty traces exist: confirmed ones count toward the floor, but are not drawn again.
	pop := population(60)
	for i := 0; i < 15; i++ {
		pop[i].Status = model.StatusConfirmed
	}
	res, err := Sample(pop, SampleOptions{N: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.TraceIDs) != 45 || res.Skipped != 15 {
		t.Errorf("drew %d, skipped %d", len(res.TraceIDs), res.Skipped)
	}
	for _, id := range res.TraceIDs {
		if id < "t0015" {
			t.Errorf("confirmed trace %s drawn", id)
		}
	}
	// Fewer traces than strata: still N traces, no stratum twice over its share.
	small, err := Sample(population(60), SampleOptions{N: 4, Seed: 1, Force: true})
	if err != nil || len(small.TraceIDs) != 4 {
		t.Fatalf("%v %v", err, small.TraceIDs)
	}
	for _, bad := range []SampleOptions{{N: 0}, {N: 5, By: []string{"colour"}}} {
		bad.Force = true
		if _, err := Sample(pop, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestParseOversample(t *testing.T) {
	tests := []struct {
		in   string
		want map[model.Outcome]float64
		err  string
	}{
		{"retry=3,clarification=3", map[model.Outcome]float64{"retry": 3, "clarification": 3}, ""},
		{" failure = 1.5 ", map[model.Outcome]float64{"failure": 1.5}, ""},
		{"none", map[model.Outcome]float64{}, ""},
		{"", map[model.Outcome]float64{}, ""},
		{"retry", nil, "expected OUTCOME=FACTOR"},
		{"retries=2", nil, `"retries" is not an outcome`},
		{"retry=0", nil, "not a positive number"},
		{"retry=NaN", nil, "not a positive number"},
		{"retry=1e308,clarification=1e308", nil, "up to 1000"},
	}
	for _, tt := range tests {
		got, err := ParseOversample(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Errorf("%q: %v %v", tt.in, got, err)
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("%q: %s = %v", tt.in, k, got[k])
			}
		}
	}
}

func TestExposeOnly(t *testing.T) {
	yes, no := true, false
	semantic := model.ClassSemantic
	rec := func(id, q string, correct, grounded *bool, class *model.FailureClass) store.CaseRecord {
		return store.CaseRecord{Case: model.Case{CaseID: id, Question: q,
			Label: model.Label{Correct: correct, Grounded: grounded, FailureClass: class}}}
	}
	cases := []store.CaseRecord{
		rec("a1", "How many active customers?", &yes, &no, &semantic), // correct but ungrounded: exposes
		rec("a2", "How many active customers?", &yes, &yes, nil),
		rec("b1", "What was revenue in Q3?", &yes, &yes, nil), // every server passes grounded
		rec("b2", "what was revenue in q3", &yes, &yes, nil),
		rec("c1", "Open tickets for Acme?", &no, &no, nil), // wrong: exposes
		rec("d1", "Deals at risk?", nil, nil, nil),         // unlabeled: kept, nobody said it passes
		rec("e1", "Average deal size?", &yes, &yes, nil),   // one server, passes: dropped
	}
	kept, dropped := ExposeOnly(cases)
	var ids []string
	for _, k := range kept {
		ids = append(ids, k.Case.CaseID)
	}
	if want := []string{"a1", "a2", "c1", "d1"}; !slices.Equal(ids, want) {
		t.Errorf("kept %v, want %v", ids, want)
	}
	if len(dropped) != 2 || !slices.Equal(dropped[0].CaseIDs, []string{"b1", "b2"}) || !slices.Equal(dropped[1].CaseIDs, []string{"e1"}) {
		t.Errorf("dropped %+v", dropped)
	}
}

// FuzzParseOversample: any --oversample value parses to positive finite
// weights of real outcomes, or to an error.
func FuzzParseOversample(f *testing.F) {
	for _, s := range []string{"retry=3,clarification=3", "none", "", "pass=1e309", "retry=-1", "=", "retry=3,,", "failure = 0.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseOversample(s)
		if err != nil {
			return
		}
		for o, w := range m {
			if !slices.Contains(model.Outcomes, o) || !(w > 0) || w > 1000 {
				t.Fatalf("%q: %s=%v", s, o, w)
			}
		}
		// Every weight keeps the sampler well defined.
		if _, err := Sample(population(60), SampleOptions{N: 7, Seed: 1, Oversample: m}); err != nil {
			t.Fatal(err)
		}
	})
}
