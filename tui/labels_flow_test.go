package tui

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// program is the real workbench on a fake terminal (teatest/v2) with the
// waits the flows share. Waits poll the output, the last frame drawn or
// the store until a deadline; none sleeps a fixed time before looking.
type program struct {
	t     *testing.T
	tm    *teatest.TestModel
	eng   *app.Engine
	all   []byte
	mark  int
	frame *frameProbe
}

func newProgram(t *testing.T, eng *app.Engine, opts Options, w, h int) *program {
	if opts.Labeler == "" {
		opts.Labeler = "tester"
	}
	opts.Theme = "dark"
	fp := &frameProbe{}
	tm := teatest.NewTestModel(t, probe{New(eng, opts), fp}, teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	return &program{t: t, tm: tm, eng: eng, frame: fp}
}

// probe is the root model with the last frame it drew kept aside: the
// renderer writes only the cells that changed, so the output stream holds
// pieces of lines, while the frame is the whole screen as it is.
type probe struct {
	m  *Model
	fp *frameProbe
}

type frameProbe struct {
	mu    sync.Mutex
	frame string
}

func (p probe) Init() tea.Cmd { return p.m.Init() }
func (p probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := p.m.Update(msg)
	return p, cmd
}
func (p probe) View() tea.View {
	v := p.m.View()
	p.fp.mu.Lock()
	p.fp.frame = stripStyles(v.Content)
	p.fp.mu.Unlock()
	return v
}

// waitScreen waits until the frame on screen satisfies cond and returns it.
func (p *program) waitScreen(what string, cond func(frame string) bool) string {
	p.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		p.frame.mu.Lock()
		f := p.frame.frame
		p.frame.mu.Unlock()
		if cond(f) {
			return f
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: not on screen after 30s; the screen:\n%s", what, f)
		}
	}
}

// lineWith is the first line of frame holding s, "" when none does.
func lineWith(frame, s string) string {
	for _, l := range strings.Split(frame, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// waitFor waits until s is drawn after the previous match: the renderer
// redraws only changed cells, so each wait names text new on screen.
func (p *program) waitFor(s string) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	buf := make([]byte, 64<<10)
	for {
		n, _ := p.tm.Output().Read(buf)
		p.all = append(p.all, buf[:n]...)
		if i := bytes.Index(p.all[p.mark:], []byte(s)); i >= 0 {
			p.mark += i + len(s)
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%q not drawn within 30s; output since the last match:\n%q", s, p.all[p.mark:])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (p *program) send(keys ...string) {
	for _, k := range keys {
		p.tm.Send(keyMsg(k))
	}
}

// eventually waits until the stored case of a trace satisfies cond.
func (p *program) eventually(id, what string, cond func(*app.CaseRecord) bool) *app.CaseRecord {
	p.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		rec, err := p.eng.Traces.CaseForTrace(context.Background(), id)
		if err == nil && rec != nil && cond(rec) {
			return rec
		}
		if time.Now().After(deadline) {
			// The screen too: its status line says why an edit did not land.
			p.frame.mu.Lock()
			f := p.frame.frame
			p.frame.mu.Unlock()
			p.t.Fatalf("%s: not in the store after 30s: %+v %v; the screen:\n%s", what, rec, err, f)
		}
	}
}

func (p *program) quit() *Model {
	p.send("q")
	return p.tm.FinalModel(p.t, teatest.WithFinalTimeout(30*time.Second)).(probe).m
}

// groundPeers confirms, as a colleague would, the task-specific traces of
// the questions trace_e7c3b5 and trace_9f31c2 ask as grounded and correct:
// those two then get gold suggested from a grounded peer on another server.
func groundPeers(t *testing.T, eng *app.Engine) {
	t.Helper()
	ctx := context.Background()
	for _, id := range []string{"trace_3a6e0f", "trace_4be07a"} {
		for _, f := range []func(context.Context, string, string) (app.ActionResult, error){eng.Labels.ToggleGrounded, eng.Labels.ToggleCorrect} {
			if _, err := f(ctx, id, "colleague"); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := eng.Labels.ConfirmLabel(ctx, id, "colleague", true); err != nil {
			t.Fatal(err)
		}
	}
	// The confirms teach the question's other traces, which the engine
	// rescores in the background: the flows start from their new scores.
	if err := eng.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
}

// openByID opens a trace from the queue through the search: it waits
// until the queue shows that trace alone (the rows of the search, not the
// count alone, which arrives on its own), then opens it.
func (p *program) openByID(id string) {
	p.t.Helper()
	p.search(id)
	p.waitScreen("the queue searched to "+id, func(f string) bool {
		return strings.Contains(f, " 1 traces") && lineWith(f, "▌") != "" && strings.Contains(lineWith(f, "▌"), id)
	})
	p.send("enter")
	p.waitScreen("the trace screen of "+id, func(f string) bool {
		return strings.Contains(f, "─ Steps ") && strings.Contains(f, "Label ")
	})
	p.waitFor("─ Steps ") // keeps waitFor's mark past the trace screen's first frame
}

// typeText types s, one key per rune.
func (p *program) typeText(s string) {
	for _, r := range s {
		p.send(string(r))
	}
}

// search types s into the queue's search and leaves the input.
func (p *program) search(s string) {
	p.send("/")
	p.typeText(s)
	p.send("enter")
}

// `a` on trace_e7c3b5, whose suggested gold (from a grounded peer) turns
// it ungrounded: one press lands gold and a label that agree (grounded ✗
// with the class the new score names), confirm then asks because correct
// is unknown, and a second enter confirms anyway.
func TestProgramAcceptThenConfirm(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	groundPeers(t, eng)
	p := newProgram(t, eng, Options{}, 160, 48)
	p.waitFor("33 traces")
	p.openByID("trace_e7c3b5")
	p.waitScreen("the suggested gold", func(f string) bool { return strings.Contains(f, "Suggested gold") })
	p.send("a")
	// Drawn when the action (and its rescore) came back.
	p.waitScreen("the accepted label", func(f string) bool { return strings.Contains(lineWith(f, "Label "), "grounded ✗") })
	rec := p.eventually("trace_e7c3b5", "accepted", func(r *app.CaseRecord) bool { return r.Case.Label.Grounded != nil })
	sc, err := eng.Scores.Of(context.Background(), "trace_e7c3b5")
	if err != nil || sc == nil {
		t.Fatal(err)
	}
	if l := rec.Case.Label; boolText(l.Grounded) != "no" || classText(l.FailureClass) != classText(sc.SuggestedClass) ||
		sc.SuggestedClass == nil {
		t.Fatalf("after one a: grounded %s class %s; the score on the accepted gold suggests %s",
			boolText(l.Grounded), classText(l.FailureClass), classText(sc.SuggestedClass))
	}
	p.send("enter")
	p.waitScreen("the question", func(f string) bool {
		return strings.Contains(f, "Confirm anyway?") && strings.Contains(f, "correct is not set")
	})
	if rec, _ := eng.Traces.CaseForTrace(context.Background(), "trace_e7c3b5"); rec.Status == model.StatusConfirmed {
		t.Fatal("confirmed before the second key")
	}
	p.send("enter")
	p.eventually("trace_e7c3b5", "confirmed anyway", func(r *app.CaseRecord) bool { return r.Status == model.StatusConfirmed })
	p.quit()
}

// With --strict the same confirm is refused and says why.
func TestProgramStrictConfirmRefuses(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	p := newProgram(t, eng, Options{Strict: true}, 100, 30)
	p.waitFor("33 traces")
	p.openByID("trace_e7c3b5")
	p.send("enter")
	// q waits for the confirm to come back; the status line says why it
	// was refused (read from the final model: the renderer redraws only
	// the cells that changed, so a status over hints is not one string).
	m := p.quit()
	if !strings.Contains(m.status, "not confirmed (strict): correct is not set") || !m.statusErr {
		t.Errorf("status %q", m.status)
	}
	if m.dialog() != nil {
		t.Errorf("strict mode opened a dialog: %T", m.dialog())
	}
	if rec, _ := eng.Traces.CaseForTrace(context.Background(), "trace_e7c3b5"); rec != nil && rec.Status == model.StatusConfirmed {
		t.Fatal("strict mode confirmed an incomplete label")
	}
}

// x on a field, then u: the "Suggested gold" block stays, the gold comes
// back, and a after the undo still lands a consistent label.
func TestProgramForbidUndoKeepsSuggestions(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	groundPeers(t, eng)
	ctx := context.Background()
	before, _ := eng.Traces.CaseForTrace(ctx, "trace_9f31c2")
	p := newProgram(t, eng, Options{}, 160, 48)
	p.waitFor("33 traces")
	p.openByID("trace_9f31c2")
	p.waitFor("Suggested gold")
	p.send("tab", "tab") // steps -> detail -> scoring
	p.waitFor("Scoring")
	p.send("x")
	// x makes the gold a person's (the machine's own suggestion may
	// forbid fields too, so the origin is what tells x landed).
	p.eventually("trace_9f31c2", "forbidden", func(r *app.CaseRecord) bool {
		return r.GoldOrigin == "human" && len(r.Case.Gold.ForbiddenFields) > 0
	})
	p.send("u")
	p.waitFor("undo gold.forbidden_fields")
	p.eventually("trace_9f31c2", "undone", func(r *app.CaseRecord) bool {
		return len(r.Case.Gold.ForbiddenFields) == len(before.Case.Gold.ForbiddenFields)
	})
	// (The block never left the screen, so it is not redrawn: the final
	// frame is checked below.)
	p.send("a")
	rec := p.eventually("trace_9f31c2", "accepted after undo", func(r *app.CaseRecord) bool { return len(r.Case.Gold.RequiredFields) > 0 })
	m := p.quit()
	sc, _ := eng.Scores.Of(ctx, "trace_9f31c2")
	if boolText(rec.Case.Label.Grounded) != boolText(sc.Grounded) || classText(rec.Case.Label.FailureClass) != classText(sc.SuggestedClass) {
		t.Errorf("a after undo: grounded %s class %s, score %s %s", boolText(rec.Case.Label.Grounded),
			classText(rec.Case.Label.FailureClass), boolText(sc.Grounded), classText(sc.SuggestedClass))
	}
	if !strings.Contains(stripStyles(m.View().Content), "Suggested gold") {
		t.Errorf("the suggestions are gone after a")
	}
}

// A burst of class keys faster than the saves ends on the last key, and
// c c returns correct to where it was, also while another connection holds
// the database's write lock through the whole burst.
func TestProgramBurstLandsInOrder(t *testing.T) {
	for _, held := range []bool{false, true} {
		name := "free"
		if held {
			name = "lock held"
		}
		t.Run(name, func(t *testing.T) {
			eng, path := openUnlabeledStore(t)
			ctx := context.Background()
			p := newProgram(t, eng, Options{}, 100, 30)
			p.waitFor("33 traces")
			p.openByID("trace_9f31c2")
			p.send("c")
			before := p.eventually("trace_9f31c2", "correct", func(r *app.CaseRecord) bool { return r.Case.Label.Correct != nil })
			var tx *sql.Tx
			if held {
				db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=busy_timeout(10000)&_txlock=immediate")
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				if tx, err = db.BeginTx(ctx, nil); err != nil {
					t.Fatal(err)
				}
				if _, err := tx.ExecContext(ctx, `UPDATE traces SET queued = queued`); err != nil {
					t.Fatal(err)
				}
			}
			p.send("1", "2", "1", "2", "3", "c", "c")
			if held {
				// The keys wait behind the lock, in order, and say so.
				p.waitFor("key(s) waiting")
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			// q waits for the keys still being saved: no wait needed here.
			m := p.quit()
			if len(m.trace.actions) != 0 {
				t.Errorf("%d actions left unsaved", len(m.trace.actions))
			}
			rec, _ := eng.Traces.CaseForTrace(ctx, "trace_9f31c2")
			if classText(rec.Case.Label.FailureClass) != "structural" || boolText(rec.Case.Label.Correct) != boolText(before.Case.Label.Correct) {
				t.Errorf("after 1 2 1 2 3 c c: class %s correct %s (was %s)", classText(rec.Case.Label.FailureClass),
					boolText(rec.Case.Label.Correct), boolText(before.Case.Label.Correct))
			}
			evs, _ := eng.Traces.Events(ctx, rec.Case.CaseID)
			var got []string
			for _, e := range evs {
				got = append(got, e.Field+"="+string(e.New))
			}
			// The machine's case said semantic; every key changed something, in order.
			want := `label.correct=true label.failure_class="entity" label.failure_class="semantic" label.failure_class="entity" ` +
				`label.failure_class="semantic" label.failure_class="structural" label.correct=false label.correct=true`
			if strings.Join(got, " ") != want {
				t.Errorf("events:\n%s\nwant\n%s", strings.Join(got, " "), want)
			}
		})
	}
}

// A result table wider than the pane shows the column the evidence names
// first and scrolls with l to reveal the others.
func TestProgramTableScrollsSideways(t *testing.T) {
	eng, _ := openUnlabeledStore(t)
	tr, err := eng.Traces.Trace(context.Background(), "trace_ab3c07")
	if err != nil {
		t.Fatal(err)
	}
	var tab struct{ Columns []string }
	if err := json.Unmarshal(tr.Steps[4].Result, &tab); err != nil || len(tab.Columns) < 3 {
		t.Fatalf("step 4 of trace_ab3c07 is not a wide table: %v", err)
	}
	last := tab.Columns[len(tab.Columns)-1]
	// Each check reads a final frame: the renderer redraws only changed
	// cells, and frames drawn while moving to step 4 may show other text,
	// so the whole output stream says nothing about one moment.
	open := func(keys ...string) string {
		p := newProgram(t, eng, Options{}, 80, 24)
		p.waitFor("33 traces")
		p.openByID("trace_ab3c07")
		p.send("j", "j", "j", "j")
		p.waitFor("row  email") // the column the policy evidence names, first
		p.waitFor("h/l scroll")
		p.send(keys...)
		m := p.quit()
		return stripStyles(m.View().Content)
	}
	if v := open(); strings.Contains(v, last) {
		t.Fatalf("%s on screen before scrolling:\n%s", last, v)
	}
	if v := open("l", "l", "l", "l", "l", "l", "l", "l"); !strings.Contains(v, last) {
		t.Errorf("after l ×8 the last column %s is not on screen:\n%s", last, v)
	}
}

// A gold edit on one trace rescores the traces that take their gold from
// it (same question, another server), and the queue shows their new
// suggested class when it is back on screen, the class their own scoring
// panel shows, without opening them first. trace_2d8f61 (no case of its
// own) takes its gold from trace_1e5b7a; forbidding a field only
// trace_2d8f61 reads (customers.account_id) makes its suggestion semantic.
func TestProgramPeerRescoreShowsInQueue(t *testing.T) {
	eng, _ := openFixtureStore(t)
	const teacher, taker = "trace_1e5b7a", "trace_2d8f61"
	p := newProgram(t, eng, Options{}, 160, 48) // wide: the SUGGESTED column is drawn
	p.waitFor("33 traces")
	// The phrase: the three traces that ask it (Acme alone is in the
	// steps of seven more since / searches steps too).
	p.search(`"open tickets for Acme"`)
	row := func(f string) string { return lineWith(f, taker) }
	p.waitScreen("the Acme traces", func(f string) bool {
		return strings.Contains(f, " 3 traces") && row(f) != "" && strings.Contains(lineWith(f, "▌"), "acme-open-tickets-032")
	})
	if strings.Contains(row(p.waitScreen("", func(string) bool { return true })), "semantic") {
		t.Fatalf("%s is suggested semantic before the edit", taker)
	}
	p.send("enter") // the teacher (its case acme-open-tickets-032) is selected
	p.waitScreen("the trace screen of "+teacher, func(f string) bool {
		return strings.Contains(f, "─ Steps ") && strings.Contains(f, "acme-open-tickets-032")
	})
	p.send("e", "tab", "tab", "tab") // answer, tolerance, required, forbidden
	p.waitScreen("the gold editor on forbidden fields", func(f string) bool {
		return lineWith(f, "▸ forbidden") != ""
	})
	release := make(chan struct{})
	eng.HoldBackground(func(ctx context.Context) {
		select {
		case <-release:
		case <-ctx.Done():
		}
	})
	p.typeText("customers.account_id")
	p.send("ctrl+s")
	p.waitScreen("the gold saved", func(f string) bool { return strings.Contains(f, "gold saved") })
	p.send("esc")
	// The queue is shown while the peers are still being rescored: it
	// shows the old suggestion, and turns to the new one on its own when
	// the rescore ends, with no key pressed.
	p.waitScreen("the queue before the peers are rescored", func(f string) bool {
		return !strings.Contains(f, "─ Steps ") && row(f) != "" && !strings.Contains(row(f), "semantic")
	})
	close(release)
	p.waitScreen(taker+" suggested semantic in the queue", func(f string) bool {
		return !strings.Contains(f, "─ Steps ") && strings.Contains(row(f), "semantic")
	})
	// Its own scoring panel says the same.
	p.send("j", "j")
	p.waitScreen(taker+" selected", func(f string) bool { return strings.Contains(lineWith(f, "▌"), taker) })
	p.send("enter")
	p.waitScreen("the scoring panel of "+taker, func(f string) bool {
		return strings.Contains(f, "─ Steps ") && strings.Contains(f, taker) && strings.Contains(lineWith(f, "suggested "), "semantic")
	})
	p.quit()
}
