package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
	"github.com/tracelab-dev/tracelab/suite"
)

// ExportOptions steer an export.
type ExportOptions struct {
	Dir        string // where cases.jsonl and report.json go
	All        bool   // every case, not only confirmed ones
	ExposeOnly bool   // only the questions some server's case gets wrong or ungrounded (see suite.ExposeOnly)
	// AllLabels adds every rater's label to each case line ("labels",
	// tracelab's suggestion included) and the adjudication when there is
	// one; the line's "label" stays the final one (export --labels all).
	AllLabels bool
}

// ExportResult says what Export wrote.
type ExportResult struct {
	CasesPath  string
	Cases      int // cases written
	Considered int // cases before ExposeOnly dropped any
	Dropped    []suite.DroppedGroup
	ReportPath string
	Reports    []model.Report
	// Manifest is DIR/suite.json, naming the scoring files copied beside
	// the cases so check scores the suite as it was exported.
	Manifest string
	// Recorded says the report joined the database's report history
	// (not when the database is read-only).
	Recorded bool
}

// Export scores what is stale and writes DIR/cases.jsonl and
// DIR/report.json over one population: report.json counts exactly the
// cases written beside it (those linked to a scored trace), each with its
// own label, whoever wrote its gold.
func (su SuiteService) Export(ctx context.Context, opts ExportOptions) (ExportResult, error) {
	e := su.e
	res := ExportResult{CasesPath: filepath.Join(opts.Dir, "cases.jsonl"), ReportPath: filepath.Join(opts.Dir, "report.json")}
	if _, err := e.Scores.ScoreStale(ctx, nil); err != nil {
		return res, err
	}
	recs, err := e.st.Cases(ctx, opts.All)
	if err != nil {
		return res, err
	}
	res.Considered = len(recs)
	if err := e.withScoredGold(ctx, recs); err != nil { // numbers.go
		return res, err
	}
	if opts.ExposeOnly {
		recs, res.Dropped = suite.ExposeOnly(recs)
	}
	cases := make([]model.Case, len(recs))
	for i, r := range recs {
		cases[i] = r.Case
	}
	if opts.AllLabels {
		if err := e.attachLabels(ctx, cases); err != nil {
			return res, err
		}
	}
	// Both files are computed and checked before either is touched, then
	// written to temporary files and renamed into place: a failure (a cost
	// that overflows, a full disk) leaves the old pair, never a new
	// cases.jsonl beside an old report.json.
	if res.Reports, err = e.reportOver(ctx, recs); err != nil {
		return res, err
	}
	if err := scoring.CheckReports(res.Reports); err != nil {
		return res, fmt.Errorf("nothing exported: %w", err)
	}
	// The two renames are not one step: suite.json, written last, names
	// both files' hashes, and readers refuse a pair that does not match it
	// (verifySuitePair), so a crash between them is caught, not read.
	err = writeFiles([]store.AtomicFile{
		{Path: res.CasesPath, Write: func(f *os.File) error { return model.WriteCasesJSONL(f, cases) }},
		{Path: res.ReportPath, Write: func(f *os.File) error { return model.WriteReportJSON(f, res.Reports) }},
	})
	if err != nil {
		return res, err
	}
	res.Cases = len(cases)
	if res.Manifest, err = e.writeSuiteManifest(ctx, opts.Dir, recs); err != nil { // manifest.go
		return res, err
	}
	// The history is the database's; a read-only one exports all the same.
	if e.ReadOnly() {
		return res, nil
	}
	if err := e.Suite.RecordReport(ctx, HistoryExport, opts.Dir, res.Reports); err != nil {
		return res, fmt.Errorf("exported to %s, but the report was not recorded in the history: %w", opts.Dir, err)
	}
	res.Recorded = true
	return res, nil
}

// writeFiles is store.WriteFilesAtomic; a test makes it stop between
// the renames, as a crash would.
var writeFiles = store.WriteFilesAtomic

// reportOver builds report.json over exactly recs, reading their traces'
// stored scores a batch at a time.
func (e *Engine) reportOver(ctx context.Context, recs []store.CaseRecord) ([]model.Report, error) {
	var acc scoring.ReportAccumulator
	for start := 0; start < len(recs); start += eachBatchCases {
		part := recs[start:min(start+eachBatchCases, len(recs))]
		var ids []string
		for _, r := range part {
			if r.TraceID != "" {
				ids = append(ids, r.TraceID)
			}
		}
		rows, err := e.st.ReportRowsOf(ctx, ids)
		if err != nil {
			return nil, err
		}
		for i := range part {
			r := &part[i]
			row, ok := rows[r.TraceID]
			if r.TraceID == "" || !ok {
				continue // a case without its trace has nothing to count
			}
			cr := countedResult(row) // numbers.go: report's verdict
			cr.Score.CaseID = r.Case.CaseID
			acc.Add(cr)
		}
	}
	return acc.Reports(), nil
}

// eachBatchCases is how many cases reportOver reads scores for at a time.
const eachBatchCases = 1000
