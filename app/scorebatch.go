package app

import (
	"context"
	"encoding/json"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// scoringBatch is one batch of traces with their cases.
type scoringBatch struct {
	traces []*model.Trace
	cases  map[string]*store.CaseRecord
}

// batchSource is where a scoring run reads its batches: the store, or a
// connection reserved for a run of batches (store.BatchConn).
type batchSource interface {
	LoadScoring(ctx context.Context, ids []string) ([]*model.Trace, map[string]*store.CaseRecord, error)
}

// loadScoring loads a batch's traces and cases, on the loader's goroutine:
// decoding cases is a tenth of a scoring run, off the scorer's path.
func loadScoring(ctx context.Context, from batchSource, ids []string) (scoringBatch, error) {
	ts, cases, err := from.LoadScoring(ctx, ids)
	return scoringBatch{ts, cases}, err
}

// scoreBatch scores one batch: against a person's gold where the case has
// one, else against the gold suggested from the glossary, its question's
// peers and, when those require fields, the trace's own score (the
// look-alikes it used after a guess). Only that last kind needs a trace
// scored twice, and its second scoring finds the SQL in the scorer's cache;
// every other trace is scored once.
func scoreBatch(sc *scoring.Scorer, ts []*model.Trace, cases map[string]*store.CaseRecord, book peerBook) []Result {
	rs := make([]Result, len(ts))
	jobs := make([]scoring.Job, len(ts))
	var twice []int // traces whose suggestion reads their own first score
	for i, t := range ts {
		cr := cases[t.TraceID]
		rs[i].Case = cr
		rs[i].Encodes = sc.EncodesDefinition(t)
		jobs[i].Trace = t
		if cr != nil && cr.GoldOrigin == store.OriginHuman {
			g := cr.Case.Gold
			jobs[i].Gold = &g
			rs[i].HumanGold = true
			continue
		}
		// SuggestGold reads the trace's score only once some field is
		// required; without one the suggestion is final already.
		sg := sc.SuggestGold(t, scoring.TraceScore{}, book[store.QuestionKey(t.Question)])
		if len(sg.Gold.RequiredFields) > 0 {
			twice = append(twice, i)
			continue
		}
		rs[i].Suggested = &sg
		g := sg.Gold
		jobs[i].Gold = &g
	}
	scores := sc.ScoreAll(jobs, 0)
	for i := range ts {
		rs[i].Score = withCaseID(scores[i], rs[i].Case)
	}
	if len(twice) == 0 {
		return rs
	}
	again := make([]scoring.Job, len(twice))
	for j, i := range twice {
		t := ts[i]
		sg := sc.SuggestGold(t, scores[i], book[store.QuestionKey(t.Question)])
		rs[i].Suggested = &sg
		g := sg.Gold
		again[j] = scoring.Job{Trace: t, Gold: &g}
	}
	for j, s := range sc.ScoreAll(again, 0) {
		rs[twice[j]].Score = withCaseID(s, rs[twice[j]].Case)
	}
	return rs
}

// batchWriter stores batches of results on its own goroutine, one batch
// behind the scorer; after the first error it only drains, and close
// returns that error.
type batchWriter struct {
	ch   chan []Result
	done chan error
}

// With reserve, the batches are written on a connection reserved for them
// (store.BatchConn), taken at the first batch.
func newBatchWriter(ctx context.Context, e *Engine, write, reserve bool) *batchWriter {
	w := &batchWriter{ch: make(chan []Result, 1), done: make(chan error, 1)}
	go func() {
		var err error
		var bc *store.BatchConn
		var to scoreSaver = e.st
		for rs := range w.ch {
			if err == nil && write && reserve && bc == nil {
				if bc, err = e.st.BatchConn(ctx); err == nil {
					to = bc
				}
			}
			if err == nil && write {
				if err = e.yieldToActions(ctx); err == nil {
					err = e.save(ctx, to, rs)
				}
			}
		}
		if bc != nil {
			if cerr := bc.Close(); err == nil {
				err = cerr
			}
		}
		w.done <- err
	}()
	return w
}

func (w *batchWriter) put(rs []Result) error {
	w.ch <- rs
	return nil
}

func (w *batchWriter) close() error {
	close(w.ch)
	return <-w.done
}

// scoreSaver is where save writes: the store (e.st), or a connection
// reserved for a run of batches (store.BatchConn).
type scoreSaver interface {
	SaveScores(ctx context.Context, rows []store.ScoreRow, suggestions []store.Suggestion) error
}

// save stores one batch's scores and suggested cases in one transaction
// through to.
func (e *Engine) save(ctx context.Context, to scoreSaver, rs []Result) error {
	rows, sugg, err := e.scoreRows(rs)
	if err != nil {
		return err
	}
	return to.SaveScores(ctx, rows, sugg)
}

// detailChunk is the size of the chunks scoreRows writes details in, a
// hundred or so scores each.
const detailChunk = 256 << 10

// scoreRows are the score rows and suggested cases that store results.
func (e *Engine) scoreRows(rs []Result) ([]store.ScoreRow, []store.Suggestion, error) {
	rows := make([]store.ScoreRow, len(rs))
	var sugg []store.Suggestion
	sha := e.configSHA()
	// Each detail is written in scratch, then copied into a chunk it
	// shares with the next ones: no buffer is grown and copied again.
	var scratch, chunk []byte
	for i, r := range rs {
		var err error
		if scratch, err = r.Score.AppendJSON(scratch[:0]); err != nil {
			return nil, nil, err
		}
		if len(chunk)+len(scratch) > cap(chunk) {
			chunk = make([]byte, 0, max(len(scratch), detailChunk))
		}
		start := len(chunk)
		chunk = append(chunk, scratch...)
		detail := json.RawMessage(chunk[start:len(chunk):len(chunk)])
		class := ""
		if r.Score.SuggestedClass != nil {
			class = string(*r.Score.SuggestedClass)
		}
		gold := store.GoldSHANone
		if r.Case != nil {
			gold = store.GoldSHA(r.Case.GoldOrigin, r.Case.Case.Gold)
		}
		// Only a suggestion with substance becomes a case: a trace the
		// machine has nothing to say about stays unlabeled ("none").
		if r.Suggested != nil && (r.Score.SuggestedClass != nil || !isEmptyGold(r.Suggested.Gold)) {
			sugg = append(sugg, store.Suggestion{TraceID: r.Score.TraceID, Gold: r.Suggested.Gold,
				Label: scoring.SuggestLabel(r.Score), Case: r.Case})
			if r.Case == nil {
				gold = store.GoldSHA(store.OriginMachine, r.Suggested.Gold)
			}
		}
		rows[i] = store.ScoreRow{TraceID: r.Score.TraceID, SuggestedClass: class, Markers: len(r.Score.Markers) + r.Score.MarkersMore,
			NeedsReview: r.Score.NeedsHumanReview, Correct: r.Score.Correct, Grounded: r.Score.Grounded,
			Detail: detail, GoldSHA: gold, ConfigSHA: sha, Metrics: metricsOf(r.Score), Encodes: r.Encodes}
	}
	return rows, sugg, nil
}
