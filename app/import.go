package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"tracelab/importers"
	"tracelab/model"
	"tracelab/store"
)

// Defaults fill in what a trace format does not carry.
type Defaults struct {
	Server, AsUser, UserRole, RunID string
}

// ImportOptions steer one import.
type ImportOptions struct {
	Format  string // force a format; "" detects it
	Replace bool   // a trace or case seen again with other content replaces the old one
	SkipBad bool   // import the good records and report the bad ones
	// MaxRecord caps the bytes of one record; 0 is importers.DefaultMaxRecord.
	MaxRecord int64
	Defaults  Defaults
	// Labeler makes the file's cases that name no labeler of their own
	// this person's labels, added beside the other raters' instead of
	// overwriting the case ("": a case line without a labeler field is
	// the case itself, as a suite is).
	Labeler string
	// Progress, when set, is called now and then with bytes read so far and
	// records seen so far.
	Progress func(bytes int64, records int)
}

// RecordError is a precise complaint about one record: file, line, JSON
// path and what was expected.
type RecordError = store.RecordError

// ImportResult says what one file did to the database.
type ImportResult struct {
	File      string
	Format    string
	SHA256    string
	New       int // new traces and cases
	Unchanged int // already present with identical content
	Replaced  int
	Steps     int
	Traces    []string // trace ids written (new or replaced)
	Labels    int      // rater labels added or changed
	Bad       []*RecordError
	// Skipped lists the parts of the file an importer read past on purpose
	// (a cassette's telemetry call), as "path: reason".
	Skipped []string
	// Incomplete lists the traces read from a stream cut before its end
	// (imported with what they had, with no final answer).
	Incomplete []IncompleteTrace
}

// IncompleteTrace is a trace an importer marked incomplete.
type IncompleteTrace struct {
	TraceID string
	Line    int
	Why     string // what the stream lacked
}

// Warning is the line the CLI prints for it.
func (w IncompleteTrace) Warning(file string) string {
	return fmt.Sprintf("warning: %s:%d: trace %s is incomplete (%s): imported without a final answer", file, w.Line, w.TraceID, w.Why)
}

// Summary is the one-line report the CLI prints.
func (r ImportResult) Summary() string {
	s := fmt.Sprintf("%s: %s, %d new, %d unchanged", r.File, r.Format, r.New, r.Unchanged)
	if r.Replaced > 0 {
		s += fmt.Sprintf(", %d replaced", r.Replaced)
	}
	if r.Labels > 0 {
		s += fmt.Sprintf(", %d rater label(s) added or changed", r.Labels)
	}
	if len(r.Bad) > 0 {
		s += fmt.Sprintf(", %d rejected", len(r.Bad))
	}
	if len(r.Incomplete) > 0 {
		s += fmt.Sprintf(", %d incomplete", len(r.Incomplete))
	}
	if len(r.Skipped) > 0 {
		s += fmt.Sprintf(", %d part(s) skipped (--verbose lists them)", len(r.Skipped))
	}
	return s
}

// ErrRejected wraps an import that failed because of bad records; the
// database is unchanged for that file.
var ErrRejected = errors.New("rejected")

// ImportFile imports one file into the engine's database (see Import).
func (e *Engine) ImportFile(ctx context.Context, path string, opts ImportOptions) (ImportResult, error) {
	return ImportFile(ctx, e.st, path, opts)
}

// Import reads r (named name in messages) into the engine's database.
func (e *Engine) Import(ctx context.Context, r io.Reader, name string, opts ImportOptions) (ImportResult, error) {
	return Import(ctx, e.st, r, name, opts)
}

// ImportFile imports one file in one transaction: either every good record
// lands (and, without SkipBad, only when there are no bad ones) or nothing does.
func ImportFile(ctx context.Context, st *store.Store, path string, opts ImportOptions) (ImportResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return ImportResult{File: path}, err
	}
	defer f.Close()
	return Import(ctx, st, f, path, opts)
}

// countingReader counts bytes and hashes them as the parser reads.
type countingReader struct {
	r     io.Reader
	n     int64
	h     io.Writer
	onAdv func(int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.h.Write(p[:n])
	if c.onAdv != nil {
		c.onAdv(c.n)
	}
	return n, err
}

// Import reads r (named name in messages) in one transaction. Parsing
// runs in its own goroutine, a few records ahead of the store's writer,
// so JSON decoding overlaps with SQLite's work.
func Import(ctx context.Context, st *store.Store, r io.Reader, name string, opts ImportOptions) (ImportResult, error) {
	res := ImportResult{File: name}
	h := sha256.New()
	var records atomic.Int64 // written by the writer, read by the parser's progress callback
	cr := &countingReader{r: r, h: h}
	if opts.Progress != nil {
		cr.onAdv = func(n int64) { opts.Progress(n, int(records.Load())) }
	}
	im, err := st.BeginImport(ctx, name, opts.Replace)
	if err != nil {
		return res, err
	}
	defer im.Rollback() // no-op after Commit
	im.SetLabeler(opts.Labeler)
	recs := make(chan importers.Record, 256)
	type parsed struct {
		format importers.Format
		err    error
	}
	done := make(chan parsed, 1)
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		f, err := importers.ParseWith(pctx, cr, name, importers.Options{Format: opts.Format, MaxRecord: opts.MaxRecord}, func(rec importers.Record) error {
			select {
			case recs <- rec:
				return nil
			case <-pctx.Done():
				return pctx.Err()
			}
		})
		close(recs)
		done <- parsed{f, err}
	}()
	var fatal error
	for rec := range recs {
		if fatal != nil {
			continue // drain so the parser can finish
		}
		records.Add(1)
		if rec.Err != nil {
			res.Bad = append(res.Bad, rec.Err)
			continue
		}
		if rec.Skip != nil {
			res.Skipped = append(res.Skipped, rec.Skip.Path+": "+rec.Skip.Reason)
			continue
		}
		var rerr *store.RecordError
		var err error
		switch {
		case rec.Trace != nil:
			if why, ok := rec.Trace.Metadata[importers.MetaIncomplete]; ok {
				res.Incomplete = append(res.Incomplete, IncompleteTrace{TraceID: rec.Trace.TraceID, Line: rec.Line, Why: fmt.Sprint(why)})
			}
			rec.Trace.Source = model.Source{File: name, Line: rec.Line}
			applyDefaults(rec.Trace, opts.Defaults)
			rerr, err = im.PutTrace(rec.Trace)
		case rec.Case != nil:
			rerr, err = im.PutCase(rec.Case, rec.Line)
		}
		if err != nil {
			fatal = err
			cancel()
		}
		if rerr != nil {
			res.Bad = append(res.Bad, rerr)
		}
	}
	p := <-done
	res.Format = p.format.Name
	if errors.Is(p.err, importers.ErrEmpty) {
		res.Format, p.err = "empty", nil
	}
	res.setStats(im.Stats)
	if err := ctx.Err(); err != nil {
		// database/sql rolls the transaction back on cancel, so the writer's
		// own error ("statement is closed") would hide the real cause.
		return res, err
	}
	if fatal != nil {
		return res, fatal
	}
	if p.err != nil {
		return res, p.err
	}
	for i := range res.Bad {
		res.Bad[i].File = name
	}
	if len(res.Bad) > 0 && !opts.SkipBad {
		return res, fmt.Errorf("%w: %d bad record(s) in %s, nothing imported from it", ErrRejected, len(res.Bad), name)
	}
	res.SHA256 = hex.EncodeToString(h.Sum(nil))
	err = im.Commit(res.Format, res.SHA256, len(res.Bad))
	res.setStats(im.Stats) // final: the commit may decide a record again against what others wrote meanwhile
	return res, err
}

func (r *ImportResult) setStats(s store.WriteStats) {
	r.New, r.Unchanged, r.Replaced, r.Steps, r.Traces = s.New, s.Unchanged, s.Replaced, s.Steps, s.Traces
	r.Labels = s.Labels
}

func applyDefaults(t *model.Trace, d Defaults) {
	if t.Server == "" {
		t.Server = d.Server
	}
	if t.AsUser == "" {
		t.AsUser = d.AsUser
	}
	if t.UserRole == "" {
		t.UserRole = d.UserRole
	}
	if t.RunID == "" {
		t.RunID = d.RunID
	}
}
