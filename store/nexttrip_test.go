package store

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"sync/atomic"
	"testing"
)

// tripConn counts the requests sent on a connection: a write after an
// answer (or the first write) starts one, so a batch is one however many
// writes it takes. pgx's pings of an idle connection are not counted.
type tripConn struct {
	net.Conn
	trips   *atomic.Int64
	waiting atomic.Bool // a request was sent and no byte of its answer read
}

func (c *tripConn) Write(b []byte) (int, error) {
	if !bytes.Contains(b, []byte("-- ping")) && !c.waiting.Swap(true) {
		c.trips.Add(1)
	}
	return c.Conn.Write(b)
}

func (c *tripConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.waiting.Store(false)
	}
	return n, err
}

// openCountingTrips opens openQueue's six traces on PostgreSQL through
// one connection whose round trips it counts.
func openCountingTrips(t *testing.T) (*Store, *atomic.Int64) {
	t.Helper()
	base, _ := openQueue(t, backends[1], 6)
	trips := &atomic.Int64{}
	st := backends[1].openAt(t, base.Path(), Options{wrapConn: func(c net.Conn) net.Conn {
		return &tripConn{Conn: c, trips: trips}
	}})
	st.db.SetMaxOpenConns(1)
	return st, trips
}

// TestNextInQueueIsOneRoundTrip: on PostgreSQL, an n that finds a trace
// free is one round trip (oneTrip), from the top of the queue or after
// the trace the labeler had: with 50 labelers on two cores each round
// trip waited for the server and the client to be scheduled, and the
// second one with the picked trace locked. The queue's order and the
// reservations are TestNextInQueue's.
func TestNextInQueueIsOneRoundTrip(t *testing.T) {
	ctx := context.Background()
	st, trips := openCountingTrips(t) // its statements prepared once, below
	for _, tc := range []struct {
		name, after string
	}{
		{"from the top", ""},
		{"after a trace", "q001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The first n of this shape prepares its statements.
			if _, err := st.NextInQueue(ctx, Query{}, tc.after, "ann"); err != nil {
				t.Fatal(err)
			}
			before := trips.Load()
			n, err := st.NextInQueue(ctx, Query{}, tc.after, "ann")
			if err != nil {
				t.Fatal(err)
			}
			if got := trips.Load() - before; got != 1 {
				t.Errorf("n took %d round trips, want 1", got)
			}
			r, err := st.Holder(ctx, n.TraceID)
			if err != nil || r.Labeler != "ann" {
				t.Errorf("%s after n: held by %q (%v), want ann", n.TraceID, r.Labeler, err)
			}
		})
	}
}

// TestWarmedFirstKeysTakeTheirTrips: after WarmLabeling, a labeler's
// first n is one round trip and their first edit as many as the next
// one: the warm-up prepared every statement they send, COMMIT too (the
// rehearsals roll back).
func TestWarmedFirstKeysTakeTheirTrips(t *testing.T) {
	ctx := context.Background()
	st, trips := openCountingTrips(t) // the warm-up's connection is the keys'
	if err := st.WarmLabeling(ctx, Query{}); err != nil {
		t.Fatal(err)
	}
	counted := func(what string, fn func() error) int64 {
		t.Helper()
		before := trips.Load()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return trips.Load() - before
	}
	var n Next
	if got := counted("n", func() (err error) { n, err = st.NextInQueue(ctx, Query{}, "", "ann"); return err }); got != 1 {
		t.Errorf("the first n took %d round trips, want 1", got)
	}
	edit := func(v string) func() error {
		return func() error {
			_, err := st.EditGroup(ctx, n.TraceID, "ann", false, func(*CaseRecord) ([]FieldChange, error) {
				return []FieldChange{{Field: "label.correct", Value: json.RawMessage(v)}}, nil
			})
			return err
		}
	}
	first := counted("the first edit", edit(`true`))
	if next := counted("the next edit", edit(`false`)); first != next {
		t.Errorf("the first edit took %d round trips, the next %d", first, next)
	}
}

// TestConfirmTakesAnEditsTrips: on PostgreSQL a confirm, which marks its
// question's takers stale (it makes the case teach), takes as many round
// trips as an edit that marks nothing: the mark goes with the COMMIT
// (markAfterEditTx). Sent on its own it was two more round trips (the
// queued writes, then the mark) with the trace's lock held, and confirms
// made the 50-labeler bench's slowest edits (bench labelers -ops).
func TestConfirmTakesAnEditsTrips(t *testing.T) {
	ctx := context.Background()
	st, trips := openCountingTrips(t)
	edit := func(field, v string) int64 {
		t.Helper()
		before := trips.Load()
		g, err := st.EditGroup(ctx, "q001", "ann", false, func(*CaseRecord) ([]FieldChange, error) {
			return []FieldChange{{Field: field, Value: json.RawMessage(v)}}, nil
		})
		if err != nil || len(g.Events) != 1 {
			t.Fatalf("%s = %s: %v, %d events", field, v, err, len(g.Events))
		}
		return trips.Load() - before
	}
	edit("label.correct", `true`) // makes the case, prepares the statements
	edit("status", `"confirmed"`)
	edit("status", `"suggested"`)
	plain := edit("label.correct", `false`)
	if got := edit("status", `"confirmed"`); got != plain {
		t.Errorf("a confirm took %d round trips, an edit %d", got, plain)
	}
}
