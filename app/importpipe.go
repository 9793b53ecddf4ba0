package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
)

// importPipe is one import's three goroutines and what they share: the
// parser reads records and prepares (hashes) each trace's row on its own
// goroutine, as the writer's is the import's busiest; the writer puts
// them in the import's transaction and hands the fresh traces to the
// scorer in batches; the scorer scores them as they are written and puts
// their scores in the same transaction (inflight.go).
type importPipe struct {
	im   *store.Importer
	mu   sync.Mutex // the transaction is the writer's and the scorer's in turn
	res  *ImportResult
	name string
	opts ImportOptions

	recs chan importRecord // parser → writer; closed when the parser ends
	// readBytes is how much of the file the parser read (nil: unknown);
	// the writer asks once recs is closed.
	readBytes func() int64
	fresh     chan []*model.Trace // writer → scorer; nil without scoring
	// unscored counts the batches sent to the scorer and not yet put;
	// scored is signalled as each is (waitScored).
	unscored atomic.Int64
	scored   chan struct{}

	records atomic.Int64 // records the writer took, for the progress callback

	// Set by the parser before it closes recs.
	format   string
	parseErr error
	unnamed  Unnamed
}

// releaseAfter is the file size past which the writer returns Go's free
// memory to the system before the staged rows are copied: one forced
// collection, small beside reading that much.
const releaseAfter = 32 << 20

// importRecord is a record with its trace's row, prepared by the parser.
type importRecord struct {
	importers.Record
	row *store.TraceRow
}

func newImportPipe(im *store.Importer, res *ImportResult, name string, opts ImportOptions, scoring bool) *importPipe {
	p := &importPipe{im: im, res: res, name: name, opts: opts, recs: make(chan importRecord, 256)}
	if scoring {
		p.fresh = make(chan []*model.Trace, 1)
		p.scored = make(chan struct{}, 1)
	}
	return p
}

// parse reads the file into recs. An empty file is no error: its format
// is "empty".
func (p *importPipe) parse(ctx context.Context, r io.Reader) error {
	f, err := importers.ParseWith(ctx, r, p.name, importers.Options{Format: p.opts.Format, MaxRecord: p.opts.MaxRecord}, func(rec importers.Record) error {
		select {
		case p.recs <- p.prepare(rec):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	p.format = f.Name
	if errors.Is(err, importers.ErrEmpty) {
		p.format, err = "empty", nil
	}
	p.parseErr = err
	close(p.recs)
	return err
}

func (p *importPipe) prepare(rec importers.Record) importRecord {
	if rec.Trace == nil {
		return importRecord{Record: rec}
	}
	rec.Trace.Source = model.Source{File: p.name, Line: rec.Line}
	p.unnamed.note(rec.Trace)
	applyDefaults(rec.Trace, p.opts.Defaults)
	return importRecord{rec, store.PrepareTrace(rec.Trace)}
}

// write puts every record, then, when the file was read whole and will be
// committed, copies the staged rows while the scorer finishes.
func (p *importPipe) write(ctx context.Context) error {
	if p.fresh != nil {
		defer close(p.fresh) // whatever happens: the scorer ends
	}
	var batch []*model.Trace
	for rec := range p.recs {
		t, err := p.put(rec)
		if err != nil {
			return err
		}
		if t == nil || p.fresh == nil {
			continue
		}
		if batch = append(batch, t); len(batch) >= inflightBatch {
			if err := p.send(ctx, batch); err != nil {
				return err
			}
			batch = nil
		}
	}
	if len(batch) > 0 {
		if err := p.send(ctx, batch); err != nil {
			return err
		}
	}
	if p.parseErr != nil || len(p.res.Bad) > 0 && !p.opts.SkipBad {
		return nil // nothing will be committed
	}
	if p.readBytes != nil && p.readBytes() >= releaseAfter {
		// The records read are garbage by now (the scorer keeps what it
		// still scores). SQLite's copy of the staged rows holds a large
		// body twice over in its own memory, which Go's heap does not
		// count: give Go's free pages back first, so the two peaks do not
		// add up (a 100 MB record: see the closing note of issue 27).
		// When such a body was staged, the scorer's last traces are let
		// go first too: the copy then no longer overlaps their scoring,
		// but the decoded record is not held beside SQLite's copies.
		p.mu.Lock()
		big := p.im.BigBodies() > 0
		p.mu.Unlock()
		if big {
			if err := p.waitScored(ctx); err != nil {
				return err
			}
		}
		debug.FreeOSMemory()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.im.EndOfFile(p.format)
}

// waitScored waits until the scorer has put every batch sent (at once
// without scoring). A scorer that fails cancels ctx.
func (p *importPipe) waitScored(ctx context.Context) error {
	for p.scored != nil && p.unscored.Load() > 0 {
		select {
		case <-p.scored:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// send hands a batch of fresh traces to the scorer.
func (p *importPipe) send(ctx context.Context, batch []*model.Trace) error {
	p.unscored.Add(1)
	select {
	case p.fresh <- batch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// put writes one record; t is the trace written when it is fresh (for
// the scorer). A bad record is noted, not an error.
func (p *importPipe) put(rec importRecord) (t *model.Trace, err error) {
	p.records.Add(1)
	res := p.res
	switch {
	case rec.Err != nil:
		res.Bad = append(res.Bad, rec.Err)
		return nil, nil
	case rec.Skip != nil:
		res.Skipped = append(res.Skipped, rec.Skip.Path+": "+rec.Skip.Reason)
		return nil, nil
	}
	var rerr *store.RecordError
	p.mu.Lock()
	switch {
	case rec.Trace != nil:
		if why, ok := rec.Trace.Metadata[importers.MetaIncomplete]; ok {
			res.Incomplete = append(res.Incomplete, IncompleteTrace{TraceID: rec.Trace.TraceID, Line: rec.Line, Why: fmt.Sprint(why)})
		}
		t, rerr, err = p.im.PutRow(rec.row)
	case rec.Case != nil:
		rerr, err = p.im.PutCase(rec.Case, rec.Line)
	}
	p.mu.Unlock()
	if rerr != nil {
		res.Bad = append(res.Bad, rerr)
	}
	return t, err
}

// score scores the fresh traces the writer sends and puts their scores.
func (p *importPipe) score(ctx context.Context, sc *Engine) error {
	book := peerBook{}
	for ts := range p.fresh {
		b := sc.scoreFresh(ctx, ts, book)
		if b.err != nil {
			return b.err
		}
		p.mu.Lock()
		err := p.im.PutScores(b.rows, b.sugg)
		p.mu.Unlock()
		if err != nil {
			return err
		}
		p.unscored.Add(-1)
		select {
		case p.scored <- struct{}{}:
		default: // a signal waits already
		}
	}
	return nil
}
