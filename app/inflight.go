package app

import (
	"context"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
)

// inflightBatch is how many fresh traces the import's scorer takes at a
// time: enough for one peer query per batch, few enough that the scores
// follow the rows closely.
const inflightBatch = 200

// An import scores its fresh traces (new, no case waiting for them; see
// store.Importer.PutNewTrace) on a goroutine of its own while the import
// goes on (importPipe.score), so scoring overlaps parsing and writing and
// no trace is read back from the database to be scored. A fresh trace
// scores as ScoreTraces would score it after the commit: it has no case,
// so it is scored against the gold suggested from the glossary and its
// question's peers, and its peers are traces with a person's gold or a
// confirmed label, which this import does not write (the traces a stored
// case waits for are not fresh: they, and the traces they teach, are
// scored after the commit, as before).

// scoredBatch is a batch of fresh traces scored, for the import to put.
type scoredBatch struct {
	rows []store.ScoreRow
	sugg []store.Suggestion
	err  error
}

// scoreFresh scores one batch of fresh traces (scoreTraces' work for
// traces without a case) and makes their rows.
func (e *Engine) scoreFresh(ctx context.Context, ts []*model.Trace, book peerBook) scoredBatch {
	sc, err := e.scorer()
	if err != nil {
		return scoredBatch{err: err}
	}
	if err := book.load(ctx, e.st, ts); err != nil {
		return scoredBatch{err: err}
	}
	rows, sugg, err := e.scoreRows(scoreBatch(sc, ts, nil, book))
	return scoredBatch{rows: rows, sugg: sugg, err: err}
}
