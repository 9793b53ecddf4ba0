package app

import (
	"context"
	"sync"
	"time"
)

// background is an engine's one rescoring worker: a label action scores
// its own trace and marks stale, in its transaction, the question whose
// suggested gold it changed (one row, store.Group.Peers); the worker
// scores whatever is marked once its labeler pauses (quietFor), its
// writes giving way to the actions under way (yieldToActions). It is
// single flight: a request while it runs makes it run once more when
// done. The marks are in the database, so a worker killed midway loses
// nothing: the next workbench open, score or ScoreOf picks them up.
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

	// hold, when set (tests), is called at the start of each run, once
	// the labeler paused: a test blocks it to catch the marks before the
	// rescore.
	hold func(context.Context)
}

// HoldBackground makes every background rescore call hold first, once
// the labeler paused, with the run's context: a test blocks in it to see
// what a front end shows before the peers of an action are rescored. Nil
// removes the hold.
func (e *Engine) HoldBackground(hold func(context.Context)) {
	e.bg.mu.Lock()
	defer e.bg.mu.Unlock()
	e.bg.hold = hold
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
	ctx := context.WithValue(b.ctx, inBackground{}, true)
	for {
		e.fg.quiet(ctx)
		b.mu.Lock()
		hold := b.hold
		b.mu.Unlock()
		if hold != nil {
			hold(ctx)
		}
		// What was asked for until now, the pause included: one run.
		b.mu.Lock()
		ids := b.pending
		b.pending, b.again = nil, false
		b.mu.Unlock()
		err := e.rescoreMarked(ctx, ids)
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
	// One workbench at a time on a shared store (see RescoreTurn): each
	// rescores every marked trace, not only its own.
	release, err := e.st.RescoreTurn(ctx)
	if err != nil {
		return err
	}
	defer release()
	if _, err := e.st.MarkTakersStale(ctx, ids); err != nil {
		return err
	}
	_, err = e.Scores.ScoreUnscored(ctx, nil, nil)
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

// A rescore starts once its workbench's labeler has left the keys alone
// for quietFor (reading the next trace, say), or after quietAtMost of
// keys without such a pause. Started after every confirm instead, the
// rescores of 50 labelers confirming without a pause on one PostgreSQL
// server (bench labelers, 100,000 traces, 400 of them queued) ran on the
// two cores their edits and n ran on: p99 of the edits 268-341 ms over
// four runs, 189-211 ms in two with no rescore at all. A peer opened
// meanwhile is rescored alone first (freshen); the queue's rows show the
// new suggestions once the rescore is done, as before.
const (
	quietFor    = 500 * time.Millisecond
	quietAtMost = 10 * time.Second
)

// inBackground marks the context of the background rescore: its batch
// writes give way to the label actions (yieldToActions).
type inBackground struct{}

// yieldToActions, called before each batch write of a scoring run, waits
// while label actions run when the run is the background's: SQLite has one
// writer, and an action should wait at most for the one batch already
// being written, not for the rescore it started. Other runs go on.
func (e *Engine) yieldToActions(ctx context.Context) error {
	if ctx.Value(inBackground{}) == nil {
		return nil
	}
	return e.fg.wait(ctx)
}

// gate counts the label actions and the n under way (enter) and lets the
// background wait until there are none (wait), or for a pause (quiet).
type gate struct {
	mu   sync.Mutex
	n    int
	free chan struct{} // closed when n drops to 0
	last time.Time     // when the last action ended
	// pause and most are quiet's: quietFor and quietAtMost (engineOver).
	pause, most time.Duration
	// waiting, when set (tests), is called when a wait blocks.
	waiting func()
}

// enter counts an action in until the returned func is called.
func (g *gate) enter() (exit func()) {
	g.mu.Lock()
	if g.n == 0 {
		g.free = make(chan struct{})
	}
	g.n++
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		if g.n--; g.n == 0 {
			close(g.free)
		}
		g.last = time.Now()
		g.mu.Unlock()
	}
}

// wait returns when no action is under way (or ctx ends).
func (g *gate) wait(ctx context.Context) error {
	g.mu.Lock()
	n, free, waiting := g.n, g.free, g.waiting
	g.mu.Unlock()
	if n == 0 {
		return nil
	}
	if waiting != nil {
		waiting()
	}
	select {
	case <-free:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// quiet returns once no action has been under way for the pause (an
// action's end is pause ago, or none ran), or after most (or when ctx
// ends): a pause of the labeler's, or the longest the background waits.
func (g *gate) quiet(ctx context.Context) {
	g.mu.Lock()
	pause, deadline := g.pause, time.Now().Add(g.most)
	g.mu.Unlock()
	for {
		g.mu.Lock()
		wait := pause - time.Since(g.last)
		if g.n > 0 {
			wait = pause
		}
		g.mu.Unlock()
		if wait = min(wait, time.Until(deadline)); wait <= 0 {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}
