package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
)

// helperEnv makes the test binary run the workbench on a database instead
// of the tests: the subprocess tests drive it in a real terminal.
const helperEnv = "TRACELAB_TUI_HELPER_DB"

func TestMain(m *testing.M) {
	if db := os.Getenv(helperEnv); db != "" {
		os.Exit(runHelper(db))
	}
	os.Exit(m.Run())
}

func runHelper(db string) int {
	ctx := context.Background()
	st, err := app.Open(ctx, db, app.Files{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	opts := Options{Labeler: os.Getenv("TRACELAB_TUI_HELPER_LABELER"), Theme: "dark"}
	if err := Run(ctx, st, opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// e2e runs scripts/tui_e2e.sh with plan on the workbench over db.
func e2e(t *testing.T, db, labeler, size, plan string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the terminal end-to-end tests need it")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("../scripts/tui_e2e.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script, "-s", size, "-t", "20", "--",
		"env", helperEnv+"="+db, "TRACELAB_TUI_HELPER_LABELER="+labeler, self, "-test.run=^$")
	cmd.Stdin = strings.NewReader(plan)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tui_e2e.sh: %v\n%s", err, out)
	}
}

// TestLabelsSurviveSIGKILL labels a trace in a real process on a real
// terminal, kills it with SIGKILL without quitting, reopens the database:
// the labels and their events are there.
func TestLabelsSurviveSIGKILL(t *testing.T) {
	st, db := openUnlabeledStore(t)
	st.Close()
	shot := filepath.Join(t.TempDir(), "before-kill.txt")
	e2e(t, db, "killer", "100x30", `
wait 33 traces
send Enter
wait Steps 9
send ]
send c
wait correct ✓
send 3
wait class structural
send e Tab
type 0.5
send C-s
wait gold saved
capture `+shot+`
kill
`)
	st2, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	rec, err := st2.CaseForTrace(context.Background(), "trace_9f31c2")
	if err != nil || rec == nil {
		t.Fatalf("no case after the kill: %v", err)
	}
	l := rec.Case.Label
	if l.Correct == nil || !*l.Correct || l.FailureClass == nil || *l.FailureClass != model.ClassStructural {
		t.Errorf("label after the kill: %+v", l)
	}
	if tol := rec.Case.Gold.Tolerance; tol == nil || *tol != 0.5 {
		t.Errorf("gold tolerance after the kill: %v", tol)
	}
	evs, err := st2.Events(context.Background(), rec.Case.CaseID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.Who+":"+e.Field)
	}
	if want := "killer:label.correct killer:label.failure_class killer:gold.tolerance"; strings.Join(got, " ") != want {
		t.Errorf("events after the kill: %v, want %s", got, want)
	}
	b, _ := os.ReadFile(shot)
	if !strings.Contains(string(b), "class structural") {
		t.Errorf("screen before the kill:\n%s", b)
	}
}

// TestTerminalEndToEnd opens the workbench in tmux at the smallest
// supported size, walks the screens and quits: exit status 0 and the alt
// screen gone (the terminal is restored).
func TestTerminalEndToEnd(t *testing.T) {
	_, db := openFixtureStore(t)
	dir := t.TempDir()
	e2e(t, db, "e2e", "80x24", `
wait 33 traces
capture `+filepath.Join(dir, "queue.txt")+`
send /
type Kunden
wait Wie viele
send Enter Enter
wait Steps 4
send j
wait probably
capture `+filepath.Join(dir, "trace.txt")+`
send Escape
wait search:"Kunden"
send R
wait grounding precision
send ?
wait Keys: report
send Space
wait needs human review
send Escape
wait search:"Kunden"
send Escape
wait 33 traces
quit
gone 33 traces
`)
	trace, _ := os.ReadFile(filepath.Join(dir, "trace.txt"))
	if strings.Contains(string(trace), "owned") {
		t.Errorf("the OSC payload reached the terminal:\n%s", trace)
	}
	for i, l := range strings.Split(strings.TrimRight(string(trace), "\n"), "\n") {
		if w := len([]rune(l)); w > 80 {
			t.Errorf("line %d longer than the terminal: %q", i, l)
		}
	}
}

// TestCancelledProgramKeepsLabels is the in-process variant: the program
// is stopped by its context (no quit key), the file is reopened.
func TestCancelledProgramKeepsLabels(t *testing.T) {
	st, db := openUnlabeledStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	m := New(st, Options{Labeler: "cancelled", Theme: "dark"})
	m.env.ctx = ctx
	pr, pw := io.Pipe()
	defer pw.Close()
	fp := &frameProbe{}
	p := tea.NewProgram(probe{m, fp}, tea.WithContext(ctx), tea.WithInput(pr), tea.WithOutput(io.Discard),
		tea.WithWindowSize(100, 30))
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	waitCase := func(cond func(*app.CaseRecord) bool) {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if rec, _ := st.Traces.CaseForTrace(context.Background(), "trace_9f31c2"); rec != nil && cond(rec) {
				return
			}
		}
		t.Fatal("edit not stored within 5s")
	}
	// Keys wait for the screen they act on, not for a fixed time.
	waitFrame := func(what string) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			fp.mu.Lock()
			f := fp.frame
			fp.mu.Unlock()
			if strings.Contains(f, what) {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("%q not on screen within 10s; the screen:\n%s", what, f)
			}
		}
	}
	waitFrame("33 traces") // the first page
	p.Send(keyMsg("enter"))
	waitFrame("Steps ") // the trace has loaded
	p.Send(keyMsg("g"))
	waitCase(func(r *app.CaseRecord) bool { return r.UpdatedBy == "cancelled" })
	cancel()
	if err := <-done; err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		t.Fatalf("program ended with %v", err)
	}
	st.Close()
	st2, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	rec, _ := st2.CaseForTrace(context.Background(), "trace_9f31c2")
	if rec == nil || rec.Case.Label.Grounded == nil || !*rec.Case.Label.Grounded || rec.UpdatedBy != "cancelled" {
		t.Fatalf("after reopening: %+v", rec)
	}
}
