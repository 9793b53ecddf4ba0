// Package intake receives traces live: OTLP/HTTP (protobuf and JSON, gzip)
// and OTLP/gRPC. A request's spans go through one bounded queue to one
// writer, which commits them (and the traces they rebuild) before the
// request is answered: acknowledged means stored. When the queue is full
// the request is refused with a retryable status rather than buffered, so
// memory stays bounded whatever the senders do.
package intake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tracelab-dev/tracelab/app"
)

// Ingester stores a batch of spans and the traces they rebuild; the
// engine's imports (app.ImportService.IngestLive) are the one in use.
type Ingester interface {
	IngestLive(ctx context.Context, file string, spans []app.LiveSpan) (app.LiveResult, error)
}

// Config steers a receiver. Zero values take the defaults below.
type Config struct {
	Token      string        // bearer token every request must carry ("": none)
	MaxBody    int64         // bytes of one request, compressed and decompressed
	QueueBytes int64         // bytes of span records waiting to be written, and of what reading them made, at most
	BatchSpans int           // spans written in one transaction, at most
	Decoders   int           // requests decoded at once, at most
	LogEvery   time.Duration // how often the counts are logged (0: never)
	Log        io.Writer     // where they go (nil: nowhere)
	Source     string        // the traces' source file name
}

const (
	defaultMaxBody    = 16 << 20
	defaultQueueBytes = 64 << 20
	defaultBatchSpans = 4096
	// retryAfter is the Retry-After a refused sender is told, in seconds.
	retryAfter = 1
)

func (c *Config) fill() {
	if c.MaxBody <= 0 {
		c.MaxBody = defaultMaxBody
	}
	if c.QueueBytes <= 0 {
		c.QueueBytes = defaultQueueBytes
	}
	if c.BatchSpans <= 0 {
		c.BatchSpans = defaultBatchSpans
	}
	if c.Decoders <= 0 {
		c.Decoders = 4
	}
	if c.Source == "" {
		c.Source = "otlp"
	}
}

// Errors a handler turns into a status.
var (
	errBusy   = errors.New("the store is not keeping up: retry later")
	errClosed = errors.New("the receiver is shutting down: retry later")
)

// Receiver is the queue and the writer behind both protocols.
type Receiver struct {
	cfg    Config
	eng    Ingester
	decode chan struct{} // a slot per request being decoded
	jobs   chan *job
	queued atomic.Int64 // record bytes admitted and not yet written

	mu     sync.RWMutex // held to admit a job; Close takes it to stop admitting
	closed bool
	done   chan struct{} // the writer has finished

	// Counts for the log line and /healthz.
	Received, Stored, Rejected, Refused atomic.Int64
}

type job struct {
	b    *batch
	done chan error
}

// New starts a receiver's writer; Close stops it.
func New(eng Ingester, cfg Config) *Receiver {
	cfg.fill()
	r := &Receiver{cfg: cfg, eng: eng, decode: make(chan struct{}, cfg.Decoders),
		jobs: make(chan *job, 1024), done: make(chan struct{})}
	go r.write()
	return r
}

// acquire takes a decode slot without waiting: a sender that finds all
// taken is told to come back rather than held (and its body kept).
func (r *Receiver) acquire() bool {
	select {
	case r.decode <- struct{}{}:
		return true
	default:
		return false
	}
}

func (r *Receiver) release() { <-r.decode }

// submit hands a checked batch to the writer and waits until it is
// committed (nil) or failed. errBusy when the queue is full.
func (r *Receiver) submit(ctx context.Context, b *batch) error {
	r.Received.Add(int64(len(b.spans) + b.rejected))
	r.Rejected.Add(int64(b.rejected))
	if len(b.spans) == 0 {
		return nil
	}
	b.fit(r.cfg.QueueBytes)
	j := &job{b: b, done: make(chan error, 1)}
	r.mu.RLock()
	switch {
	case r.closed:
		r.mu.RUnlock()
		r.Refused.Add(int64(len(b.spans)))
		return errClosed
	case r.queued.Add(int64(b.bytes)) > r.cfg.QueueBytes:
		r.queued.Add(-int64(b.bytes))
		r.mu.RUnlock()
		r.Refused.Add(int64(len(b.spans)))
		return errBusy
	}
	select {
	case r.jobs <- j:
	default:
		r.queued.Add(-int64(b.bytes))
		r.mu.RUnlock()
		r.Refused.Add(int64(len(b.spans)))
		return errBusy
	}
	r.mu.RUnlock()
	// The job is the writer's now: it is written even if the sender
	// leaves, and the answer waits for the commit.
	select {
	case err := <-j.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// write is the one writer: it takes the waiting jobs together, up to
// BatchSpans spans, and commits them in one transaction.
func (r *Receiver) write() {
	defer close(r.done)
	for j := range r.jobs {
		group := []*job{j}
		n := len(j.b.spans)
	more:
		for n < r.cfg.BatchSpans {
			select {
			case j2, ok := <-r.jobs:
				if !ok {
					break more
				}
				group = append(group, j2)
				n += len(j2.b.spans)
			default:
				break more
			}
		}
		r.commit(group)
	}
}

// commit writes a group of jobs in one transaction; when that fails, each
// job is tried alone so one bad request does not fail the others.
func (r *Receiver) commit(group []*job) {
	var spans []app.LiveSpan
	size := 0
	for _, j := range group {
		spans = append(spans, j.b.spans...)
		size += j.b.bytes
	}
	defer r.queued.Add(-int64(size))
	// The writer's context is not a request's: a sender that gives up
	// does not undo what others sent with it.
	_, err := r.eng.IngestLive(context.Background(), r.cfg.Source, spans)
	if err == nil || len(group) == 1 {
		for _, j := range group {
			if err == nil {
				r.Stored.Add(int64(len(j.b.spans)))
			}
			j.done <- err
		}
		return
	}
	for _, j := range group {
		_, err := r.eng.IngestLive(context.Background(), r.cfg.Source, j.b.spans)
		if err == nil {
			r.Stored.Add(int64(len(j.b.spans)))
		}
		j.done <- err
	}
}

// Close stops admitting requests, lets the writer finish what was
// admitted, and returns when it has.
func (r *Receiver) Close() {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.jobs)
	}
	r.mu.Unlock()
	<-r.done
}

// Queued is the record bytes waiting for the writer.
func (r *Receiver) Queued() int64 { return r.queued.Load() }

// LogLine is the periodic line: what came in, what was stored, what was
// refused.
func (r *Receiver) LogLine() string {
	return fmt.Sprintf("serve: %d span(s) received, %d stored, %d rejected, %d refused (busy), %d KiB queued",
		r.Received.Load(), r.Stored.Load(), r.Rejected.Load(), r.Refused.Load(), r.queued.Load()>>10)
}

// LogLoop writes LogLine every LogEvery until ctx ends.
func (r *Receiver) LogLoop(ctx context.Context) {
	if r.cfg.LogEvery <= 0 || r.cfg.Log == nil {
		return
	}
	t := time.NewTicker(r.cfg.LogEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fmt.Fprintln(r.cfg.Log, r.LogLine())
		}
	}
}
