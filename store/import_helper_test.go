package store

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

// The store only writes rows; parsing is the engine's (app.Import). These
// tests drive the writer with the real parser, the way the engine does,
// minus its concurrency: ImportOptions and ImportResult are the test's.

type ImportOptions struct {
	Replace, SkipBad bool
	Progress         func(bytes int64, records int)
}

type ImportResult struct {
	WriteStats
	Format string
	Bad    []*RecordError
}

var ErrRejected = errors.New("rejected")

type progressReader struct {
	r  io.Reader
	n  int64
	fn func(int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if p.fn != nil {
		p.fn(p.n)
	}
	return n, err
}

func importString(t *testing.T, st *Store, name, body string, opts ImportOptions) (ImportResult, error) {
	t.Helper()
	return importReader(context.Background(), st, strings.NewReader(body), name, opts)
}

func importReader(ctx context.Context, st *Store, r io.Reader, name string, opts ImportOptions) (ImportResult, error) {
	var res ImportResult
	im, err := st.BeginImport(ctx, name, opts.Replace)
	if err != nil {
		return res, err
	}
	defer im.Rollback()
	records := 0
	pr := &progressReader{r: r}
	if opts.Progress != nil {
		pr.fn = func(n int64) { opts.Progress(n, records) }
	}
	f, err := importers.Parse(ctx, pr, name, "", func(rec importers.Record) error {
		records++
		var rerr *RecordError
		var err error
		switch {
		case rec.Err != nil:
			rerr = &RecordError{File: name, Line: rec.Err.Line, Path: rec.Err.Path, Msg: rec.Err.Msg}
		case rec.Trace != nil:
			rec.Trace.Source = model.Source{File: name, Line: rec.Line}
			rerr, err = im.PutTrace(rec.Trace)
		case rec.Case != nil:
			rerr, err = im.PutCase(rec.Case, rec.Line)
		}
		if rerr != nil {
			res.Bad = append(res.Bad, rerr)
		}
		return err
	})
	res.Format, res.WriteStats = f.Name, im.Stats
	if errors.Is(err, importers.ErrEmpty) {
		res.Format, err = "empty", nil
	}
	if err != nil {
		return res, err
	}
	if len(res.Bad) > 0 && !opts.SkipBad {
		return res, ErrRejected
	}
	err = im.Commit(res.Format, "sha", len(res.Bad))
	res.WriteStats = im.Stats
	return res, err
}
