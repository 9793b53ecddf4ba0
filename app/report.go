package app

import (
	"context"
	"slices"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// ReportDetail is report.json with what stands behind it: per server the
// label status, and every case it counted with its verdict and numbers.
type ReportDetail struct {
	Reports []model.Report
	Labels  []scoring.ServerLabels
	// Cases are the cases counted, by server then in import order.
	Cases []ReportCase
}

// ReportCase is one case as the report counted it: the verdict (the
// person's label where they set it, else the scorer's) and the numbers it
// added to its server's metrics.
type ReportCase struct {
	Server, TraceID string
	Verdict         scoring.Verdict
	Metrics         store.ScoreMetrics
}

// ReportWithLabels is Report with, per server in the same order, how many
// of its cases a person labeled, labeled in part, or left pending (gold
// confirmed, label unset: the scorer's verdict counts), so an analyst sees
// how much of each number is machine-suggested.
func (su SuiteService) ReportWithLabels(ctx context.Context, all bool) ([]model.Report, []scoring.ServerLabels, error) {
	d, err := su.e.report(ctx, all, false)
	return d.Reports, d.Labels, err
}

// ReportDetail is ReportWithLabels with the cases behind each number: the
// same pass over the same rows, so its numbers are report.json's.
func (su SuiteService) ReportDetail(ctx context.Context, all bool) (ReportDetail, error) {
	return su.e.report(ctx, all, true)
}

// report scores what is stale and aggregates the stored scores in scope,
// keeping each counted case when withCases.
func (e *Engine) report(ctx context.Context, all, withCases bool) (ReportDetail, error) {
	if _, err := e.scoreStale(ctx, nil, nil); err != nil {
		return ReportDetail{}, err
	}
	scope := countScope(all) // numbers.go
	// One result at a time into the accumulator: memory stays one batch
	// deep however many traces the report covers (unless the cases are
	// asked for).
	var acc scoring.ReportAccumulator
	var cases []ReportCase
	err := e.st.EachReportRow(ctx, scope, func(batch []store.ReportRow) error {
		for _, row := range batch {
			cr := countedResult(row)
			acc.Add(cr)
			if withCases {
				cases = append(cases, ReportCase{Server: row.Server, TraceID: row.TraceID, Verdict: cr.Final(), Metrics: row.Metrics})
			}
		}
		return nil
	})
	if err != nil {
		return ReportDetail{}, err
	}
	d := ReportDetail{Reports: acc.Reports(), Labels: acc.Labels(), Cases: sortByServer(cases)}
	return d, scoring.CheckReports(d.Reports)
}

// sortByServer orders cases by server, keeping import order within one.
func sortByServer(cs []ReportCase) []ReportCase {
	slices.SortStableFunc(cs, func(a, b ReportCase) int { return strings.Compare(a.Server, b.Server) })
	return cs
}
