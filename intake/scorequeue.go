package intake

import "sync"

const (
	// scoreBatch is how many traces the scorer rescores in one run.
	scoreBatch = 2048
	// maxUnscored bounds the traces stored and waiting to be scored: past
	// it the writer waits for the scorer, its queue fills, and senders are
	// told to retry, so a flood of new trace ids costs bounded memory.
	maxUnscored = 50000
)

// scoreQueue holds the traces the writer stored and the scorer has not
// scored yet, each once: a trace whose spans arrive in many requests
// before the scorer gets to it is scored once, in its latest state.
type scoreQueue struct {
	mu      sync.Mutex
	changed *sync.Cond // signalled on add, take and close
	max     int
	order   []string
	pending map[string]bool
	closed  bool
}

func newScoreQueue(max int) *scoreQueue {
	q := &scoreQueue{max: max, pending: map[string]bool{}}
	q.changed = sync.NewCond(&q.mu)
	return q
}

// add queues ids, waiting while the queue is full.
func (q *scoreQueue) add(ids []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, id := range ids {
		if q.pending[id] {
			continue // queued already: scored once, in its latest state
		}
		for len(q.order) >= q.max && !q.closed {
			q.changed.Wait()
		}
		q.pending[id] = true
		q.order = append(q.order, id)
	}
	q.changed.Broadcast()
}

// take waits for queued ids and returns up to n of them, oldest first;
// ok is false once the queue is closed and empty.
func (q *scoreQueue) take(n int) (ids []string, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.order) == 0 && !q.closed {
		q.changed.Wait()
	}
	if len(q.order) == 0 {
		return nil, false
	}
	n = min(n, len(q.order))
	ids = append([]string(nil), q.order[:n]...)
	q.order = append(q.order[:0], q.order[n:]...)
	for _, id := range ids {
		delete(q.pending, id)
	}
	q.changed.Broadcast()
	return ids, true
}

func (q *scoreQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.order)
}

// close lets take drain what is queued and then report the end.
func (q *scoreQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.changed.Broadcast()
}
