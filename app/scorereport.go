package app

import (
	"context"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// Report scores what is stale and builds report.json over the cases with
// human gold, using the person's label where confirmed and the scorer's
// suggestion otherwise; all adds the traces whose gold is only the
// machine's suggestion. It aggregates the stored scores batch by batch.
func (su SuiteService) Report(ctx context.Context, all bool) ([]model.Report, error) {
	reps, _, err := su.e.Suite.ReportWithLabels(ctx, all)
	return reps, err
}

// resultOfRow is a stored score's report row as a Result: the score's
// numbers and, where a person's gold stands, the case's status and label
// (all caseResult reads).
func resultOfRow(row store.ReportRow) Result {
	m := row.Metrics
	ts := scoring.TraceScore{TraceID: row.TraceID, Server: row.Server, RunID: row.RunID, Correct: row.Correct,
		Grounded: row.Grounded, NeedsHumanReview: row.NeedsReview, GroundingPrecision: m.Precision,
		GroundingRecall: m.Recall, DefinitionMatch: m.DefinitionMatch, FreshnessPass: m.FreshnessPass,
		PolicyViolations: m.PolicyViolations, Calls: m.Calls, Clarifications: m.Clarifications, CostUSD: m.CostUSD}
	if row.SuggestedClass != "" {
		c := model.FailureClass(row.SuggestedClass)
		ts.SuggestedClass = &c
	}
	r := Result{Score: ts, HumanGold: row.HumanGold}
	if row.HumanGold {
		status := model.StatusSuggested
		if row.Confirmed {
			status = model.StatusConfirmed
		}
		cr := &store.CaseRecord{GoldOrigin: store.OriginHuman, Status: status}
		if row.Label != nil {
			cr.Case.Label = *row.Label
		}
		r.Case = cr
	}
	return r
}

// metricsOf is what a score stores as columns for report.json.
func metricsOf(ts scoring.TraceScore) store.ScoreMetrics {
	return store.ScoreMetrics{Precision: ts.GroundingPrecision, Recall: ts.GroundingRecall,
		DefinitionMatch: ts.DefinitionMatch, FreshnessPass: ts.FreshnessPass, PolicyViolations: ts.PolicyViolations,
		Calls: ts.Calls, Clarifications: ts.Clarifications, CostUSD: ts.CostUSD}
}

// caseResult is a result as the report counts it (numbers.go's rule); ok
// is false for one it leaves out (not a confirmed case, unless all).
func caseResult(r Result, all bool) (scoring.CaseResult, bool) {
	// The report's population (numbers.go's countScope): confirmed cases,
	// or with all every case; a trace with no case is not one.
	confirmed := r.Case != nil && r.Case.Status == model.StatusConfirmed
	if r.Case == nil || (!confirmed && !all) {
		return scoring.CaseResult{}, false
	}
	cr := scoring.CaseResult{Score: r.Score, Confirmed: confirmed}
	if confirmed {
		l := r.Case.Case.Label
		cr.Label = &l
	}
	return cr, true
}

// BuildReport turns evaluated results into report.json.
func BuildReport(results []Result, all bool) []model.Report {
	var acc scoring.ReportAccumulator
	for _, r := range results {
		if cr, ok := caseResult(r, all); ok {
			acc.Add(cr)
		}
	}
	return acc.Reports()
}

func isEmptyGold(g model.Gold) bool {
	return len(g.RequiredFields) == 0 && len(g.ForbiddenFields) == 0 && g.Definition == "" && g.Window == nil &&
		g.FreshnessBoundHours == nil && g.PolicyScope == ""
}
