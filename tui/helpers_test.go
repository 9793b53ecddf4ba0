package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// Tests run on the bundled sample data (../testdata: traces of three MCP
// servers, gold cases, policy and lineage; see ../testdata/README.md),
// scored by the real scorer, plus testdata/hostile.jsonl: one trace in the
// native format of DESIGN.md whose question and reasoning carry terminal
// escape sequences (OSC title change, clear screen, colors), CJK and emoji.

// openFixtureStore imports and scores the sample data into a new database
// file and returns the store and its path.
func openFixtureStore(t testing.TB) (*app.Engine, string) {
	t.Helper()
	return openStore(t, true)
}

// openUnlabeledStore is openFixtureStore without the gold cases: every
// trace waits for a label, scored on suggestions alone.
func openUnlabeledStore(t testing.TB) (*app.Engine, string) {
	t.Helper()
	return openStore(t, false)
}

// openStore opens an engine on a new database with the sample traces (and
// cases), scored with the sample policy and lineage as `tracelab import`
// and `tracelab score` would.
func openStore(t testing.TB, withCases bool) (*app.Engine, string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tracelab.db")
	eng, err := app.Open(ctx, path, app.Files{Policy: filepath.Join(sampleDir, "policy.json"),
		Lineage: filepath.Join(sampleDir, "lineage.json")})
	if err != nil {
		t.Fatal(err)
	}
	eng.SetClock(func() time.Time { return time.Date(2026, 8, 20, 9, 0, 0, 0, time.UTC) })
	t.Cleanup(func() { eng.Close() })
	files := sampleTraceFiles(t)
	if withCases {
		files = append(files, filepath.Join(sampleDir, "cases.jsonl"))
	}
	importScored(t, eng, files)
	return eng, path
}

// sampleTraceFiles is the sample traces and the hostile one.
func sampleTraceFiles(t testing.TB) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(sampleDir, "traces", "*.jsonl"))
	if len(files) == 0 {
		t.Fatalf("no sample traces under %s/traces", sampleDir)
	}
	return append(files, filepath.Join("testdata", "hostile.jsonl"))
}

// importScored imports files into eng in order and scores what they
// brought, as `tracelab import` and `tracelab score` would.
func importScored(t testing.TB, eng *app.Engine, files []string) {
	t.Helper()
	ctx := context.Background()
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = eng.Imports.Reader(ctx, f, name, app.ImportOptions{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := eng.Scores.Rescore(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
}

const sampleDir = "../testdata"

// driver runs the root model synchronously: every command's message is fed
// back to Update until none is left. Cursor blinks and theme queries,
// which a real terminal answers, are dropped.
type driver struct {
	t testing.TB
	m *Model
}

func newDriver(t testing.TB, st *app.Engine, w, h int) *driver {
	t.Helper()
	m := New(st, Options{Labeler: "tester", Theme: "dark", StatusTTL: -1})
	d := &driver{t: t, m: m}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.run(m.Init())
	return d
}

func (d *driver) send(msg tea.Msg) {
	d.t.Helper()
	nm, cmd := d.m.Update(msg)
	d.m = nm.(*Model)
	d.run(cmd)
}

func (d *driver) run(cmd tea.Cmd) {
	d.t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			d.t.Fatal("commands did not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
		default:
			name := reflect.TypeOf(msg).String()
			if strings.Contains(name, "cursor.") || strings.Contains(name, "backgroundColor") ||
				strings.HasPrefix(name, "tea.") {
				continue
			}
			nm, next := d.m.Update(msg)
			d.m = nm.(*Model)
			queue = append(queue, next)
		}
	}
}

// key sends one key press: "j", "enter", "esc", "ctrl+s", "tab"…
func (d *driver) key(k string) {
	d.t.Helper()
	d.send(keyMsg(k))
}

func (d *driver) keys(ks ...string) {
	d.t.Helper()
	for _, k := range ks {
		d.key(k)
	}
}

func (d *driver) typeText(s string) {
	d.t.Helper()
	for _, r := range s {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	}
	if strings.HasPrefix(k, "ctrl+") {
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	r := []rune(k)
	if len(r) != 1 {
		panic(fmt.Sprintf("keyMsg: %q", k))
	}
	if r[0] >= 'A' && r[0] <= 'Z' {
		return tea.KeyPressMsg{Code: r[0] + 32, ShiftedCode: r[0], Mod: tea.ModShift, Text: k}
	}
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

func (d *driver) view() string { return d.m.View().Content }

// plain is the view without styles.
func (d *driver) plain() string { return stripStyles(d.view()) }

func (d *driver) mustSee(s string) {
	d.t.Helper()
	if !strings.Contains(d.plain(), s) {
		d.t.Fatalf("screen does not show %q:\n%s", s, d.plain())
	}
}

func newTestStyles() themes.Styles { return themes.Build(themes.Dark()) }

// sampleTrace is a small trace for tests that need no store.
func sampleTrace() *model.Trace {
	return &model.Trace{TraceID: "t1", Server: "s", Question: "How many?", Steps: []model.Step{
		{Kind: model.KindUser, Text: "How many?"},
		{Kind: model.KindReasoning, Text: "It probably is is_active."},
		{Kind: model.KindToolCall, ID: "c1", Tool: "run_sql", Args: []byte(`{"sql":"SELECT 1"}`)},
		{Kind: model.KindToolResult, CallID: "c1", Result: []byte(`{"rows":[[1]]}`)},
	}}
}
