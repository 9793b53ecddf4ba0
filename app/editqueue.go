package app

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tracelab-dev/tracelab/store"
)

// The engine's queue of labeling actions. A front end hands each action
// to the queue as the key is pressed (SubmitEdit, on its own goroutine, so
// the order is the order of the keys) and waits for it apart. One worker
// runs them in that order. When a team database's server cannot be
// reached, the action at the head is kept and tried again with backoff
// until the server is back, and the ones behind it wait their turn: an
// edit made during an outage is neither lost nor reordered. A front end
// shows EditsWaiting and, before it ends, asks the user whether to drop
// them (DropWaitingEdits).
//
// An action runs whole or not at all (one transaction), and each one
// reads the case as stored inside it, so running it again after a lost
// connection applies it once. (A connection lost after COMMIT was sent and
// before its answer came is the one case where the server may have
// applied it: a toggle would then toggle twice. PostgreSQL's fast and
// immediate shutdowns roll open transactions back.)

// EditFunc is one labeling action, run with the queue's context.
type EditFunc func(ctx context.Context) (ActionResult, error)

// PendingEdit is an action handed to the queue.
type PendingEdit struct {
	run  EditFunc
	done chan struct{}
	res  ActionResult
	err  error
}

// Done is closed when the action has landed, failed for a reason other
// than the server being out of reach, or was dropped.
func (p *PendingEdit) Done() <-chan struct{} { return p.done }

// Result is the action's outcome; call it after Done is closed.
func (p *PendingEdit) Result() (ActionResult, error) { return p.res, p.err }

// ErrEditDropped is an action the user gave up on while it waited for
// the database (DropWaitingEdits) or the engine closed first.
var ErrEditDropped = errors.New("edit dropped: the database could not be reached")

// EditsWaiting is the queue as a front end shows it: N actions not yet
// written because the database cannot be reached (0 when it answers), and
// the error the last try gave.
type EditsWaiting struct {
	N     int
	Err   error
	Tries int // tries of the action at the head so far
}

// editQueue is the queue's state (Engine.edits).
type editQueue struct {
	mu      sync.Mutex
	q       []*PendingEdit
	running bool
	closed  bool
	lost    error // the head's last error while the server is out of reach
	tries   int
	drop    chan struct{} // closed by DropWaitingEdits: stop retrying
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// editBackoff is how long the head waits before its next try: 250 ms,
// doubling, at most 5 s.
func editBackoff(tries int) time.Duration {
	d := 250 * time.Millisecond << min(tries-1, 5)
	return min(d, 5*time.Second)
}

// SubmitEdit queues an action behind the ones already queued and returns
// at once; the action runs when its turn comes.
func (l LabelService) SubmitEdit(run EditFunc) *PendingEdit {
	e := l.e
	p := &PendingEdit{run: run, done: make(chan struct{})}
	q := &e.edits
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		p.err = ErrEditDropped
		close(p.done)
		return p
	}
	q.q = append(q.q, p)
	if q.ctx == nil {
		q.ctx, q.cancel = context.WithCancel(context.Background())
		q.drop = make(chan struct{})
	}
	if !q.running {
		q.running = true
		q.wg.Add(1)
		go e.runEdits()
	}
	return p
}

// EditsWaiting says how many actions wait for the database to come back.
func (l LabelService) EditsWaiting() EditsWaiting {
	e := l.e
	q := &e.edits
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.lost == nil {
		return EditsWaiting{}
	}
	return EditsWaiting{N: len(q.q), Err: q.lost, Tries: q.tries}
}

// DropWaitingEdits gives up on the actions waiting for the database (the
// user chose to quit without them) and says how many there were. Each
// ends with ErrEditDropped; the one being tried ends when its try does.
func (l LabelService) DropWaitingEdits() int {
	e := l.e
	q := &e.edits
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.lost == nil || len(q.q) == 0 {
		return 0
	}
	n := len(q.q)
	for _, p := range q.q[1:] {
		p.err = ErrEditDropped
		close(p.done)
	}
	q.q = q.q[:1]
	select {
	case <-q.drop:
	default:
		close(q.drop)
	}
	return n
}

// runEdits is the worker: the queue's actions one at a time, in order.
func (e *Engine) runEdits() {
	q := &e.edits
	defer q.wg.Done()
	for {
		q.mu.Lock()
		if len(q.q) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		p, ctx, drop := q.q[0], q.ctx, q.drop
		q.mu.Unlock()
		p.res, p.err = e.tryEdit(ctx, drop, p)
		q.mu.Lock()
		q.q = q.q[1:]
		q.lost, q.tries = nil, 0
		// A drop is for the actions waiting when the user chose it:
		// the ones pressed after it are tried as ever.
		select {
		case <-q.drop:
			q.drop = make(chan struct{})
		default:
		}
		q.mu.Unlock()
		close(p.done)
	}
}

// tryEdit runs an action until it lands or fails for a reason other than
// the server being out of reach, waiting longer between tries.
func (e *Engine) tryEdit(ctx context.Context, drop <-chan struct{}, p *PendingEdit) (ActionResult, error) {
	q := &e.edits
	for tries := 1; ; tries++ {
		res, err := p.run(ctx)
		if err == nil || !store.IsServerLost(err) || ctx.Err() != nil {
			return res, err
		}
		q.mu.Lock()
		q.lost, q.tries = err, tries
		q.mu.Unlock()
		t := time.NewTimer(editBackoff(tries))
		select {
		case <-t.C:
		case <-drop:
			t.Stop()
			return res, ErrEditDropped
		case <-ctx.Done():
			t.Stop()
			return res, ErrEditDropped
		}
	}
}

// stopEdits ends the queue when the engine closes: what still waits is
// dropped (a front end asked the user first).
func (e *Engine) stopEdits() {
	q := &e.edits
	q.mu.Lock()
	q.closed = true
	if q.cancel != nil {
		q.cancel()
	}
	q.mu.Unlock()
	q.wg.Wait()
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, p := range q.q {
		p.err = ErrEditDropped
		close(p.done)
	}
	q.q = nil
}
