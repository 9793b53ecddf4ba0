package app

import (
	"context"
	"sync"
)

// background is an engine's one rescoring worker: a label action scores
// its own trace and marks stale, in its transaction, the traces of the
// question whose suggested gold it changed (store.Group.Peers); the worker
// scores whatever is marked after the action has returned. It is single
// flight: a request while it runs makes it run once more when done. The
// marks are in the database, so a worker killed midway loses nothing: the
// next workbench open, score or ScoreOf picks them up.
type background struct {
	mu      sync.Mutex
	running bool
	again   bool
	closed  bool
	pending []string      // traces whose takers to mark again before the next run
	done    chan struct{} // closed when the current run ends
	err     error         // the last run's error
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	// hold, when set (tests), is called at the start of each run: a test
	// blocks it to catch the marks before the rescore.
	hold func(context.Context)
}

// rescoreInBackground asks the worker to rescore the marked traces, the
// takers of traceIDs' questions marked again first (see run).
func (e *Engine) rescoreInBackground(traceIDs ...string) {
	b := &e.bg
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.pending = append(b.pending, traceIDs...)
	if b.running {
		b.again = true
		return
	}
	if b.ctx == nil {
		b.ctx, b.cancel = context.WithCancel(context.Background())
	}
	b.running, b.done = true, make(chan struct{})
	b.wg.Add(1)
	go e.runBackground()
}

func (e *Engine) runBackground() {
	b := &e.bg
	defer b.wg.Done()
	for {
		b.mu.Lock()
		ids, hold := b.pending, b.hold
		b.pending, b.again = nil, false
		b.mu.Unlock()
		if hold != nil {
			hold(b.ctx)
		}
		err := e.rescoreMarked(b.ctx, ids)
		b.mu.Lock()
		b.err = err
		if !b.again || b.ctx.Err() != nil {
			b.running = false
			close(b.done)
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
	}
}

// rescoreMarked marks the takers of ids' questions stale once more, then
// scores every marked trace. Marking again closes a race: a run going on
// while an action marked its question may have stored scores computed
// from the peers as they were before the action, clearing the marks.
func (e *Engine) rescoreMarked(ctx context.Context, ids []string) error {
	if _, err := e.st.MarkTakersStale(ctx, ids); err != nil {
		return err
	}
	_, err := e.ScoreUnscored(ctx, nil, nil)
	return err
}

// WaitIdle waits until the background rescore has nothing left to do (or
// ctx ends) and returns the error of its last run.
func (e *Engine) WaitIdle(ctx context.Context) error {
	b := &e.bg
	for {
		b.mu.Lock()
		running, done, err := b.running, b.done, b.err
		b.mu.Unlock()
		if !running {
			return err
		}
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// stopBackground cancels the worker and waits for it; no run starts after.
func (e *Engine) stopBackground() {
	b := &e.bg
	b.mu.Lock()
	b.closed = true
	if b.cancel != nil {
		b.cancel()
	}
	b.mu.Unlock()
	b.wg.Wait()
}
