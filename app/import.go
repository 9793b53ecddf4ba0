package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sync/errgroup"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
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
	// Score makes ImportService.Reader score the new traces as it writes them,
	// in the same transaction (see inflight); the rest of what it wrote is
	// in ImportResult.ToScore, for AfterImport.
	Score bool
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
	Written   int // traces written (new or replaced)
	// Scored is how many of the Written traces were scored and stored by
	// the import itself (with ImportOptions.Score); ToScore lists the others.
	Scored  int
	ToScore []string
	Labels  int // rater labels added or changed
	Bad     []*RecordError
	// Skipped lists the parts of the file an importer read past on purpose
	// (a cassette's telemetry call), as "path: reason".
	Skipped []string
	// Incomplete lists the traces read from a stream cut before its end
	// (imported with what they had, with no final answer).
	Incomplete []IncompleteTrace
	// Unnamed counts the traces that named no server or user (see
	// DefaultsNotes).
	Unnamed Unnamed
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

// File imports one file into the engine's database (see Import).
func (im ImportService) File(ctx context.Context, path string, opts ImportOptions) (ImportResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return ImportResult{File: path}, err
	}
	defer f.Close()
	return im.e.Imports.Reader(ctx, f, path, opts)
}

// Reader reads r (named name in messages) into the engine's database;
// with opts.Score it scores the new traces as it goes.
func (im ImportService) Reader(ctx context.Context, r io.Reader, name string, opts ImportOptions) (ImportResult, error) {
	var sc *Engine
	if opts.Score {
		sc = im.e
	}
	return importInto(ctx, im.e.st, sc, r, name, opts)
}

// importFile imports one file in one transaction: either every good record
// lands (and, without SkipBad, only when there are no bad ones) or nothing
// does. With a scoring engine sc the new traces are scored as they go.
func importFile(ctx context.Context, st *store.Store, sc *Engine, path string, opts ImportOptions) (ImportResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return ImportResult{File: path}, err
	}
	defer f.Close()
	return importInto(ctx, st, sc, f, path, opts)
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

// importInto is Import: the parser, the writer and, with a scoring engine
// sc, the scorer run as one errgroup (importpipe.go), and the first error
// stops all three. The file is committed only when every record was read
// and written (or the bad ones skipped, with SkipBad).
func importInto(ctx context.Context, st *store.Store, sc *Engine, r io.Reader, name string, opts ImportOptions) (ImportResult, error) {
	res := ImportResult{File: name}
	h := sha256.New()
	im, err := st.BeginImport(ctx, name, opts.Replace)
	if err != nil {
		return res, err
	}
	defer im.Rollback() // no-op after Commit
	im.SetLabeler(opts.Labeler)
	p := newImportPipe(im, &res, name, opts, sc != nil)
	if f, ok := r.(io.ReaderAt); ok {
		p.at = f // a file: a long line is measured in it (importers.Options.At)
	}
	cr := &countingReader{r: r, h: h}
	p.readBytes = func() int64 { return cr.n }
	if opts.Progress != nil {
		cr.onAdv = func(n int64) { opts.Progress(n, int(p.records.Load())) }
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return p.parse(gctx, cr) })
	g.Go(func() error { return p.write(gctx) })
	if sc != nil {
		g.Go(func() error { return p.score(gctx, sc) })
	}
	werr := g.Wait()
	res.Unnamed, res.Format = p.unnamed, p.format
	res.setStats(im)
	if err := ctx.Err(); err != nil {
		// database/sql rolls the transaction back on cancel, so the writer's
		// own error ("statement is closed") would hide the real cause.
		return res, err
	}
	if werr != nil {
		return res, werr
	}
	for i := range res.Bad {
		res.Bad[i].File = name
	}
	if len(res.Bad) > 0 && !opts.SkipBad {
		return res, fmt.Errorf("%w: %d bad record(s) in %s, nothing imported from it", ErrRejected, len(res.Bad), name)
	}
	res.SHA256 = hex.EncodeToString(h.Sum(nil))
	err = im.Commit(res.Format, res.SHA256, len(res.Bad))
	res.setStats(im) // final: the commit may decide a record again against what others wrote meanwhile
	return res, err
}

// setStats copies what the importer wrote so far into the result.
func (r *ImportResult) setStats(im *store.Importer) {
	s := im.Stats
	r.New, r.Unchanged, r.Replaced, r.Steps, r.Written = s.New, s.Unchanged, s.Replaced, s.Steps, s.Written
	r.Labels, r.Scored = s.Labels, s.Scored
	r.ToScore = im.Unscored()
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
