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
// own label, whoever wrote its gold. The cases are written as they are
// read, a page at a time (exportstream.go).
func (su SuiteService) Export(ctx context.Context, opts ExportOptions) (ExportResult, error) {
	e := su.e
	res := ExportResult{CasesPath: filepath.Join(opts.Dir, "cases.jsonl"), ReportPath: filepath.Join(opts.Dir, "report.json")}
	if _, err := e.scoreStale(ctx, nil, nil); err != nil {
		return res, err
	}
	x, err := e.newExportStream(ctx, opts)
	if err != nil {
		return res, err
	}
	if opts.ExposeOnly {
		if err := x.exposeOnly(ctx, &res); err != nil {
			return res, err
		}
	}
	// Both files are written to temporary files and renamed into place
	// only once both are complete and report.json's numbers are checked:
	// a failure (a cost that overflows, a full disk) leaves the old pair,
	// never a new cases.jsonl beside an old report.json. The errors of
	// the pass itself are returned as they are, not as a write's.
	var passErr error
	var reportSHA string
	err = writeFiles([]store.AtomicFile{
		{Path: res.CasesPath, Write: func(f *os.File) error {
			if passErr = x.writeCases(ctx, f, &res.Considered); passErr != nil {
				return passErr
			}
			res.Reports = x.acc.Reports()
			if err := scoring.CheckReports(res.Reports); err != nil {
				passErr = fmt.Errorf("nothing exported: %w", err)
			}
			return passErr
		}},
		{Path: res.ReportPath, Write: func(f *os.File) (err error) {
			reportSHA, err = writeReport(f, res.Reports)
			return err
		}},
	})
	if passErr != nil {
		return res, passErr
	}
	if err != nil {
		return res, err
	}
	res.Cases = x.cases
	if res.Manifest, err = e.writeSuiteManifest(ctx, opts.Dir, x, reportSHA); err != nil { // manifest.go
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

// addReportRows counts recs in acc (report.json over exactly the cases
// written), from the report row each case was read with (CasesAfter).
func addReportRows(acc *scoring.ReportAccumulator, recs []store.CaseRecord) {
	for i := range recs {
		r := &recs[i]
		if r.Report == nil {
			continue // a case without its trace, or whose trace has no score, has nothing to count
		}
		cr := countedResult(*r.Report) // numbers.go: report's verdict
		cr.Score.CaseID = r.Case.CaseID
		acc.Add(cr)
	}
}
