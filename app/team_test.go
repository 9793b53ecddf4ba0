package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
	"github.com/tracelab-dev/tracelab/store/pgtest"
	"github.com/tracelab-dev/tracelab/suite"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// teamBackends are the databases a team shares: a SQLite file several
// processes open, and a PostgreSQL server (whose subtests skip, saying
// why, only when no server can be had: see pgtest).
var teamBackends = []struct {
	name  string
	fresh func(t *testing.T) string // a new empty database
}{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "team.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.DSN(t) }},
}

func eachTeamBackend(t *testing.T, fn func(t *testing.T, loc string)) {
	for _, b := range teamBackends {
		t.Run(b.name, func(t *testing.T) { fn(t, b.fresh(t)) })
	}
}

// teamDatabase fills the database at loc with the bundled traces, scored,
// every one queued for labeling.
func teamDatabase(t *testing.T, loc string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../testdata/traces/*.jsonl")
	for _, f := range files {
		if _, err := importFile(ctx, st, nil, f, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e, err := newEngine(ctx, st, Files{Lineage: "../testdata/lineage.json"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.SetPolicy(policy(t))
	if _, err := e.Scores.Rescore(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	ids, err := st.TraceIDs(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Queue.Set(ctx, ids); err != nil {
		t.Fatal(err)
	}
}

// labelerEngine opens its own engine (its own connections, as another
// process would) on the database at path.
func labelerEngine(t *testing.T, path string) *Engine {
	t.Helper()
	e, err := Open(context.Background(), path, Files{Lineage: "../testdata/lineage.json"})
	if err != nil {
		t.Fatal(err)
	}
	e.SetPolicy(policy(t))
	t.Cleanup(func() { e.Close() })
	return e
}

// teamLog is what the labelers of a run did, by trace.
type teamLog struct {
	mu      sync.Mutex
	handed  map[string][]string // trace -> labelers it was handed to
	changed map[string]int      // case id -> fields the actions said they changed
	want    map[string]model.Label
}

func (l *teamLog) add(f func()) { l.mu.Lock(); f(); l.mu.Unlock() }

// TestEightLabelersShareOneQueue: eight labelers, each with their own
// engine, take the next trace with `n` and label it until the queue is
// empty, and meanwhile all edit one hot case no queue hands out: every
// trace is labeled by exactly one of them, nothing any of them wrote is
// lost, and the event log holds every change.
func TestEightLabelersShareOneQueue(t *testing.T) {
	eachTeamBackend(t, eightLabelers)
}

func eightLabelers(t *testing.T, path string) {
	teamDatabase(t, path)
	ctx := context.Background()
	const hot = "trace_9f31c2"
	setup := labelerEngine(t, path)
	if err := setup.Queue.Set(ctx, without(t, setup, hot)); err != nil {
		t.Fatal(err)
	}
	// The fields the machine suggests for it before anyone writes (the
	// task-specific trace of its question teaches them through its
	// tools' contracts) stay beside every labeler's.
	var base []string
	if rec, err := setup.Traces.CaseForTrace(ctx, hot); err != nil {
		t.Fatal(err)
	} else if rec != nil {
		base = rec.Case.Gold.RequiredFields
	}
	log := &teamLog{handed: map[string][]string{}, changed: map[string]int{}, want: map[string]model.Label{}}
	classes := []model.FailureClass{model.ClassEntity, model.ClassSemantic, model.ClassStructural, model.ClassTemporal}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		who := fmt.Sprintf("labeler%d", w)
		eng := labelerEngine(t, path)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := labelUntilEmpty(ctx, eng, who, hot, classes[w%len(classes)], log); err != nil {
				errs <- fmt.Errorf("%s: %w", who, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	queued, _, err := setup.Traces.ListTraces(ctx, Query{Filter: Filter{QueuedOnly: true}, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(queued) == 0 || len(log.handed) != len(queued) {
		t.Fatalf("%d traces handed out of %d queued", len(log.handed), len(queued))
	}
	for _, r := range queued {
		who := log.handed[r.TraceID]
		if len(who) != 1 {
			t.Errorf("%s handed to %v, want exactly one labeler", r.TraceID, who)
			continue
		}
		rec, err := setup.Traces.CaseForTrace(ctx, r.TraceID)
		if err != nil || rec == nil {
			t.Fatalf("%s: case %v %v", r.TraceID, rec, err)
		}
		if rec.Status != model.StatusConfirmed || rec.ConfirmedBy != who[0] {
			t.Errorf("%s: %s by %q, want confirmed by %s", r.TraceID, rec.Status, rec.ConfirmedBy, who[0])
		}
		if got, want := suite.LabelText(rec.Case.Label), suite.LabelText(log.want[r.TraceID]); got != want {
			t.Errorf("%s: label %s, want what %s set: %s", r.TraceID, got, who[0], want)
		}
		evs, err := setup.Traces.Events(ctx, rec.Case.CaseID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.Who != who[0] {
				t.Errorf("%s: event %d by %s, but %s had the trace", r.TraceID, e.ID, e.Who, who[0])
			}
		}
		if len(evs) != log.changed[rec.Case.CaseID] {
			t.Errorf("%s: %d events, the actions changed %d fields", r.TraceID, len(evs), log.changed[rec.Case.CaseID])
		}
		if r.ReservedBy != "" {
			t.Errorf("%s still reserved by %s after its confirm", r.TraceID, r.ReservedBy)
		}
	}
	if _, err := setup.Queue.Next(ctx, "late", Query{Filter: Filter{QueuedOnly: true}}, ""); !errors.Is(err, ErrQueueDone) {
		t.Errorf("the queue is not empty after the run: %v", err)
	}
	checkHotCase(t, setup, hot, base, log)
}

// labelUntilEmpty is one labeler's session: n, label, confirm, again, with
// an edit of the hot case after each trace.
func labelUntilEmpty(ctx context.Context, eng *Engine, who, hot string, class model.FailureClass, log *teamLog) error {
	after := ""
	for i := 0; ; i++ {
		n, err := eng.Queue.Next(ctx, who, Query{Filter: Filter{QueuedOnly: true}}, after)
		if errors.Is(err, ErrQueueDone) {
			return nil
		}
		if err != nil {
			return err
		}
		log.add(func() { log.handed[n.TraceID] = append(log.handed[n.TraceID], who) })
		var last ActionResult
		for _, act := range []func() (ActionResult, error){
			func() (ActionResult, error) { return eng.Labels.SetClass(ctx, n.TraceID, who, &class) },
			func() (ActionResult, error) { return eng.Labels.ToggleCorrect(ctx, n.TraceID, who) },
			func() (ActionResult, error) { return eng.Labels.ToggleGrounded(ctx, n.TraceID, who) },
			func() (ActionResult, error) { return eng.Labels.ConfirmLabel(ctx, n.TraceID, who, true) },
		} {
			res, err := act()
			if err != nil {
				return fmt.Errorf("%s: %w", n.TraceID, err)
			}
			log.add(func() { log.changed[res.Case.Case.CaseID] += len(res.Changed) })
			last = res
		}
		log.add(func() { log.want[n.TraceID] = last.Case.Case.Label })
		// The hot case: one field everybody writes (the gold's
		// definition, shared by the case, where the last write wins; each
		// labeler's label of it is their own) and a list each adds their own entry to (computed
		// from the stored list, so no entry may go missing).
		for _, ed := range []func() (ActionResult, error){
			func() (ActionResult, error) {
				return eng.Labels.EditFields(ctx, hot, who, FieldEdit{"gold.definition", jsonOf(fmt.Sprintf("%s %d", who, i))})
			},
			func() (ActionResult, error) {
				return eng.Labels.MarkField(ctx, hot, who, fmt.Sprintf("by_%s.field_%d", who, i), true)
			},
		} {
			res, err := ed()
			if err != nil {
				return fmt.Errorf("hot case: %w", err)
			}
			log.add(func() { log.changed[res.Case.Case.CaseID] += len(res.Changed) })
		}
		after = n.TraceID
	}
}

// checkHotCase: every labeler's list entries are in the hot case, its
// definition is the last one written, and its events chain each field's old
// value to the new value before it.
func checkHotCase(t *testing.T, e *Engine, hot string, base []string, log *teamLog) {
	t.Helper()
	ctx := context.Background()
	rec, err := e.Traces.CaseForTrace(ctx, hot)
	if err != nil || rec == nil {
		t.Fatalf("hot case: %v %v", rec, err)
	}
	want := slices.Clone(base)
	perLabeler := map[string]int{}
	for _, whos := range log.handed {
		perLabeler[whos[0]]++
	}
	for who, n := range perLabeler {
		for i := 0; i < n; i++ {
			want = append(want, fmt.Sprintf("by_%s.field_%d", who, i))
		}
	}
	sort.Strings(want)
	if !slices.Equal(rec.Case.Gold.RequiredFields, want) {
		t.Errorf("hot case required fields %v\nwant every labeler's and the suggestion's %v", rec.Case.Gold.RequiredFields, want)
	}
	evs, err := e.Traces.Events(ctx, rec.Case.CaseID)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != log.changed[rec.Case.CaseID] {
		t.Errorf("hot case: %d events, the actions changed %d fields", len(evs), log.changed[rec.Case.CaseID])
	}
	prev := map[string]string{}
	var lastDef string
	for _, ev := range evs {
		if p, ok := prev[ev.Field]; ok && p != string(ev.Old) {
			t.Errorf("hot case event %d (%s by %s): old %s, but the value before was %s", ev.ID, ev.Field, ev.Who, ev.Old, p)
		}
		prev[ev.Field] = string(ev.New)
		if ev.Field == "gold.definition" {
			lastDef = string(ev.New)
		}
	}
	if got := string(jsonOf(rec.Case.Gold.Definition)); got != lastDef {
		t.Errorf("hot case definition %s, the last write was %s", got, lastDef)
	}
}

// without lists every trace id but one.
func without(t *testing.T, e *Engine, id string) []string {
	t.Helper()
	ids, err := e.st.TraceIDs(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(ids, func(s string) bool { return s == id })
}

// TestReservationLifecycle: opening reserves, working renews, walking away
// lets it expire back into the queue, confirming releases.
func TestReservationLifecycle(t *testing.T) {
	eachTeamBackend(t, reservationLifecycle)
}

func reservationLifecycle(t *testing.T, path string) {
	teamDatabase(t, path)
	ctx := context.Background()
	ana, bo := labelerEngine(t, path), labelerEngine(t, path)
	now := time.Date(2026, 7, 4, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	wait := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	ana.st.SetClock(clock)
	bo.st.SetClock(clock)
	ana.SetReservationTTL(10 * time.Minute)
	bo.SetReservationTTL(10 * time.Minute)
	q := Query{Filter: Filter{QueuedOnly: true}}
	first, err := ana.st.TraceIDs(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	a := first[0]

	holder := func(step string, want string) {
		t.Helper()
		r, err := ana.st.Holder(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if r.Labeler != want {
			t.Errorf("%s: %s held by %q, want %q", step, a, r.Labeler, want)
		}
	}
	if r, err := ana.Queue.Reserve(ctx, a, "ana"); err != nil || r.Labeler != "ana" {
		t.Fatalf("ana opens %s: %+v %v", a, r, err)
	}
	if r, _ := bo.Queue.Reserve(ctx, a, "bo"); r.Labeler != "ana" {
		t.Errorf("bo opening ana's trace took it: %+v", r)
	}
	if n, err := bo.Queue.Next(ctx, "bo", q, ""); err != nil || n.TraceID == a {
		t.Errorf("bo's n handed him ana's trace: %+v %v", n, err)
	}
	wait(8 * time.Minute)
	if _, err := ana.Labels.ToggleCorrect(ctx, a, "ana"); err != nil {
		t.Fatal(err)
	}
	wait(8 * time.Minute) // 16 minutes after opening, 8 after her last key
	holder("renewed by working", "ana")
	wait(3 * time.Minute)
	holder("walked away", "")
	if n, err := bo.Queue.Next(ctx, "bo", q, ""); err != nil || n.TraceID != a {
		t.Errorf("after ana's expired, bo's n gave %+v %v, want %s", n, err, a)
	}
	if _, err := bo.Labels.ConfirmLabel(ctx, a, "bo", true); err != nil {
		t.Fatal(err)
	}
	holder("confirmed", "")
	// Edits are never refused for a reservation: ana's late key lands
	// after bo's, and both are in the log.
	if _, err := ana.Labels.ToggleGrounded(ctx, a, "ana"); err != nil {
		t.Fatal(err)
	}
	rec, _ := ana.Traces.CaseForTrace(ctx, a)
	evs, _ := ana.Traces.Events(ctx, rec.Case.CaseID)
	var who []string
	for _, e := range evs {
		who = append(who, e.Who+" "+e.Field)
	}
	if want := []string{"ana label.correct", "bo status", "ana label.grounded"}; !slices.Equal(who, want) {
		t.Errorf("events %v, want %v", who, want)
	}
	// bo sees ana's late edit as a change by someone else.
	chg, last, err := bo.Queue.ChangesSince(ctx, a, "bo", evs[1].ID)
	if err != nil || len(chg) != 1 || chg[0].Who != "ana" || last != evs[2].ID {
		t.Errorf("bo's poll: %+v last %d %v", chg, last, err)
	}
}
