package tui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// openDemoLikeStore is the demo's data: the sample traces with the gold
// cases of every server but the generic warehouse, whose traces then wait
// with suggestions from their grounded peers (trace_9f31c2 among them).
func openDemoLikeStore(t testing.TB) *app.Engine {
	t.Helper()
	eng, _ := openUnlabeledStore(t)
	ctx := context.Background()
	name := filepath.Join(sampleDir, "cases.jsonl")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Skipf("no sample cases at %s: %v", name, err)
	}
	var keep bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c struct {
			SourceTrace string `json:"source_trace"`
		}
		if json.Unmarshal(sc.Bytes(), &c) == nil && c.SourceTrace != "" {
			if tr, err := eng.Traces.Trace(ctx, c.SourceTrace); err == nil && tr != nil && tr.Server == "generic-warehouse" {
				continue
			}
		}
		keep.Write(sc.Bytes())
		keep.WriteByte('\n')
	}
	if _, err := eng.Imports.Reader(ctx, &keep, name, app.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Scores.Rescore(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	return eng
}

// openAt opens trace_9f31c2 in a driver of size w×h on the demo's data.
func openAt(t *testing.T, w, h int) *driver {
	t.Helper()
	d := newDriver(t, openDemoLikeStore(t), w, h)
	d.run(d.m.trace.openTrace("trace_9f31c2"))
	d.mustSee("trace_9f31c2")
	return d
}

// TestGoldenAccept snapshots the trace screen of trace_9f31c2 at the
// three sizes a labeler works at, opened and with the scoring pane
// scrolled to its end: what a sets is on screen in both.
func TestGoldenAccept(t *testing.T) {
	down := []string{"tab", "tab"}
	for range 60 {
		down = append(down, "j")
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
		for _, sc := range []struct {
			name string
			keys []string
		}{{"trace_accept", nil}, {"trace_accept_scrolled", down}} {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				d := openAt(t, size[0], size[1])
				d.keys(sc.keys...)
				// The summary of what a sets, or the whole suggestion.
				if p := d.plain(); !strings.Contains(p, "a sets") && !strings.Contains(p, "a: ✓4 ✗3") &&
					!(strings.Contains(p, "Suggested gold (a accepts)") && strings.Contains(p, "window 2026-04-01→2026-06-30")) {
					t.Errorf("what a sets is not on screen:\n%s", p)
				}
				golden.RequireEqual(t, d.plain())
			})
		}
	}
}

// TestScorePaneReachesEveryLine scrolls the scoring pane with each of its
// keys at every size: the last line (the answer a keeps, the one a person
// confirmed for trace_4be07a's same question and quarter) and the suggested
// gold's header come on screen, and going back up reaches the first.
func TestScorePaneReachesEveryLine(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
		for _, keys := range [][]string{{"j"}, {"pgdown"}, {"J"}} {
			t.Run(fmt.Sprintf("%dx%d_%s", size[0], size[1], keys[0]), func(t *testing.T) {
				d := openAt(t, size[0], size[1])
				d.keys("tab", "tab")
				seen := map[string]bool{}
				for range 80 {
					d.keys(keys...)
					p := d.plain()
					for _, s := range []string{"Suggested gold (a accepts)", "· window 2026-04-01→2026-06-30 (fiscal)", "· answer 1284 (kept)"} {
						seen[s] = seen[s] || strings.Contains(p, s)
					}
				}
				for _, s := range []string{"Suggested gold (a accepts)", "· window 2026-04-01→2026-06-30 (fiscal)", "· answer 1284 (kept)"} {
					if !seen[s] {
						t.Errorf("%q never came on screen:\n%s", s, d.plain())
					}
				}
				for range 80 {
					d.keys("k")
				}
				d.mustSee("Fields used")
			})
		}
	}
}

// TestEnterConfirmsBesideTheDetail: from 120 columns the cursor on an
// evidence line shows its step in the detail, and enter confirms rather
// than jumping.
func TestEnterConfirmsBesideTheDetail(t *testing.T) {
	d := openAt(t, 120, 40)
	d.keys("tab", "tab")
	for d.m.trace.focus == paneScore {
		it, ok := d.m.trace.currentItem()
		if !ok {
			t.Fatal("no evidence in the scoring pane")
		}
		if it.field == "" && it.step == 6 {
			break
		}
		before := d.m.trace.item
		d.key("j")
		if d.m.trace.item == before {
			t.Fatalf("no evidence about step 6:\n%s", d.plain())
		}
	}
	if d.m.trace.step != 6 {
		t.Fatalf("the detail shows step %d, not the evidence's step 6", d.m.trace.step)
	}
	d.mustSee("── SQL")
	d.mustSee("WHERE does not apply") // the evidence about it, beside it
	// The wheel over the scoring pane scrolls it, not the detail.
	off := d.m.trace.itemOff
	d.send(tea.MouseWheelMsg{X: 119, Y: 20, Button: tea.MouseWheelDown})
	_ = d.plain()
	if d.m.trace.itemOff <= off || d.m.trace.detailOff != 0 {
		t.Errorf("wheel over the scoring pane: its first line %d (was %d), the detail's %d", d.m.trace.itemOff, off, d.m.trace.detailOff)
	}
	d.key("enter")
	// A confirm, not a jump: the label (correct ✓ from the answer a person
	// confirmed for trace_4be07a) is complete, so trace_9f31c2 is
	// confirmed at once and the next trace opens.
	rec, err := d.m.env.eng.Traces.CaseForTrace(context.Background(), "trace_9f31c2")
	if err != nil || rec == nil || rec.Status != model.StatusConfirmed {
		t.Fatalf("enter did not confirm trace_9f31c2: %+v %v\n%s", rec, err, d.plain())
	}
	d.mustSee("trace_5c0d91")
}

// TestAcceptSummaryFits: the summary of what a sets fits every width it
// is drawn at, and says the counts at each.
func TestAcceptSummaryFits(t *testing.T) {
	d := openAt(t, 80, 24)
	ts := d.m.trace
	for _, w := range []int{90, 60, 48, 40, 34, 20} {
		s := ts.acceptSummary(w)
		if got := ansiWidth(s); got > w {
			t.Errorf("width %d: %q is %d wide", w, s, got)
		}
		if w >= 34 && !strings.Contains(s, "4") {
			t.Errorf("width %d: %q lost the counts", w, s)
		}
	}
	if s := ts.acceptSummary(120); s != "a sets 4 required, 3 forbidden · window 2026-04-01→2026-06-30 · answer 1284" {
		t.Errorf("widest summary: %q", s)
	}
}

// TestProgramScrollsScoringToEnd: at 80x24 the labeler tabs to the scoring
// pane of trace_9f31c2 and scrolls (j past the last item, pgdn, J) until
// the pane's last line, the answer a keeps, is on screen.
func TestProgramScrollsScoringToEnd(t *testing.T) {
	p := newProgram(t, openDemoLikeStore(t), Options{}, 80, 24)
	p.waitFor("trace_9f31c2")
	p.send("enter")
	// Under the detail: the scoring pane is off screen.
	p.waitScreen("what a sets", func(f string) bool { return strings.Contains(f, "a sets ✓4 ✗3") })
	p.send("tab", "tab")
	p.waitScreen("the scoring pane", func(f string) bool { return strings.Contains(f, "Fields used") })
	for range 40 {
		p.send("j")
	}
	p.send("pgdown", "J")
	f := p.waitScreen("the pane's last line", func(f string) bool {
		return strings.Contains(f, "· answer 1284 (kept)") && strings.Contains(f, "/55 ")
	})
	for _, s := range []string{"answer confirmed by a person for trace_4be07a", "· window 2026-04-01→2026-06-30 (fiscal)", "a sets ✓4 ✗3"} {
		if !strings.Contains(f, s) {
			t.Errorf("%q not on screen at the pane's end:\n%s", s, f)
		}
	}
	p.send("q")
	m := p.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(probe).m
	if ts := m.trace; ts.itemOff != ts.scoreMax || ts.scoreMax == 0 {
		t.Errorf("the pane's first line %d, its last possible %d", ts.itemOff, ts.scoreMax)
	}
}

// TestProgramAnswerUpdatesCorrect: an answer typed in the gold editor
// sets correct at once, without a: another answer makes it ✗, the right
// one ✓ again.
func TestProgramAnswerUpdatesCorrect(t *testing.T) {
	eng := openDemoLikeStore(t)
	p := newProgram(t, eng, Options{}, 100, 30)
	p.waitFor("trace_9f31c2")
	p.send("enter")
	correct := func(want string) {
		t.Helper()
		p.waitScreen("correct "+want, func(f string) bool {
			return strings.Contains(lineWith(f, " Label "), "correct "+want)
		})
	}
	// The machine suggests the answer a person confirmed for trace_4be07a
	// (same question, same quarter), so correct starts ✓.
	correct("✓")
	p.send("e")
	p.waitScreen("the gold editor", func(f string) bool { return strings.Contains(f, "Gold record") })
	p.send("backspace", "backspace", "backspace", "backspace", "1", "1", "4", "7", "ctrl+s")
	correct("✗")
	p.eventually("trace_9f31c2", "correct false", func(r *app.CaseRecord) bool {
		return r.Case.Label.Correct != nil && !*r.Case.Label.Correct
	})
	p.send("e")
	p.waitScreen("the gold editor", func(f string) bool { return strings.Contains(f, "Gold record") })
	p.send("backspace", "backspace", "backspace", "backspace", "1", "2", "8", "4", "ctrl+s")
	correct("✓")
	p.send("q")
	p.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// TestReportKeepsCases: at 80x24 the Report scrolls to its last class
// and keeps the cases row, what every other number is out of, on screen.
func TestReportKeepsCases(t *testing.T) {
	for _, withCases := range []bool{true, false} {
		eng := openDemoLikeStore(t)
		if withCases {
			eng, _ = openFixtureStore(t)
		}
		d := newDriver(t, eng, 80, 24)
		d.key("R")
		d.mustSee("Failures by class")
		for i := range len(model.Classes) {
			d.key("j")
			d.mustSee(" cases ")
			d.mustSee(string(model.Classes[min(i+1, len(model.Classes)-1)]))
		}
	}
}
