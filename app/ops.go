package app

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
	"github.com/tracelab-dev/tracelab/suite"
)

// Import types, re-exported for the front ends.
type (
	ContractVersion = store.ContractVersion
	Approval        = store.Approval
	Format          = importers.Format
)

// Formats lists the trace formats import understands.
func Formats() []Format { return importers.Formats() }

// LookupFormat finds a format by name.
func LookupFormat(name string) (Format, bool) { return importers.Lookup(name) }

// FormatNames is the comma-separated list of format names.
func FormatNames() string { return importers.FormatNames() }

// AfterImport fingerprints the new tool contracts semantically (so drift
// can tell a rename from a remove and add) and, unless noScore, scores the
// given traces and every other trace without a score (an earlier scoring
// may have been killed), so the queue shows classes and markers at once.
// It returns how many traces it scored.
func (im ImportService) AfterImport(ctx context.Context, traceIDs []string, noScore bool) (int, error) {
	e := im.e
	if _, err := fillSemantic(ctx, e.st); err != nil {
		return 0, err
	}
	if noScore {
		return 0, nil
	}
	// The new traces and the traces whose suggestions their gold feeds,
	// then whatever a killed earlier run left without a score.
	sum, err := e.Scores.ScoreTraces(ctx, traceIDs, nil)
	if err != nil {
		return sum.Scored, err
	}
	n, err := e.Scores.ScoreUnscored(ctx, nil, nil)
	return sum.Scored + n, err
}

// Sample draws a stratified sample and makes it the labeling queue.
func (su SuiteService) Sample(ctx context.Context, opts suite.SampleOptions) (suite.SampleResult, error) {
	return sampleQueue(ctx, su.e.st, opts)
}

// fillSemantic computes the semantic fingerprint of stored contracts that
// lack one.
func (d DriftService) FillSemantic(ctx context.Context) (int, error) {
	return fillSemantic(ctx, d.e.st)
}

// loadRun lists the tool contracts of one stored run.
func (d DriftService) LoadRun(ctx context.Context, src DBSource) (RunListing, error) {
	return loadRun(ctx, d.e.st, src)
}

// suiteCases matches suite cases to stored traces (and extra ones).
// A nil engine (no database) matches against extra only.
func (d DriftService) SuiteCases(ctx context.Context, cases []model.Case, extra []*model.Trace) ([]StoredCase, []string, error) {
	var st *store.Store
	if d.e != nil {
		st = d.e.st
	}
	return suiteCases(ctx, st, cases, extra)
}

// storedCases lists the stored labeled cases in scope.
func (d DriftService) StoredCases(ctx context.Context, scope CaseScope) ([]StoredCase, error) {
	return storedCases(ctx, d.e.st, scope)
}

// approveListing records a tool listing as approved for a server.
func (d DriftService) ApproveListing(ctx context.Context, server, source, by string, tools []model.ToolContract) (int, error) {
	return approveListing(ctx, d.e.st, server, source, by, tools)
}

// verify lists the contracts in use that nobody approved.
func (d DriftService) Verify(ctx context.Context, server string) ([]UnapprovedContract, error) {
	return verify(ctx, d.e.st, server)
}

// Approvals lists the approval registry.
func (d DriftService) Approvals(ctx context.Context) ([]Approval, error) {
	return d.e.st.Approvals(ctx)
}

// ContractHistory lists every version of every tool of a server.
func (d DriftService) ContractHistory(ctx context.Context, server string) ([]ContractVersion, error) {
	return d.e.st.ContractHistory(ctx, server)
}

// ReadToolListing parses a tools/list payload (or a bare array of tools).
func ReadToolListing(data []byte) ([]model.ToolContract, error) {
	return importers.ParseToolListing(data)
}

// MaxListing caps the bytes of one tool listing read from a file or a
// stream: a listing is one JSON document, like a trace record, so it gets
// the record cap; a stream that never ends, or a file far past any
// listing, is refused before it fills memory.
const MaxListing = importers.DefaultMaxRecord

// listingExpected says what a refused listing should have been.
const listingExpected = "expected one tools/list result or a JSON array of tools"

// ReadListing reads the tool listing r holds (name says where from, for
// errors), refusing one over MaxListing.
func ReadListing(name string, r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxListing+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > MaxListing {
		return nil, fmt.Errorf("%s: over %d MiB, more than any tool listing; %s", name, MaxListing>>20, listingExpected)
	}
	return data, nil
}

// ReadListingFile is ReadListing on a file, refusing a large regular
// file by its size before reading it.
func ReadListingFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxListing {
		return nil, fmt.Errorf("%s: %d MiB, more than any tool listing (at most %d MiB); %s", name, fi.Size()>>20, MaxListing>>20, listingExpected)
	}
	return ReadListing(name, f)
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
