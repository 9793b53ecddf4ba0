package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store/pgtest"
)

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after %v for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEditsWaitOutAnOutage: a labeler's keys pressed while the team
// database's server is down were never written and never retried. Now
// they wait in the engine's queue, in order, are counted as waiting for
// the database, and land once the server is back.
func TestEditsWaitOutAnOutage(t *testing.T) {
	srv := pgtest.NewOwn(t)
	teamDatabase(t, srv.DSN())
	ctx := context.Background()
	e := labelerEngine(t, srv.DSN())
	ids, err := e.st.TraceIDs(ctx, Filter{})
	if err != nil || len(ids) < 2 {
		t.Fatalf("trace ids: %v %v", ids, err)
	}
	a, b := ids[0], ids[1]
	sem := model.ClassSemantic
	before := func(id string) model.Label {
		rec, err := e.Traces.CaseForTrace(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return rec.Case.Label
	}
	wantA, wantB := !truth(before(a).Correct), !truth(before(b).Grounded)
	wantA = !wantA // toggled twice

	srv.Stop()
	edits := []*PendingEdit{
		e.Labels.SubmitEdit(func(ctx context.Context) (ActionResult, error) { return e.Labels.ToggleCorrect(ctx, a, "ana") }),
		e.Labels.SubmitEdit(func(ctx context.Context) (ActionResult, error) { return e.Labels.SetClass(ctx, a, "ana", &sem) }),
		e.Labels.SubmitEdit(func(ctx context.Context) (ActionResult, error) { return e.Labels.ToggleCorrect(ctx, a, "ana") }),
		e.Labels.SubmitEdit(func(ctx context.Context) (ActionResult, error) { return e.Labels.ToggleGrounded(ctx, b, "ana") }),
	}
	waitFor(t, "4 edits waiting for the database", 30*time.Second, func() bool { return e.Labels.EditsWaiting().N == 4 })
	if w := e.Labels.EditsWaiting(); w.Err == nil || !IsUnavailable(w.Err) {
		t.Errorf("the waiting edits' error is %v, want the server out of reach", w.Err)
	}
	for _, p := range edits {
		select {
		case <-p.Done():
			_, err := p.Result()
			t.Fatalf("an edit ended during the outage: %v", err)
		default:
		}
	}

	srv.Start()
	for i, p := range edits {
		select {
		case <-p.Done():
		case <-time.After(60 * time.Second):
			t.Fatalf("edit %d still waiting a minute after the server came back (%+v)", i, e.Labels.EditsWaiting())
		}
		if _, err := p.Result(); err != nil {
			t.Errorf("edit %d after the outage: %v", i, err)
		}
	}
	if w := e.Labels.EditsWaiting(); w.N != 0 {
		t.Errorf("after the outage: %+v waiting", w)
	}
	recA, err := e.Traces.CaseForTrace(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	// correct toggled twice around the class: in order, it is back
	// where it was, with the class set.
	if l := recA.Case.Label; l.Correct == nil || *l.Correct != wantA || l.FailureClass == nil || *l.FailureClass != sem {
		t.Errorf("%s after the outage: correct %v class %v, want %v and semantic", a, ptr(l.Correct), l.FailureClass, wantA)
	}
	recB, err := e.Traces.CaseForTrace(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if g := recB.Case.Label.Grounded; g == nil || *g != wantB {
		t.Errorf("%s after the outage: grounded %v, want %v", b, ptr(g), wantB)
	}
}

// TestDropWaitingEdits: quitting during an outage drops the waiting
// edits when the user says so; none of them is written afterwards, and
// an edit made after the drop is kept as ever.
func TestDropWaitingEdits(t *testing.T) {
	srv := pgtest.NewOwn(t)
	teamDatabase(t, srv.DSN())
	ctx := context.Background()
	e := labelerEngine(t, srv.DSN())
	ids, err := e.st.TraceIDs(ctx, Filter{})
	if err != nil || len(ids) == 0 {
		t.Fatalf("trace ids: %v %v", ids, err)
	}
	a := ids[0]
	rec0, err := e.Traces.CaseForTrace(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	l0 := rec0.Case.Label
	srv.Stop()
	edits := []*PendingEdit{
		e.Labels.SubmitEdit(func(ctx context.Context) (ActionResult, error) { return e.Labels.ToggleCorrect(ctx, a, "ana") }),
		e.Labels.SubmitEdit(func(ctx context.Context) (ActionResult, error) { return e.Labels.ToggleGrounded(ctx, a, "ana") }),
	}
	waitFor(t, "2 edits waiting", 30*time.Second, func() bool { return e.Labels.EditsWaiting().N == 2 })
	if n := e.Labels.DropWaitingEdits(); n != 2 {
		t.Errorf("dropped %d, want 2", n)
	}
	for i, p := range edits {
		select {
		case <-p.Done():
		case <-time.After(30 * time.Second):
			t.Fatalf("dropped edit %d never ended", i)
		}
		if _, err := p.Result(); !errors.Is(err, ErrEditDropped) {
			t.Errorf("dropped edit %d: %v", i, err)
		}
	}
	after := e.Labels.SubmitEdit(func(ctx context.Context) (ActionResult, error) { return e.Labels.ToggleCorrect(ctx, a, "ana") })
	srv.Start()
	select {
	case <-after.Done():
	case <-time.After(60 * time.Second):
		t.Fatal("the edit after the drop never landed")
	}
	if _, err := after.Result(); err != nil {
		t.Errorf("the edit after the drop: %v", err)
	}
	rec, err := e.Traces.CaseForTrace(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if c, g := rec.Case.Label.Correct, rec.Case.Label.Grounded; c == nil || *c != !truth(l0.Correct) || ptr(g) != ptr(l0.Grounded) {
		t.Errorf("after dropping two and keeping one: correct %v grounded %v, want %v and %v", ptr(c), ptr(g), !truth(l0.Correct), ptr(l0.Grounded))
	}
}

func truth(b *bool) bool { return b != nil && *b }

func ptr(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}
