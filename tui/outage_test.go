package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store/pgtest"
)

// teamStore fills the PostgreSQL database at dsn with the sample traces,
// scored, as openUnlabeledStore fills a file.
func teamStore(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	eng, err := app.Open(ctx, dsn, app.Files{Policy: filepath.Join(sampleDir, "policy.json"),
		Lineage: filepath.Join(sampleDir, "lineage.json")})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	importScored(t, eng, sampleTraceFiles(t))
}

// TestEditsSurviveAnOutage: in a real workbench process on a team
// database, the PostgreSQL server is stopped mid-labeling. The keys
// pressed meanwhile were never written, their error was overwritten by
// the raters reload within milliseconds, and q exited 0. Now the status
// line says how many edits wait for the database, q asks before dropping
// them (and says how many), esc keeps them, and once the server is back
// they land in order. A second session drops its waiting edit when the
// user says so at q, and nothing of it is written.
func TestEditsSurviveAnOutage(t *testing.T) {
	srv := pgtest.NewOwn(t)
	teamStore(t, srv.DSN())
	dir := t.TempDir()
	const id = "trace_9f31c2"
	e2e(t, srv.DSN(), "ana", "120x30", `
wait 33 traces
send Enter
wait Steps 9
run `+srv.ShellCommand("stop")+`
send c
send 3
wait 2 edits waiting for the database
capture `+filepath.Join(dir, "waiting.txt")+`
send q
wait Quit and drop 2 edits waiting for the database?
send Escape
gone Quit and drop
run `+srv.ShellCommand("start")+`
wait class structural
gone waiting for the database
quit
`)
	b, _ := os.ReadFile(filepath.Join(dir, "waiting.txt"))
	if !strings.Contains(string(b), "2 edits waiting for the database") {
		t.Errorf("screen during the outage:\n%s", b)
	}
	ctx := context.Background()
	eng, err := app.Open(ctx, srv.DSN(), app.Files{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	rec, err := eng.Traces.CaseForTrace(ctx, id)
	if err != nil || rec == nil {
		t.Fatalf("no case after the outage: %v", err)
	}
	l := rec.Case.Label
	grounded := ptr(l.Grounded) // the machine's suggestion; bo's dropped g must leave it
	if l.Correct == nil || !*l.Correct || l.FailureClass == nil || *l.FailureClass != model.ClassStructural {
		t.Errorf("label after the outage: correct %v class %v, want true and structural", ptr(l.Correct), l.FailureClass)
	}
	evs, err := eng.Traces.Events(ctx, rec.Case.CaseID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.Who+":"+e.Field)
	}
	if want := "ana:label.correct ana:label.failure_class"; strings.Join(got, " ") != want {
		t.Errorf("events after the outage: %v, want %s", got, want)
	}

	// Quit during an outage and drop what waits.
	e2e(t, srv.DSN(), "bo", "120x30", `
wait 33 traces
send Enter
wait Steps 9
run `+srv.ShellCommand("stop")+`
send g
wait 1 edit waiting for the database
send q
wait Quit and drop 1 edit waiting for the database?
send Enter
ended
run `+srv.ShellCommand("start")+`
`)
	// A fresh engine reads what the server holds: eng's pooled
	// connections died with the server, and pgx's driver pings a pooled
	// connection before reuse only when its last reuse was over a second
	// ago (stdlib ResetSession), so one could fail this read with a
	// broken pipe (a CI run did).
	after, err := app.Open(ctx, srv.DSN(), app.Files{})
	if err != nil {
		t.Fatal(err)
	}
	defer after.Close()
	rec, err = after.Traces.CaseForTrace(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if g := ptr(rec.Case.Label.Grounded); g != grounded {
		t.Errorf("a dropped edit was written: grounded %v, was %v", g, grounded)
	}
}

func ptr(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// TestBackgroundErrorKeepsTheEditsError: an edit's error was overwritten
// within milliseconds by the raters reload's error and then the change
// watcher's. The edit's error now stays in front of them until it fades
// or another edit lands.
func TestBackgroundErrorKeepsTheEditsError(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	d := newDriver(t, eng, 120, 30)
	d.key("enter")
	id := d.m.trace.id
	if id == "" {
		t.Fatal("no trace open")
	}
	d.send(actionMsg{act: toggleCorrect(id), err: errors.New("writing label.correct: the disk is full")})
	const edit = "writing label.correct: the disk is full"
	d.send(ratersMsg{id: id, err: errors.New("reading raters: the server closed the connection")})
	if st := d.m.status; !strings.HasPrefix(st, edit) || !strings.Contains(st, "raters:") {
		t.Errorf("status after an edit's error and the raters reload's: %q", st)
	}
	d.send(changesMsg{w: d.m.trace.watch, err: errors.New("the server closed the connection")})
	if st := d.m.status; !strings.HasPrefix(st, edit) || !strings.Contains(st, "watching for changes:") {
		t.Errorf("status after an edit's error and the change watcher's: %q", st)
	}
	if !strings.Contains(d.plain(), "the disk is full") {
		t.Errorf("the edit's error is not on screen:\n%s", d.plain())
	}
	// An edit that lands ends it.
	d.send(actionMsg{act: toggleCorrect(id), res: app.ActionResult{Group: 1, Changed: []string{"label.correct"}}})
	if st := d.m.status; strings.Contains(st, "disk is full") {
		t.Errorf("after an edit landed the old error is still shown: %q", st)
	}
}
