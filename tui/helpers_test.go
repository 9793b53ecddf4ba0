package tui

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"tracelab/store"
)

// The fixtures in testdata/ are written for these tests:
//   - traces.jsonl follows the native trace format of DESIGN.md ("Native
//     trace format"); the first two traces are the seed's opening example
//     (000_4057f658599f16cd.txt: the same EMEA question on a generic SQL
//     server and a task-specific server), the others one per failure class,
//     plus one whose text holds terminal escape sequences, CJK and emoji.
//   - scores.jsonl holds one scoring.TraceScore JSON object per trace (the
//     shape the scorer stores with Store.SaveScores), marker offsets
//     computed as byte offsets into each step's text.

// openFixtureStore imports the fixtures into a new database file and
// returns the store and its path.
func openFixtureStore(t testing.TB) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tracelab.db")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	loadFixtures(t, st)
	return st, path
}

func loadFixtures(t testing.TB, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	st.SetClock(func() time.Time { return time.Date(2026, 7, 4, 9, 0, 0, 0, time.UTC) })
	if _, err := st.ImportFile(ctx, filepath.Join("testdata", "traces.jsonl"), store.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", "scores.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []store.ScoreRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s struct {
			TraceID          string   `json:"trace_id"`
			SuggestedClass   *string  `json:"suggested_class"`
			Markers          []any    `json:"markers"`
			NeedsHumanReview bool     `json:"needs_human_review"`
			Correct          *bool    `json:"correct"`
			Grounded         *bool    `json:"grounded"`
			_                struct{} `json:"-"`
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		r := store.ScoreRow{TraceID: s.TraceID, Markers: len(s.Markers), NeedsReview: s.NeedsHumanReview,
			Correct: s.Correct, Grounded: s.Grounded, Detail: append(json.RawMessage(nil), sc.Bytes()...)}
		if s.SuggestedClass != nil {
			r.SuggestedClass = *s.SuggestedClass
		}
		rows = append(rows, r)
	}
	if err := st.SaveScores(ctx, rows); err != nil {
		t.Fatal(err)
	}
}

// driver runs the root model synchronously: every command's message is fed
// back to Update until none is left. Cursor blinks and theme queries,
// which a real terminal answers, are dropped.
type driver struct {
	t testing.TB
	m Model
}

func newDriver(t testing.TB, st *store.Store, w, h int) *driver {
	t.Helper()
	m := New(st, Options{Labeler: "tester", Theme: "dark"})
	d := &driver{t: t, m: m}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.run(m.Init())
	return d
}

func (d *driver) send(msg tea.Msg) {
	d.t.Helper()
	nm, cmd := d.m.Update(msg)
	d.m = nm.(Model)
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
			d.m = nm.(Model)
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
