package app

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql's "pgx", to read pg_locks
	"github.com/tracelab-dev/tracelab/store"
	"github.com/tracelab-dev/tracelab/store/pgtest"
)

// The teacher of peerEngine's question (task-specific server) and how
// many clones of trace_9f31c2 (generic-warehouse) ask the same question.
const (
	teacher = "trace_4be07a"
	clones  = 60
)

// peerEngine is an engine on the bundled traces plus clones copies of
// trace_9f31c2, all asking one question, scored: every clone takes its
// gold from the question's peers. It returns the database's path too.
func peerEngine(t *testing.T) (*Engine, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.db")
	return peerEngineAt(t, path), path
}

// peerEngineAt is peerEngine on the empty database at loc.
func peerEngineAt(t *testing.T, loc string) *Engine {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	var line string
	f, err := os.Open("../testdata/traces/generic-warehouse.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"trace_id":"trace_9f31c2"`) {
			line = sc.Text()
		}
	}
	f.Close()
	if line == "" {
		t.Fatal("trace_9f31c2 not in generic-warehouse.jsonl")
	}
	var b strings.Builder
	for i := range clones {
		b.WriteString(strings.Replace(line, `"trace_9f31c2"`, fmt.Sprintf(`"clone_%03d"`, i), 1) + "\n")
	}
	clonePath := filepath.Join(dir, "clones.jsonl")
	if err := os.WriteFile(clonePath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../testdata/traces/*.jsonl")
	for _, f := range append(files, clonePath) {
		if _, err := importFile(ctx, st, nil, f, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e := openPeerEngine(t, st)
	if _, err := e.Scores.Rescore(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	return e
}

func openPeerEngine(t *testing.T, st *store.Store) *Engine {
	t.Helper()
	e, err := newEngine(context.Background(), st, Files{Lineage: "../testdata/lineage.json"})
	if err != nil {
		t.Fatal(err)
	}
	e.SetPolicy(policy(t))
	t.Cleanup(func() { e.Close() })
	return e
}

// holdBackground makes the engine's background rescore wait until the
// returned release is called (or the engine is closed).
func holdBackground(e *Engine) (release func()) {
	ch := make(chan struct{})
	e.HoldBackground(func(ctx context.Context) {
		select {
		case <-ch:
		case <-ctx.Done():
		}
	})
	return func() { close(ch) }
}

// takersOf lists the traces of the question of id that take their gold
// from peers, id left out.
func takersOf(t *testing.T, e *Engine, id string) []string {
	t.Helper()
	ctx := context.Background()
	tr, err := e.Traces.Trace(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := e.st.SuggestionTakers(ctx, []string{store.QuestionKey(tr.Question)})
	if err != nil {
		t.Fatal(err)
	}
	ids = slices.DeleteFunc(ids, func(x string) bool { return x == id })
	if len(ids) < clones {
		t.Fatalf("%d takers of %s's question, want at least %d", len(ids), id, clones)
	}
	return ids
}

func marked(t *testing.T, e *Engine) []string {
	t.Helper()
	ms, err := e.st.MarkedTraces(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.TraceID)
	}
	slices.Sort(ids)
	return ids
}

func current(t *testing.T, e *Engine, id string) bool {
	t.Helper()
	ok, err := e.st.ScoreCurrent(context.Background(), id, e.configSHA())
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// suggestedGold is the gold stored in a trace's (machine) case.
func suggestedGold(t *testing.T, e *Engine, id string) string {
	t.Helper()
	cr, err := e.Traces.CaseForTrace(context.Background(), id)
	if err != nil || cr == nil {
		t.Fatalf("case of %s: %v %v", id, cr, err)
	}
	b, _ := json.Marshal(cr.Case.Gold)
	return string(b)
}

// freshGold is the gold the engine suggests for a trace now, from the
// peers as stored.
func freshGold(t *testing.T, e *Engine, id string) string {
	t.Helper()
	g, err := e.Scores.SuggestGold(context.Background(), id)
	if err != nil || g == nil {
		t.Fatalf("suggestion for %s: %v", id, err)
	}
	b, _ := json.Marshal(g.Gold)
	return string(b)
}

// withField is the JSON list of fields v with f added.
func withField(t *testing.T, v json.RawMessage, f string) json.RawMessage {
	t.Helper()
	var fs []string
	if err := json.Unmarshal(v, &fs); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(append(fs, f))
	return out
}

// usedFields is the fields a trace's score says it used, as a JSON list:
// as its gold, they make it grounded, so it teaches them.
func usedFields(t *testing.T, e *Engine, id string) json.RawMessage {
	t.Helper()
	sc, err := e.Scores.Of(context.Background(), id)
	if err != nil || sc == nil {
		t.Fatalf("score of %s: %v", id, err)
	}
	var fs []string
	for _, f := range sc.FieldsUsed {
		fs = append(fs, f.Field)
	}
	if len(fs) == 0 {
		t.Fatalf("%s used no fields", id)
	}
	v, _ := json.Marshal(fs)
	return v
}

// The gold edit of a case with many peers scores that case alone and
// marks its question's takers stale in the same step; the background
// rescore brings them to the new suggestion.
func TestGoldEditMarksPeersAndRescoresThemInTheBackground(t *testing.T) {
	ctx := context.Background()
	e, _ := peerEngine(t)
	takers := takersOf(t, e, teacher)
	if m := marked(t, e); len(m) != 0 {
		t.Fatalf("marked before any edit: %v", m)
	}
	before := suggestedGold(t, e, "clone_000")
	release := holdBackground(e)
	// The teacher's tools' contracts teach the fields it used already
	// (0025): the person's gold requires one more, so what it teaches moves.
	v := withField(t, usedFields(t, e, teacher), "customers.segment")
	res, err := e.Labels.EditFields(ctx, teacher, "ana", FieldEdit{Field: "gold.required_fields", Value: v})
	if err != nil {
		t.Fatal(err)
	}
	if res.Score == nil || !current(t, e, teacher) {
		t.Fatalf("the edited trace was not rescored (score %v)", res.Score)
	}
	if !res.PeersStale {
		t.Fatal("the edit of a teacher's gold does not say its peers are being rescored (PeersStale)")
	}
	// Nothing but the edited trace was scored in the action: every taker
	// is still marked, none is current.
	want := slices.Sorted(slices.Values(takers))
	if got := marked(t, e); !slices.Equal(got, want) {
		t.Fatalf("marked after the edit:\n%v\nwant the takers:\n%v", got, want)
	}
	for _, id := range takers {
		if current(t, e, id) {
			t.Fatalf("%s looks current before the background rescore", id)
		}
	}
	release()
	if err := e.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if m := marked(t, e); len(m) != 0 {
		t.Fatalf("still marked after the background rescore: %v", m)
	}
	for _, id := range takers {
		if !current(t, e, id) {
			t.Errorf("%s not current after the background rescore", id)
		}
	}
	after := suggestedGold(t, e, "clone_000")
	if after == before || after != freshGold(t, e, "clone_000") {
		t.Errorf("clone_000's suggested gold %s (before the edit %s), want the fresh suggestion %s",
			after, before, freshGold(t, e, "clone_000"))
	}
}

// A confirm changes what a case teaches though no gold moved: its peers
// are marked stale and pick up the newly taught gold; a label edit of a
// case that teaches nothing marks nobody. On both backends: PostgreSQL
// sends the mark with the commit, and says then how many it marked.
func TestConfirmMarksPeersStale(t *testing.T) {
	for _, tc := range []struct {
		name string
		loc  func(*testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "t.db") }},
		{"postgres", func(t *testing.T) string { return pgtest.DSN(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) { confirmMarksPeersStale(t, peerEngineAt(t, tc.loc(t))) })
	}
}

func confirmMarksPeersStale(t *testing.T, e *Engine) {
	ctx := context.Background()
	takers := takersOf(t, e, teacher)
	release := holdBackground(e)
	// Grounded set and unset: the person will confirm that the teacher is
	// not grounded, which takes back what its tools' contracts taught
	// (0025), so the confirm changes what the clones are suggested.
	for _, f := range []func(context.Context, string, string) (ActionResult, error){e.Labels.ToggleGrounded, e.Labels.ToggleGrounded, e.Labels.ToggleCorrect} {
		if _, err := f(ctx, teacher, "peer"); err != nil {
			t.Fatal(err)
		}
	}
	// (The teacher itself may be marked: its first label created its case.)
	if m := slices.DeleteFunc(marked(t, e), func(id string) bool { return id == teacher }); len(m) != 0 {
		t.Fatalf("a label edit of a case that teaches nothing marked %v", m)
	}
	before := suggestedGold(t, e, "clone_000")
	res, err := e.Labels.ConfirmLabel(ctx, teacher, "peer", true)
	if err != nil {
		t.Fatal(err)
	}
	if !res.PeersStale {
		t.Error("the confirm that makes the trace a teacher does not say its peers are being rescored (PeersStale)")
	}
	got := slices.DeleteFunc(marked(t, e), func(id string) bool { return id == teacher })
	if want := slices.Sorted(slices.Values(takers)); !slices.Equal(got, want) {
		t.Fatalf("marked after the confirm:\n%v\nwant the takers:\n%v", got, want)
	}
	release()
	if err := e.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	after := suggestedGold(t, e, "clone_000")
	if after == before || after != freshGold(t, e, "clone_000") {
		t.Errorf("clone_000's suggested gold %s (before the confirm %s), want the fresh suggestion %s",
			after, before, freshGold(t, e, "clone_000"))
	}
	// Unconfirming takes the lesson back: marked again.
	release = holdBackground(e)
	if _, err := e.Labels.Undo(ctx, teacher, "peer"); err != nil {
		t.Fatal(err)
	}
	if n := len(slices.DeleteFunc(marked(t, e), func(id string) bool { return id == teacher })); n != len(takers) {
		t.Errorf("undoing the confirm marked %d traces, want %d", n, len(takers))
	}
	release()
	if err := e.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if got := suggestedGold(t, e, "clone_000"); got != before {
		t.Errorf("after the undo clone_000 suggests %s, want %s again", got, before)
	}
}

// A process that dies between the action and the background rescore
// leaves the marks in the database: opening a peer rescores it first and
// the next workbench open scores the rest.
func TestMarksSurviveAKilledBackgroundRescore(t *testing.T) {
	ctx := context.Background()
	e, path := peerEngine(t)
	takers := takersOf(t, e, teacher)
	holdBackground(e) // never released: Close cancels it
	v := usedFields(t, e, teacher)
	if _, err := e.Labels.EditFields(ctx, teacher, "ana", FieldEdit{Field: "gold.required_fields", Value: v}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	e = openPeerEngine(t, st)
	if len(marked(t, e)) != len(takers) {
		t.Fatalf("%d marked after reopening, want the %d takers", len(marked(t, e)), len(takers))
	}
	release := holdBackground(e)
	defer release()
	if _, err := e.Scores.Of(ctx, "clone_000"); err != nil {
		t.Fatal(err)
	}
	if !current(t, e, "clone_000") || suggestedGold(t, e, "clone_000") != freshGold(t, e, "clone_000") {
		t.Errorf("opening clone_000 did not rescore it on the new peers")
	}
	if len(marked(t, e)) != len(takers)-1 {
		t.Errorf("%d marked after opening one, want %d", len(marked(t, e)), len(takers)-1)
	}
	n, err := e.Scores.ScoreUnscored(ctx, nil, nil)
	if err != nil || n != len(takers)-1 {
		t.Fatalf("ScoreUnscored scored %d (%v), want %d", n, err, len(takers)-1)
	}
	if m := marked(t, e); len(m) != 0 {
		t.Errorf("still marked: %v", m)
	}
}

// While a label action is under way the background rescore writes
// nothing (SQLite has one writer: the action would wait for it); it goes
// on once the action is done.
func TestBackgroundWritesWaitForActions(t *testing.T) {
	ctx := context.Background()
	e, _ := peerEngine(t)
	takers := takersOf(t, e, teacher)
	release := holdBackground(e)
	v := usedFields(t, e, teacher)
	if _, err := e.Labels.EditFields(ctx, teacher, "ana", FieldEdit{Field: "gold.required_fields", Value: v}); err != nil {
		t.Fatal(err)
	}
	blocked := make(chan struct{})
	var once sync.Once
	e.fg.mu.Lock()
	e.fg.waiting = func() { once.Do(func() { close(blocked) }) }
	e.fg.most = 0 // no pause awaited: the action below starts after the run did
	e.fg.mu.Unlock()
	exit := e.fg.enter() // an action under way
	release()
	<-blocked
	if got := len(marked(t, e)); got != len(takers) {
		t.Errorf("%d of %d takers still marked while an action runs: the background wrote", got, len(takers))
	}
	exit()
	if err := e.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if m := marked(t, e); len(m) != 0 {
		t.Errorf("still marked after the action and the rescore: %v", m)
	}
}

// The background rescore starts once its labeler pauses: not while an
// action of the workbench is under way, and not before quietFor has
// passed since the last one ended.
func TestBackgroundWaitsForItsLabelersPause(t *testing.T) {
	ctx := context.Background()
	e, _ := peerEngine(t)
	takers := takersOf(t, e, teacher)
	e.fg.mu.Lock()
	e.fg.most = time.Hour // a loaded machine must not reach it
	e.fg.mu.Unlock()
	started := make(chan time.Time, 1)
	e.HoldBackground(func(context.Context) {
		select {
		case started <- time.Now():
		default:
		}
	})
	exit := e.fg.enter() // the labeler's next key, under way throughout
	v := usedFields(t, e, teacher)
	res, err := e.Labels.EditFields(ctx, teacher, "ana", FieldEdit{Field: "gold.required_fields", Value: v})
	if err != nil {
		t.Fatal(err)
	}
	if !res.PeersStale {
		t.Fatal("the edit of a teacher's gold does not say its peers are being rescored (PeersStale)")
	}
	for _, id := range []string{"clone_000", "clone_001"} {
		if _, err := e.Labels.ToggleCorrect(ctx, id, "ana"); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(marked(t, e)); got < len(takers)-2 {
		t.Errorf("%d of %d takers marked while their labeler is at the keys: the background ran", got, len(takers))
	}
	ended := time.Now()
	exit()
	if err := e.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case at := <-started:
		if at.Before(ended.Add(quietFor)) {
			t.Errorf("the rescore started %v after the last action ended, want at least %v", at.Sub(ended), quietFor)
		}
	default:
		t.Fatal("no background rescore ran")
	}
	if m := marked(t, e); len(m) != 0 {
		t.Errorf("still marked after the pause and the rescore: %v", m)
	}
}

// A labeler's n is at the keys too, and so is opening a trace (its
// reservation): the background's pause counts from their end, and the
// rescore's batch writes give way while they run. Left out of the gate,
// on SQLite, with a pause between keys (bench labelers -labelers 8
// -think 200ms, 100,000 traces, 400 queued), n waited for the rescore's
// writes: p99 of n 41-302 ms over three runs, 40 ms in each of three
// with n counted.
func TestKeysThatReserveCountInTheGate(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		key  func(*Engine) error
	}{
		{"n", func(e *Engine) error {
			n, err := e.Queue.Next(ctx, "ana", Query{}, "")
			if err == nil && n.TraceID == "" {
				err = errors.New("n handed out no trace")
			}
			return err
		}},
		{"opening a trace", func(e *Engine) error {
			r, err := e.Queue.Reserve(ctx, "clone_001", "ana")
			if err == nil && r.Labeler != "ana" {
				err = fmt.Errorf("clone_001 held by %q after ana opened it", r.Labeler)
			}
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := peerEngine(t)
			before := time.Now()
			if err := tc.key(e); err != nil {
				t.Fatal(err)
			}
			e.fg.mu.Lock()
			last, under := e.fg.last, e.fg.n
			e.fg.mu.Unlock()
			if last.Before(before) {
				t.Errorf("the pause's clock stands at %v, before the key that ended just now (%v): it is not counted",
					last.Format(time.StampMicro), before.Format(time.StampMicro))
			}
			if under != 0 {
				t.Errorf("%d actions under way after the key returned, want 0", under)
			}
		})
	}
}

// quiet returns a pause after the last action, at once when there was
// none, after most when the actions never pause, and when its context ends.
func TestQuietWaitsForAPause(t *testing.T) {
	const pause = 40 * time.Millisecond
	for _, tc := range []struct {
		name    string
		most    time.Duration
		act     time.Duration // an action under way this long from the start (0: none; <0: to the end)
		cancel  bool
		atLeast time.Duration // from the start
	}{
		{name: "no action", most: time.Hour},
		{name: "an action ends", most: time.Hour, act: 3 * pause, atLeast: 4 * pause},
		{name: "no pause comes", most: 5 * pause, act: -1, atLeast: 5 * pause},
		{name: "cancelled", most: time.Hour, act: -1, cancel: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := gate{pause: pause, most: tc.most}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			start := time.Now()
			if tc.act != 0 {
				exit := g.enter()
				if tc.act > 0 {
					time.AfterFunc(tc.act, exit)
				} else {
					defer exit()
				}
			}
			if tc.cancel {
				cancel()
			}
			done := make(chan time.Duration, 1)
			go func() { g.quiet(ctx); done <- time.Since(start) }()
			select {
			case took := <-done:
				if took < tc.atLeast {
					t.Errorf("quiet returned after %v, want at least %v", took, tc.atLeast)
				}
			case <-time.After(time.Minute):
				t.Fatal("quiet did not return in a minute")
			}
		})
	}
}

// On a shared PostgreSQL store the background rescores of several
// workbenches take turns (store.RescoreTurn): while another holds the
// turn, the marked peers wait, and once it is given back they are
// rescored.
func TestBackgroundRescoresTakeTurns(t *testing.T) {
	ctx := context.Background()
	loc := pgtest.DSN(t)
	e := peerEngineAt(t, loc)
	other, err := store.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	db, err := sql.Open("pgx", loc)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	giveBack, err := other.RescoreTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v := withField(t, usedFields(t, e, teacher), "customers.segment")
	res, err := e.Labels.EditFields(ctx, teacher, "ana", FieldEdit{Field: "gold.required_fields", Value: v})
	if err != nil || !res.PeersStale {
		t.Fatalf("the edit of a teacher's gold: %v, peers stale %v; want them marked", err, res.PeersStale)
	}
	waitFor(t, "the background rescore waiting for its turn", 10*time.Second, func() bool {
		var n int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&n)
		return err == nil && n == 1
	})
	if len(marked(t, e)) == 0 {
		t.Fatal("the peers were rescored while another workbench held the turn")
	}
	giveBack()
	if err := e.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if m := marked(t, e); len(m) != 0 {
		t.Errorf("still marked once the turn was given back: %v", m)
	}
}
