package tui

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// holdWriteLock takes the database's write lock from another connection,
// as another process writing would; the returned func lets it go.
func holdWriteLock(t *testing.T, path string) func() {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE traces SET queued = queued`); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// The keys typed right after enter on a queue row, while the trace loads
// (here: while another process holds the write lock opening it waits
// for), label that trace once it is on screen, in order; none is lost
// to the queue still on screen.
func TestProgramKeysWhileTraceLoads(t *testing.T) {
	eng, path := openUnlabeledStore(t)
	const id = "trace_9f31c2"
	p := newProgram(t, eng, Options{}, 100, 30)
	p.waitFor("33 traces")
	p.search(id)
	p.waitScreen("the queue searched to "+id, func(f string) bool {
		return strings.Contains(f, " 1 traces") && strings.Contains(lineWith(f, "▌"), id)
	})
	release := holdWriteLock(t, path)
	p.send("enter", "c", "2")
	release()
	rec := p.eventually(id, "c 2 typed while it loaded", func(r *app.CaseRecord) bool {
		l := r.Case.Label
		return l.Correct != nil && *l.Correct && l.FailureClass != nil && *l.FailureClass == model.ClassSemantic
	})
	if rec.Case.Label.FailureClass == nil {
		t.Fatal("no class")
	}
	p.waitScreen("the trace", func(f string) bool { return strings.Contains(f, "class semantic") })
	p.quit()
}

// enter pressed while the queue's rows are still the last query's (a
// search just typed) opens the row the new query selects once it lands
// (openOnLoad); the keys typed meanwhile are for that trace as after
// any enter, not for the queue still on screen. The driver holds every
// command back until the keys are in, as a slow query would.
func TestKeysAfterEnterWhileTheQueueLoads(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	const id = "trace_9f31c2"
	// searchThen types query into the queue's search and then keys on a
	// new driver, holding every command back until all are in.
	searchThen := func(query string, keys ...string) *driver {
		d := newDriver(t, eng, 100, 30)
		d.key("/")
		var held []tea.Cmd
		press := func(msg tea.KeyPressMsg) {
			nm, cmd := d.m.Update(msg)
			d.m = nm.(*Model)
			held = append(held, cmd)
		}
		for _, r := range query {
			press(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
		for _, k := range keys {
			press(keyMsg(k))
		}
		for _, cmd := range held {
			d.run(cmd)
		}
		return d
	}
	d := searchThen(id, "enter", "enter", "c", "2")
	rec, err := eng.Traces.CaseForTrace(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	l := rec.Case.Label
	if l.Correct == nil || !*l.Correct || l.FailureClass == nil || *l.FailureClass != model.ClassSemantic || rec.UpdatedBy != "tester" {
		t.Errorf("c 2 after enter: correct %v, class %v by %q; want correct, semantic, by tester; the screen:\n%s",
			l.Correct, l.FailureClass, rec.UpdatedBy, d.plain())
	}

	// A query that selects nothing opens nothing: the keys held for it
	// are dropped, said so, and the next ones are the queue's again.
	d = searchThen("no_such_trace", "enter", "enter", "c")
	d.mustSee("1 key(s) pressed while the trace loaded were dropped")
	if d.m.env.opening || d.m.screen != screenQueue {
		t.Errorf("after a query that selected nothing: opening %v, screen %v", d.m.env.opening, d.m.screen)
	}

	// esc before the query lands gives up opening: the queue stays, and
	// no trace opens when the rows arrive.
	d = searchThen(id, "enter", "enter", "esc")
	if d.m.env.opening || d.m.screen != screenQueue || d.m.trace.t != nil {
		t.Errorf("after esc: opening %v, screen %v, a trace open %v; the screen:\n%s",
			d.m.env.opening, d.m.screen, d.m.trace.t != nil, d.plain())
	}
}

// enter enter on a trace whose label has gaps asks once: the second
// enter, pressed before the first confirm landed, opens no second
// question behind the first.
func TestProgramEnterEnterAsksOnce(t *testing.T) {
	eng, path := openUnlabeledStore(t)
	p := newProgram(t, eng, Options{}, 100, 30)
	p.waitFor("33 traces")
	p.openByID("trace_9f31c2")
	release := holdWriteLock(t, path)
	p.send("enter", "enter")
	p.waitFor("confirming…")
	release()
	p.waitScreen("the question", func(f string) bool { return strings.Contains(f, "Confirm anyway?") })
	p.send("esc")
	p.waitScreen("the question closed", func(f string) bool { return !strings.Contains(f, "Confirm anyway?") })
	// With no question left open, ? reaches the help (a question would
	// take the key and stay on screen).
	p.send("?")
	p.waitScreen("the help", func(f string) bool {
		return strings.Contains(f, "Keys: trace") && !strings.Contains(f, "Confirm anyway?")
	})
	p.send("esc")
	m := p.quit()
	if len(m.dialogs) != 0 {
		t.Errorf("%d dialog(s) left open", len(m.dialogs))
	}
	if rec, _ := eng.Traces.CaseForTrace(context.Background(), "trace_9f31c2"); rec.Status == model.StatusConfirmed {
		t.Error("esc on the question confirmed the trace")
	}
}

// A database this user may not write says so when the workbench opens,
// in the title bar and the status line, and a key that would write says
// why it cannot instead of the driver's "attempt to write a readonly
// database (8)".
func TestProgramReadOnlyDatabase(t *testing.T) {
	_, path := openUnlabeledStore(t)
	ro, err := app.OpenWith(context.Background(), path, app.Files{}, app.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	if !ro.ReadOnly() {
		t.Fatal("the engine is not read-only")
	}
	p := newProgram(t, ro, Options{StatusTTL: -1}, 80, 24)
	p.waitScreen("read-only said at once", func(f string) bool {
		lines := strings.Split(f, "\n")
		return strings.Contains(lines[0], "read-only") && strings.Contains(lines[len(lines)-1], "read-only database")
	})
	p.openByID("trace_9f31c2")
	p.send("c")
	f := p.waitScreen("c refused in words", func(f string) bool {
		return strings.Contains(f, "read-only database: browsing only, nothing is saved")
	})
	if strings.Contains(f, "attempt to write") {
		t.Errorf("the driver's error reached the screen:\n%s", f)
	}
	p.send("]")
	p.waitFor("marker 1/")
	p.send("enter")
	p.waitFor("nothing is saved")
	// The report's scores are out of date for this build's settings and
	// cannot be brought up to date here: it says that, in words.
	p.send("R")
	f = p.waitScreen("the report", func(f string) bool { return strings.Contains(f, "cannot build the report") })
	if strings.Contains(f, "attempt to write") || !strings.Contains(f, "read-only database") {
		t.Errorf("the report on a read-only database:\n%s", f)
	}
	p.quit()
	rec, err := ro.Traces.CaseForTrace(context.Background(), "trace_9f31c2")
	if err != nil {
		t.Fatal(err)
	}
	if rec != nil && (rec.Case.Label.Correct != nil || rec.Status == model.StatusConfirmed) {
		t.Errorf("a read-only database was written: %+v", rec)
	}
}

// n in the queue opens the first unconfirmed trace from the selected row
// on, that row included; on an empty queue it says the queue is empty.
func TestProgramNextOpensFromSelection(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	ctx := context.Background()
	rows, _, err := eng.Traces.ListTraces(ctx, app.Query{Limit: 5})
	if err != nil || len(rows) < 4 {
		t.Fatal(rows, err)
	}
	if _, err := eng.Labels.ConfirmLabel(ctx, rows[2].TraceID, "colleague", true); err != nil {
		t.Fatal(err)
	}
	// Each program starts on row 0, once the rows are in (a reread
	// landing later would move the cursor back to the row it kept).
	start := func() *program {
		p := newProgram(t, eng, Options{}, 120, 30)
		p.waitScreen("the rows", func(f string) bool { return strings.Contains(lineWith(f, "▌"), rows[0].TraceID) })
		return p
	}
	// From row 1: row 1 itself.
	p := start()
	p.send("j", "n")
	p.waitScreen("row 1 opened", func(f string) bool {
		return strings.Contains(f, "─ Steps ") && strings.Contains(f, rows[1].TraceID)
	})
	p.quit()
	// From row 2, confirmed: row 3.
	p = start()
	p.send("j", "j", "n")
	p.waitScreen("row 3 opened", func(f string) bool {
		return strings.Contains(f, "─ Steps ") && strings.Contains(f, rows[3].TraceID)
	})
	p.quit()

	empty, err := app.Open(ctx, filepath.Join(t.TempDir(), "empty.db"), app.Files{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { empty.Close() })
	p = newProgram(t, empty, Options{StatusTTL: -1}, 80, 24)
	p.waitFor("no traces yet")
	p.send("n")
	f := p.waitScreen("the empty queue said", func(f string) bool { return strings.Contains(f, "the queue is empty") })
	if strings.Contains(f, "reserved") {
		t.Errorf("an empty queue mentions reservations:\n%s", f)
	}
	p.quit()
}

// ? names the five classes with their keys at every size from the
// smallest drawn, and at 80x24 q quit too; the queue's status bar keeps
// q quit at 80 columns.
func TestHelpNamesTheClasses(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	p := newProgram(t, eng, Options{}, 80, 24)
	p.waitScreen("the queue's status bar", func(f string) bool {
		lines := strings.Split(f, "\n")
		return strings.HasSuffix(strings.TrimRight(lines[len(lines)-1], " "), "q quit")
	})
	p.openByID("trace_9f31c2")
	p.send("?")
	p.waitScreen("the help at 80x24", func(f string) bool {
		for _, s := range []string{"1 entity", "2 semantic", "3 structural", "4 temporal", "5 policy", "q quit"} {
			if !strings.Contains(squeeze(f), s) {
				return false
			}
		}
		return true
	})
	p.send("esc")
	p.quit()
	for _, size := range [][2]int{{minWidth, minHeight}, {60, 16}, {120, 40}, {200, 50}} {
		d := newDriver(t, eng, size[0], size[1])
		d.keys("enter", "?")
		f := squeeze(d.plain())
		for _, s := range []string{"1 entity", "2 semantic", "3 structural", "4 temporal", "5 policy"} {
			if !strings.Contains(f, s) {
				t.Errorf("%dx%d: the help has no %q:\n%s", size[0], size[1], s, d.plain())
			}
		}
	}
}

// squeeze folds runs of spaces into one: help columns pad between a key
// and what it does.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }
