package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/scoring"
)

// driftStore holds the sample traces and cases, plus, with r3, run r3 of
// the task-specific server (../testdata/drift/task-specific-r3.jsonl: a
// required input added to active_customer_count, invoice_total's
// description changed). No scoring: the drift screen does not need it.
func driftStore(t *testing.T, r3 bool) *app.Engine {
	t.Helper()
	ctx := context.Background()
	st, err := app.Open(ctx, filepath.Join(t.TempDir(), "drift.db"), app.Files{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	files, _ := filepath.Glob(filepath.Join(sampleDir, "traces", "*.jsonl"))
	files = append(files, filepath.Join(sampleDir, "cases.jsonl"))
	if r3 {
		files = append(files, filepath.Join(sampleDir, "drift", "task-specific-r3.jsonl"))
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Imports.Reader(ctx, f, name, app.ImportOptions{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// loadedDriftScreen builds the screen on st and runs its first load.
func loadedDriftScreen(t *testing.T, st *app.Engine) *toolDriftScreen {
	t.Helper()
	d := newToolDriftScreen(context.Background(), st.Drift.AcrossRuns)
	runDriftCmd(t, d, d.refresh())
	return d
}

// runDriftCmd runs cmd and feeds its message back to the screen.
func runDriftCmd(t *testing.T, d *toolDriftScreen, cmd tea.Cmd) tea.Msg {
	t.Helper()
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if next := d.handle(msg); next != nil {
		t.Fatalf("a load result asked for another command")
	}
	return msg
}

func TestDriftScreenListsChangesAndOpensQueue(t *testing.T) {
	d := loadedDriftScreen(t, driftStore(t, true))
	sty := newTestStyles()
	plain := ansi.Strip(d.view(&sty, 160, 46))
	for _, want := range []string{
		"2 tool(s) changed, 1 breaking, 12 labeled case(s) affected",
		"BREAKING active_customer_count",
		"task-specific r2→r3 · 12 case(s), 2 failing",
		"RISKY    invoice_total",
		"task-specific r2→r3 · 12 case(s)",
		"input-property-added-required at inputSchema.properties.segment",
		"tier 1 · input fails",
		"emea-active-q2-018: call 1: recorded args fail the new input schema",
		"na-active-q2-005: call 1: recorded args fail the new input schema",
		"tier 4 · listed",
	} {
		if !strings.Contains(plain, want) {
			t.Errorf("screen lacks %q:\n%s", want, plain)
		}
	}
	// enter asks the root for the queue of the affected cases' traces.
	msg := d.handle(keyMsg("enter"))().(driftOpenQueueMsg)
	if msg.tool != "active_customer_count" || msg.server != "task-specific" || len(msg.traceIDs) != 12 {
		t.Errorf("open queue: %+v", msg)
	}
	// j moves to the next change; its details follow.
	d.handle(keyMsg("j"))
	plain = ansi.Strip(d.view(&sty, 160, 46))
	if !strings.Contains(plain, "tool-description-changed at description") ||
		!strings.Contains(plain, "emea-invoiced-aug-012: called invoice_total 1 time(s)") {
		t.Errorf("after j:\n%s", plain)
	}
	msg = d.handle(keyMsg("enter"))().(driftOpenQueueMsg)
	if msg.tool != "invoice_total" {
		t.Errorf("open queue after j: %+v", msg)
	}
	d.handle(keyMsg("j")) // stays on the last change
	if d.cursor != 1 {
		t.Errorf("cursor %d after moving past the end", d.cursor)
	}
}

func TestDriftScreenGolden(t *testing.T) {
	st := driftStore(t, true)
	for _, size := range [][2]int{{80, 22}, {160, 46}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			d := loadedDriftScreen(t, st)
			sty := newTestStyles()
			golden.RequireEqual(t, ansi.Strip(fitBlock(d.view(&sty, size[0], size[1]), size[0], size[1])))
		})
	}
}

func TestDriftScreenStatesAndStaleLoads(t *testing.T) {
	sty := newTestStyles()
	// Before the answer, while loading.
	d := newToolDriftScreen(context.Background(), func(context.Context) (app.DriftOverview, error) { return app.DriftOverview{}, nil })
	cmd := d.refresh()
	if !strings.Contains(ansi.Strip(d.view(&sty, 80, 20)), "comparing each run's tool contracts") {
		t.Error("no loading state")
	}
	// A second load makes the first answer stale: it is dropped.
	stale := cmd()
	d.refresh()
	d.handle(stale)
	if d.loaded {
		t.Error("a stale load result was applied")
	}
	// Sample data alone: r1 and r2 saw the same contracts.
	d = loadedDriftScreen(t, driftStore(t, false))
	if got := ansi.Strip(d.view(&sty, 120, 20)); !strings.Contains(got, "No tool contract changed across imported runs (5 run(s) of 3 server(s) compared).") {
		t.Errorf("empty state:\n%s", got)
	}
	if d.handle(keyMsg("enter")) != nil {
		t.Error("enter with no change asked for the queue")
	}
	// No loader wired.
	d = newToolDriftScreen(context.Background(), nil)
	runDriftCmd(t, d, d.refresh())
	if got := ansi.Strip(d.view(&sty, 80, 20)); !strings.Contains(got, "no drift in this build") {
		t.Errorf("no loader:\n%s", got)
	}
}

// Names and evidence come from untrusted traces: control sequences are
// cleaned before drawing, and no frame line is wider than the screen.
func TestDriftScreenHostileTextAndSizes(t *testing.T) {
	evil := "evil\x1b]0;pwned\x07\x1b[2J名前🙂"
	ov := app.DriftOverview{Changes: []app.ToolChange{{
		Server: "s\x1b[31m", Tool: evil, OldRun: "r1", NewRun: "r2\r\n", Lane: scoring.LaneBreaking, Security: true,
		Findings: []scoring.DriftFinding{{ID: "tool-removed", Tool: evil, Lane: scoring.LaneBreaking, Message: "tool removed: " + evil, Fingerprint: "abc"}},
		Cases:    []scoring.AffectedCase{{CaseID: "case\x1b]8;;http://x\x07", Tool: evil, Tier: scoring.TierCalled, Evidence: strings.Repeat("very long evidence ", 40)}},
		TraceIDs: []string{"t1"},
	}}}
	d := newToolDriftScreen(context.Background(), func(context.Context) (app.DriftOverview, error) { return ov, nil })
	runDriftCmd(t, d, d.refresh())
	sty := newTestStyles()
	for _, size := range [][2]int{{40, 10}, {80, 24}, {100, 30}, {300, 90}} {
		v := d.view(&sty, size[0], size[1])
		for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "\r"} {
			if strings.Contains(v, bad) {
				t.Errorf("%dx%d: view carries %q", size[0], size[1], bad)
			}
		}
		lines := strings.Split(v, "\n")
		if len(lines) > size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for i, l := range lines {
			if ansi.StringWidth(l) > size[0] {
				t.Errorf("%dx%d: line %d is %d wide", size[0], size[1], i, ansi.StringWidth(l))
			}
		}
	}
	// Scrolling the details stays within them.
	for range 50 {
		d.handle(keyMsg("J"))
	}
	if v := ansi.Strip(d.view(&sty, 80, 24)); !strings.Contains(v, "very long evidence") {
		t.Errorf("scrolled past the details:\n%s", v)
	}
}

// The root routes D to the drift screen, loads it in a command, and enter
// on a changed tool opens the queue on the affected cases' traces.
func TestDriftScreenThroughTheRoot(t *testing.T) {
	st := driftStore(t, true)
	d := newDriver(t, st, 160, 48)
	d.key("D")
	d.mustSee("active_customer_count")
	d.key("?")
	d.mustSee("enter")
	d.key("esc")
	d.key("enter")
	if d.m.screen != screenQueue || len(d.m.queue.filter.TraceIDs) == 0 {
		t.Fatalf("enter on a drifted tool did not open the filtered queue (screen %v, filter %+v)", d.m.screen, d.m.queue.filter)
	}
	d.mustSee("affected by active_customer_count")
	d.key("D")
	d.key("esc")
	if d.m.screen != screenQueue {
		t.Fatalf("esc on the drift screen went to %v", d.m.screen)
	}
}

// The filter dialog's sample group limits the queue to the queued traces,
// and Options.QueuedOnly (tracelab --queued) starts there.
func TestQueueLimitedToTheSample(t *testing.T) {
	d := newFilterDialog(app.Filter{QueuedOnly: true}, &filterValues{}, 0)
	if !d.filter().QueuedOnly {
		t.Fatal("the sample group lost QueuedOnly")
	}
	d = newFilterDialog(app.Filter{}, &filterValues{}, 0)
	if d.filter().QueuedOnly {
		t.Fatal("QueuedOnly set without choosing it")
	}
	st := driftStore(t, false)
	if err := st.Queue.Set(context.Background(), []string{"trace_9f31c2", "trace_4be07a"}); err != nil {
		t.Fatal(err)
	}
	m := New(st, Options{Labeler: "tester", Theme: "dark", StatusTTL: -1, QueuedOnly: true})
	dr := &driver{t: t, m: m}
	dr.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	dr.run(m.Init())
	if n := len(dr.m.queue.rows); n != 2 {
		t.Fatalf("queue shows %d rows, want the 2 queued traces", n)
	}
	dr.mustSee("sample:")
}
