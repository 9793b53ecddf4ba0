package scoring

import (
	"fmt"
	"math"

	"github.com/tracelab-dev/tracelab/model"
)

// CheckReports refuses a report with a number JSON cannot carry: a sum of
// finite costs can still overflow to +Inf (two traces of 1e308 USD), and
// writing that would fail halfway through an export. The error names the
// server and the metric so the user can find the traces behind it.
func CheckReports(reps []model.Report) error {
	for _, r := range reps {
		for _, m := range []struct {
			name string
			v    *float64
		}{
			{"grounding_precision", r.GroundingPrecision},
			{"grounding_recall", r.GroundingRecall},
			{"definition_match_rate", r.DefinitionMatchRate},
			{"freshness_pass_rate", r.FreshnessPassRate},
			{"policy_violation_rate", r.PolicyViolationRate},
			{"clarification_loops_per_task", r.ClarificationLoopsPerTask},
			{"cost_total_usd", &r.CostTotalUSD},
			{"cost_per_correct_answer_usd", r.CostPerCorrectAnswerUSD},
		} {
			if m.v != nil && (math.IsInf(*m.v, 0) || math.IsNaN(*m.v)) {
				return &NonFiniteError{Server: r.Server, Metric: m.name, Value: *m.v}
			}
		}
	}
	return nil
}

// NonFiniteError is a report metric that came out infinite or NaN: the
// input's numbers are at fault, not the suite.
type NonFiniteError struct {
	Server, Metric string
	Value          float64
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("report for server %q: %s is %v: the traces' usage.usd add up past what a number can hold; check their costs",
		e.Server, e.Metric, e.Value)
}
