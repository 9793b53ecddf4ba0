package app

import (
	"context"
	"time"

	"github.com/tracelab-dev/tracelab/store"
)

// Labeling as a team: reservations and other people's edits.
//
// Opening an unconfirmed trace reserves it for the labeler for the
// reservation time; every action on it renews that and confirming it
// releases it (in the action's own transaction), and taking another trace (opening it or `n`) releases the
// one held before. NextInQueue picks and reserves in one store
// transaction, so two labelers never get the same trace; a reservation
// nobody renewed expires and the trace is back in the queue. Edits are
// never blocked by a reservation: two people on one case write field by
// field, each computed from the stored value, the later write wins, and
// both are in the event log. ChangesSince is what a screen polls to say
// "changed by ana just now".

type (
	Reservation = store.Reservation
	Next        = store.Next
)

// ErrQueueDone: every trace under the filter is confirmed or held by
// another labeler.
var ErrQueueDone = store.ErrQueueDone

// DefaultReservationTTL is how long a reservation lasts unrenewed.
const DefaultReservationTTL = store.DefaultReservationTTL

// SetReservationTTL sets how long a reservation lasts unrenewed (0 or
// less: DefaultReservationTTL).
func (e *Engine) SetReservationTTL(d time.Duration) { e.st.SetReservationTTL(d) }

// Reserve reserves a trace for who (opening it), or renews who's
// reservation; it says who holds the trace now, which is someone else
// when they hold it, and nobody for a confirmed trace.
func (q QueueService) Reserve(ctx context.Context, traceID, who string) (Reservation, error) {
	if q.e.ReadOnly() {
		return Reservation{}, nil // browsing a read-only file takes nothing from anyone
	}
	// Opening a trace is the labeler at the keys, as n is (see Next): on
	// SQLite the reservation waits for the one writer.
	defer q.e.fg.enter()()
	return q.e.st.Reserve(ctx, traceID, who)
}

// Release gives up who's reservation of a trace ("": whatever who holds),
// e.g. when the workbench closes.
func (q QueueService) Release(ctx context.Context, traceID, who string) error {
	if q.e.ReadOnly() {
		return nil
	}
	return q.e.st.Release(ctx, traceID, who)
}

// Next hands who the next trace to label after the trace after (in
// q's filter and order, wrapping to the top): unconfirmed, held by nobody
// else, and reserved for who in the same step. ErrQueueDone when none is
// left.
func (qs QueueService) Next(ctx context.Context, who string, q Query, after string) (Next, error) {
	// The labeler is at the keys: the background rescore's pause counts
	// from the end of an n as from an action's, and its batch writes give
	// way to it (an n reserves: on SQLite it waits for the one writer).
	defer qs.e.fg.enter()()
	return qs.e.st.NextInQueue(ctx, q, after, who)
}

// ChangesSince lists the edits other labelers made to a trace's case after
// event id since, and the newest event id of the case: pass that back
// next time. since < 0 asks only for that id (where to start).
func (q QueueService) ChangesSince(ctx context.Context, traceID, who string, since int64) ([]Event, int64, error) {
	return q.e.st.EventsSince(ctx, traceID, who, since)
}
