package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"tracelab/importers"
	"tracelab/model"
	"tracelab/scoring"
	"tracelab/store"
)

// Import types, re-exported for the front ends.
type (
	ImportOptions   = store.ImportOptions
	ImportResult    = store.ImportResult
	ImportDefaults  = store.Defaults
	ExportResult    = store.ExportResult
	ContractVersion = store.ContractVersion
	Approval        = store.Approval
	Format          = importers.Format
)

// ErrRejected is an import whose file had bad records and wrote nothing.
var ErrRejected = store.ErrRejected

// Formats lists the trace formats import understands.
func Formats() []Format { return importers.Formats() }

// LookupFormat finds a format by name.
func LookupFormat(name string) (Format, bool) { return importers.Lookup(name) }

// FormatNames is the comma-separated list of format names.
func FormatNames() string { return importers.FormatNames() }

// Import reads one file (any supported format, detected from content) into
// the database in one transaction, staged first so the write lock is held
// briefly; name is what errors and the import log call it.
func (e *Engine) Import(ctx context.Context, r io.Reader, name string, opts ImportOptions) (ImportResult, error) {
	return e.st.ImportStaged(ctx, r, name, opts)
}

// AfterImport fingerprints the new tool contracts semantically (so drift
// can tell a rename from a remove and add) and, unless noScore, scores the
// given traces and every other trace without a score (an earlier scoring
// may have been killed), so the queue shows classes and markers at once.
// It returns how many traces it scored.
func (e *Engine) AfterImport(ctx context.Context, traceIDs []string, noScore bool) (int, error) {
	if _, err := FillSemantic(ctx, e.st); err != nil {
		return 0, err
	}
	if noScore {
		return 0, nil
	}
	return e.ScoreUnscored(ctx, traceIDs, nil)
}

// Sample draws a stratified sample and makes it the labeling queue.
func (e *Engine) Sample(ctx context.Context, opts SampleOptions) (SampleResult, error) {
	return SampleQueue(ctx, e.st, opts)
}

// ExportOptions steer an export.
type ExportOptions struct {
	All        bool // machine-suggested cases too, not only confirmed ones
	ExposeOnly bool // drop the cases every server passes grounded
}

// Export is what an export wrote.
type Export struct {
	Cases   ExportResult
	Reports []model.Report
	Dropped []DroppedGroup // with ExposeOnly
	Total   int            // cases before ExposeOnly dropped any
}

// Export writes DIR/cases.jsonl and DIR/report.json as a pair: both are
// computed and checked before either file is touched, written to
// temporary files, and only then renamed into place one after the other,
// so a failure (a cost that overflows, a full disk) leaves the old pair,
// never a new cases.jsonl beside an old report.json.
func (e *Engine) Export(ctx context.Context, dir string, opts ExportOptions) (Export, error) {
	var out Export
	recs, err := e.st.Cases(ctx, opts.All)
	if err != nil {
		return out, err
	}
	out.Total = len(recs)
	if opts.ExposeOnly {
		recs, out.Dropped = ExposeOnly(recs)
	}
	cases := make([]model.Case, len(recs))
	keep := make(map[string]bool, len(recs))
	for i, r := range recs {
		cases[i] = r.Case
		keep[r.Case.CaseID] = true
	}
	results, err := e.Evaluate(ctx, nil, nil)
	if err != nil {
		return out, err
	}
	var sel []Result
	for _, r := range results {
		if r.Case != nil && keep[r.Case.Case.CaseID] {
			sel = append(sel, r)
		}
	}
	reports := BuildReport(sel, opts.All)
	if err := scoring.CheckReports(reports); err != nil {
		return out, fmt.Errorf("nothing exported: %w", err)
	}
	path := filepath.Join(dir, "cases.jsonl")
	err = store.WriteFilesAtomic([]store.AtomicFile{
		{Path: path, Write: func(f *os.File) error { return model.WriteCasesJSONL(f, cases) }},
		{Path: filepath.Join(dir, "report.json"), Write: func(f *os.File) error { return model.WriteReportJSON(f, reports) }},
	})
	if err != nil {
		return out, err
	}
	out.Cases = ExportResult{Path: path, Cases: len(cases)}
	out.Reports = reports
	return out, nil
}

// FillSemantic computes the semantic fingerprint of stored contracts that
// lack one.
func (e *Engine) FillSemantic(ctx context.Context) (int, error) { return FillSemantic(ctx, e.st) }

// LoadRun lists the tool contracts of one stored run.
func (e *Engine) LoadRun(ctx context.Context, src DBSource) (RunListing, error) {
	return LoadRun(ctx, e.st, src)
}

// SuiteCases matches suite cases to stored traces (and extra ones).
// A nil engine (no database) matches against extra only.
func (e *Engine) SuiteCases(ctx context.Context, cases []model.Case, extra []*model.Trace) ([]StoredCase, []string, error) {
	var st *store.Store
	if e != nil {
		st = e.st
	}
	return SuiteCases(ctx, st, cases, extra)
}

// StoredCases lists the stored labeled cases in scope.
func (e *Engine) StoredCases(ctx context.Context, scope CaseScope) ([]StoredCase, error) {
	return StoredCases(ctx, e.st, scope)
}

// ApproveListing records a tool listing as approved for a server.
func (e *Engine) ApproveListing(ctx context.Context, server, source, by string, tools []model.ToolContract) (int, error) {
	return ApproveListing(ctx, e.st, server, source, by, tools)
}

// Verify lists the contracts in use that nobody approved.
func (e *Engine) Verify(ctx context.Context, server string) ([]UnapprovedContract, error) {
	return Verify(ctx, e.st, server)
}

// Approvals lists the approval registry.
func (e *Engine) Approvals(ctx context.Context) ([]Approval, error) { return e.st.Approvals(ctx) }

// ContractHistory lists every version of every tool of a server.
func (e *Engine) ContractHistory(ctx context.Context, server string) ([]ContractVersion, error) {
	return e.st.ContractHistory(ctx, server)
}

// ReadToolListing parses a tools/list payload (or a bare array of tools).
func ReadToolListing(data []byte) ([]model.ToolContract, error) {
	return importers.ParseToolListing(data)
}

// ListingNextCursor is the nextCursor of a paginated tools/list payload.
func ListingNextCursor(data []byte) string { return importers.ListingNextCursor(data) }

// ReadTraces reads trace files in any format import knows; a bad record is
// an error naming its file and line.
func ReadTraces(ctx context.Context, files []string) ([]*model.Trace, error) {
	var out []*model.Trace
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		_, err = importers.Parse(ctx, f, file, "", func(r importers.Record) error {
			if r.Err != nil {
				return r.Err
			}
			if r.Trace != nil {
				out = append(out, r.Trace)
			}
			return nil
		})
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// WriteFileAtomic writes path through a temporary file renamed into place.
func WriteFileAtomic(path string, write func(*os.File) error) error {
	return store.WriteFileAtomic(path, write)
}
