package app

import (
	"context"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/tracelab-dev/tracelab/model"
)

// byteBudget bounds the bytes of records an import holds decoded at once
// (issue 27 item 10). Counting records alone let the parser run 256
// prepared records ahead of the writer and the writer hand 200 traces at
// a time to the scorer: harmless for traces of a few kilobytes, a Go
// fatal "out of memory" for a file of several 20 MB records under a
// memory limit. The parser waits for room for a big line before it
// decodes it (room) and takes the record's bytes once decoded, before
// handing it on; whoever is last done with the record gives them back:
// the writer for a record it does not send to the scorer, the scorer
// once the record's batch is scored. A record bigger than the budget
// takes all of it, so the budget (importers.InFlightBudget: at least the
// record cap) holds one record of the most a record may take, with the
// parser reading the next line, while small records still flow by the
// hundred.
type byteBudget struct {
	sem  *semaphore.Weighted
	size int64
	// starved carries the parser's "waiting for bytes" to the writer,
	// which holds the batch of traces it has not yet sent the scorer: a
	// batch that is not full would otherwise wait for records the parser
	// cannot decode until that batch is scored.
	starved chan struct{}
	waits   atomic.Int64 // times the parser waited, for tests
}

func newByteBudget(size int64) *byteBudget {
	return &byteBudget{sem: semaphore.NewWeighted(size), size: size, starved: make(chan struct{}, 1)}
}

// weigh is what a record of n bytes takes of the budget: n, at most all
// of it.
func (b *byteBudget) weigh(n int64) int64 { return min(max(n, 0), b.size) }

// acquire takes n bytes (weighed), waiting for them if need be, and tells
// the writer when it waits.
func (b *byteBudget) acquire(ctx context.Context, n int64) error {
	if n == 0 || b.sem.TryAcquire(n) {
		return nil
	}
	b.waits.Add(1)
	select {
	case b.starved <- struct{}{}:
	default: // the writer has been told already
	}
	return b.sem.Acquire(ctx, n)
}

// room waits until the budget has room for a record of n bytes (weighed)
// and takes none of it: the parser asks before it decodes a big line, so
// that a record is not decoded while the budget is spent, only to wait
// for it decoded (importers.Options.Room). Only the parser takes bytes,
// so the room is still there when it takes them for the decoded record.
func (b *byteBudget) room(ctx context.Context, n int64) error {
	n = b.weigh(n)
	if err := b.acquire(ctx, n); err != nil {
		return err
	}
	b.release(n)
	return nil
}

// release gives back n bytes taken with acquire.
func (b *byteBudget) release(n int64) {
	if n > 0 {
		b.sem.Release(n)
	}
}

// traceBytes is about the bytes t holds once decoded: its text and raw
// JSON, which for a big record is nearly all of it and near the size of
// the record as read.
func traceBytes(t *model.Trace) int64 {
	n := int64(len(t.TraceID) + len(t.Server) + len(t.RunID) + len(t.UserRole) + len(t.AsUser) +
		len(t.Question) + len(t.StartedAt) + len(t.Outcome) + len(t.Model) + len(t.Answer))
	for i := range t.Tools {
		c := &t.Tools[i]
		n += int64(len(c.Name) + len(c.Title) + len(c.Description) + len(c.InputSchema) +
			len(c.OutputSchema) + len(c.Annotations) + len(c.Raw))
	}
	for i := range t.Steps {
		s := &t.Steps[i]
		n += int64(len(s.Kind) + len(s.ID) + len(s.CallID) + len(s.Text) + len(s.Tool) + len(s.Args) +
			len(s.Result) + len(s.AsOf) + len(s.Credential) + len(s.NextCursor))
	}
	return n
}
