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
	// at reads the file at an offset, when the parser reads one from its
	// start (importers.Options.At); nil otherwise.
	at        io.ReaderAt
	fresh     chan freshBatch // writer → scorer; nil without scoring
	freshDone bool            // fresh is closed (the writer's)
	// budget bounds the bytes of the records taken from the file and
	// not yet done with (budget.go).
	budget *byteBudget
	// scored is closed when the scorer ends, scoreErr (set before) saying
	// how; the writer waits for it before the copy (awaitScores).
	scored   chan struct{}
	scoreErr error

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
	row   *store.TraceRow
	bytes int64 // taken from the budget for it
}

// freshBatch is a batch of fresh traces for the scorer, with the bytes
// they took from the budget, given back once they are scored.
type freshBatch struct {
	ts    []*model.Trace
	bytes int64
}

func newImportPipe(im *store.Importer, res *ImportResult, name string, opts ImportOptions, scoring bool) *importPipe {
	p := &importPipe{im: im, res: res, name: name, opts: opts, recs: make(chan importRecord, 256),
		budget: newByteBudget(importers.InFlightBudget(opts.MaxRecord, importers.ProcessMemoryLimit()))}
	if scoring {
		p.fresh = make(chan freshBatch, 1)
		p.scored = make(chan struct{})
	}
	return p
}

// parse reads the file into recs. An empty file is no error: its format
// is "empty".
func (p *importPipe) parse(ctx context.Context, r io.Reader) error {
	f, err := importers.ParseWith(ctx, r, p.name, importers.Options{Format: p.opts.Format, MaxRecord: p.opts.MaxRecord, Room: p.budget.room, At: p.at}, func(rec importers.Record) error {
		var n int64
		if rec.Trace != nil {
			// Taken before the row is prepared: the row's metadata
			// is a copy.
			n = p.budget.weigh(traceBytes(rec.Trace))
			if err := p.budget.acquire(ctx, n); err != nil {
				return err
			}
		}
		r := p.prepare(rec)
		r.bytes = n
		select {
		case p.recs <- r:
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
	return importRecord{Record: rec, row: store.PrepareTrace(rec.Trace)}
}

// write puts every record, then, when the file was read whole and will be
// committed, waits for the scorer to put its last scores and copies the
// staged rows.
func (p *importPipe) write(ctx context.Context) error {
	if p.fresh != nil {
		defer p.endFresh() // whatever happens: the scorer ends
	}
	var batch freshBatch
	group := make([]importRecord, 0, cap(p.recs))
	for {
		var rec importRecord
		ok := true
		select {
		case rec, ok = <-p.recs:
		case <-p.budget.starved:
			// The parser waits for bytes, which the batch may hold.
			if len(batch.ts) > 0 {
				if err := p.send(ctx, batch); err != nil {
					return err
				}
				batch = freshBatch{}
			}
			continue
		}
		if !ok {
			break
		}
		// The records the parser has ready are put as a group, which the
		// store looks up in one query (Prefetch) where each lookup is a
		// round trip to a server.
		group = append(group[:0], rec)
	more:
		for len(group) < cap(group) {
			select {
			case r, ok := <-p.recs:
				if !ok {
					break more
				}
				group = append(group, r)
			default:
				break more
			}
		}
		if err := p.prefetch(group); err != nil {
			return err
		}
		for _, rec := range group {
			t, err := p.put(rec)
			if err != nil {
				return err
			}
			if t == nil || p.fresh == nil {
				p.budget.release(rec.bytes)
				continue
			}
			batch.ts, batch.bytes = append(batch.ts, t), batch.bytes+rec.bytes
			if len(batch.ts) >= inflightBatch {
				if err := p.send(ctx, batch); err != nil {
					return err
				}
				batch = freshBatch{}
			}
		}
	}
	if len(batch.ts) > 0 {
		if err := p.send(ctx, batch); err != nil {
			return err
		}
	}
	if p.parseErr != nil || len(p.res.Bad) > 0 && !p.opts.SkipBad {
		return nil // nothing will be committed
	}
	if ok, err := p.awaitScores(ctx); !ok {
		return err // the scorer failed: its error is the import's
	}
	if p.readBytes != nil && p.readBytes() >= releaseAfter {
		// The records read are garbage by now (the scorer is done with
		// them). SQLite's copy of the staged rows holds a large
		// body several times over in its own memory, which Go's heap does
		// not count: give Go's free pages back first, so the two peaks do
		// not add up (a 100 MB record: see the closing note of issue 27).
		debug.FreeOSMemory()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.im.EndOfFile(p.format)
}

// prefetch tells the store which traces of group are about to be put.
func (p *importPipe) prefetch(group []importRecord) error {
	var rows []*store.TraceRow
	for _, rec := range group {
		if rec.Err == nil && rec.Skip == nil && rec.row != nil {
			rows = append(rows, rec.row)
		}
	}
	if len(rows) < 2 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.im.Prefetch(rows)
}

// endFresh tells the scorer no more traces come.
func (p *importPipe) endFresh() {
	if !p.freshDone {
		p.freshDone = true
		close(p.fresh)
	}
}

// awaitScores waits for the scorer to put the scores of every fresh
// trace; ok is false when it failed (or the import was cancelled). The
// copy then lands each trace with its score and its machine case in the
// staged rows, the queue columns computed once (store's landedColumns).
// Copying while the scorer still worked, as before, overlapped the two
// but left the last batches' scores to be written after the copy, each
// firing the queue triggers that update its trace row two or three times
// over (1,000 new traces into a scored 100k database, on a loaded
// machine: two of the five batches, and a tenth of the import's CPU), and
// the commit waited for them anyway. Waiting also keeps the database's write lock for the copy
// alone.
func (p *importPipe) awaitScores(ctx context.Context) (ok bool, _ error) {
	if p.fresh == nil {
		return true, nil
	}
	p.endFresh()
	select {
	case <-p.scored:
		return p.scoreErr == nil, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// send hands a batch of fresh traces to the scorer.
func (p *importPipe) send(ctx context.Context, batch freshBatch) error {
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
func (p *importPipe) score(ctx context.Context, sc *Engine) (err error) {
	defer func() {
		p.scoreErr = err
		close(p.scored)
	}()
	book := peerBook{}
	for fb := range p.fresh {
		b := sc.scoreFresh(ctx, fb.ts, book)
		if b.err != nil {
			return b.err
		}
		p.mu.Lock()
		err := p.im.PutScores(b.rows, b.sugg)
		p.mu.Unlock()
		if err != nil {
			return err
		}
		p.budget.release(fb.bytes)
	}
	return nil
}
