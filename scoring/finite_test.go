package scoring

import (
	"math"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

func TestRound6KeepsHugeValuesFinite(t *testing.T) {
	for _, tt := range []struct{ in, want float64 }{
		{0.1234567, 0.123457},
		{1.7e308, 1.7e308}, // scaling by 1e6 first overflowed to +Inf
		{-1.7e308, -1.7e308},
		{1e10 + 0.5, 1e10 + 0.5},
	} {
		if got := round6(tt.in); got != tt.want {
			t.Errorf("round6(%g) = %g, want %g", tt.in, got, tt.want)
		}
	}
}

func TestCheckReports(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	ok := 0.5
	tests := []struct {
		name string
		rep  model.Report
		want string // "" for no error
	}{
		{"finite", model.Report{Server: "a", CostTotalUSD: 1.7e308, GroundingPrecision: &ok}, ""},
		{"total overflows", model.Report{Server: "a", CostTotalUSD: inf}, `server "a": cost_total_usd is +Inf`},
		{"per answer NaN", model.Report{Server: "b", CostPerCorrectAnswerUSD: &nan}, "cost_per_correct_answer_usd is NaN"},
	}
	for _, tt := range tests {
		err := CheckReports([]model.Report{tt.rep})
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	// Two finite costs whose sum overflows are caught through the report.
	rep := BuildReport([]CaseResult{{Score: TraceScore{Server: "s", CostUSD: 1.7e308}}, {Score: TraceScore{Server: "s", CostUSD: 1.7e308}}})
	if err := CheckReports(rep); err == nil {
		t.Errorf("an overflowing sum passed: %+v", rep)
	}
}
