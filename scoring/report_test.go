package scoring

import (
	"encoding/json"
	"math"
	"math/rand"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

func TestExactSum(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		name string
		in   []float64
		want float64
	}{
		{"none", nil, 0},
		{"plain", []float64{0.25, 0.5}, 0.75},
		// In float64, left to right, 1e16 + 1 rounds the 1 away: 0.
		{"no rounding between additions", []float64{1e16, 1, -1e16}, 1},
		{"a tenth ten times", []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, 1},
		{"past float64's range is +Inf", []float64{1.7e308, 1.7e308}, inf},
		{"an infinite value poisons the sum", []float64{1, inf}, inf},
		{"so does NaN", []float64{1, nan}, nan},
	}
	for _, tt := range tests {
		var s exactSum
		for _, x := range tt.in {
			s.add(x)
		}
		got := s.value()
		if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	var s exactSum
	for _, x := range []float64{1, 0, 0} {
		s.add(x)
	}
	if m := s.mean(3); m == nil || *m != 0.333333 {
		t.Errorf("mean of 1, 0, 0 = %v, want 0.333333", m)
	}
	if m := (&exactSum{}).mean(0); m != nil {
		t.Errorf("mean of nothing = %v, want nil", *m)
	}
}

// The accumulator gives the same report.json and label status whatever
// order the results come in: the engine feeds them in import order, a
// suite in case order.
func TestReportAccumulatorOrderFree(t *testing.T) {
	yes, no := true, false
	sem := model.ClassSemantic
	rng := rand.New(rand.NewSource(1))
	var results []CaseResult
	for i := range 300 {
		p, r := rng.Float64(), float64(i%7)/7
		viol := i % 3
		ts := TraceScore{TraceID: string(rune('a'+i%26)) + string(rune('a'+i/26)), Server: []string{"b", "a", "c"}[i%3],
			RunID: []string{"r1", "r2"}[i%2], GroundingPrecision: &p, GroundingRecall: &r, Correct: &yes,
			Grounded: &[]bool{yes, no}[i%2], CostUSD: 0.0912 + float64(i)*1e-9, Calls: 3, Clarifications: i % 2}
		if i%5 == 0 {
			ts.SuggestedClass, ts.PolicyViolations, ts.DefinitionMatch = &sem, &viol, &no
		}
		cr := CaseResult{Score: ts}
		if i%4 == 0 {
			cr.Confirmed, cr.Label = true, &model.Label{Correct: &no}
		}
		results = append(results, cr)
	}
	build := func(rs []CaseResult) string {
		var acc ReportAccumulator
		for _, r := range rs {
			acc.Add(r)
		}
		b, err := json.Marshal(struct {
			R []model.Report
			L []ServerLabels
		}{acc.Reports(), acc.Labels()})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := build(results)
	for range 5 {
		shuffled := append([]CaseResult(nil), results...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := build(shuffled); got != want {
			t.Fatalf("report depends on the order of results:\n got %s\nwant %s", got, want)
		}
	}
	if got, _ := json.Marshal(BuildReport(results)); !json.Valid(got) || len(BuildReport(results)) != 3 {
		t.Errorf("BuildReport = %s, want three servers", got)
	}
}
