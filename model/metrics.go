package model

// Metric is one number of the seed's six metrics as report.json holds it
// (the seed's first metric, grounding precision and recall, is two).
// The report's screens, pages and histories list them from here, so they
// name and order them alike.
type Metric struct {
	Key  string // report.json's field
	Name string // what people read
	// Of is the metric's value in a report (nil: no value, an empty
	// denominator).
	Of func(Report) *float64
	// LowerBetter: a fall is an improvement (policy violations, loops, cost).
	LowerBetter bool
	// USD: the value is dollars (printed with four decimals).
	USD bool
}

// Metrics lists the seed's metrics in its order.
var Metrics = []Metric{
	{Key: "grounding_precision", Name: "grounding precision", Of: func(r Report) *float64 { return r.GroundingPrecision }},
	{Key: "grounding_recall", Name: "grounding recall", Of: func(r Report) *float64 { return r.GroundingRecall }},
	{Key: "definition_match_rate", Name: "definition match rate", Of: func(r Report) *float64 { return r.DefinitionMatchRate }},
	{Key: "freshness_pass_rate", Name: "freshness pass rate", Of: func(r Report) *float64 { return r.FreshnessPassRate }},
	{Key: "policy_violation_rate", Name: "policy violation rate", LowerBetter: true,
		Of: func(r Report) *float64 { return r.PolicyViolationRate }},
	{Key: "clarification_loops_per_task", Name: "clarification loops / task", LowerBetter: true,
		Of: func(r Report) *float64 { return r.ClarificationLoopsPerTask }},
	{Key: "cost_per_correct_answer_usd", Name: "cost / correct answer", LowerBetter: true, USD: true,
		Of: func(r Report) *float64 { return r.CostPerCorrectAnswerUSD }},
}
