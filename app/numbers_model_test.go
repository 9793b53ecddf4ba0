package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"

	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
	"github.com/tracelab-dev/tracelab/suite"
)

// The model-based test of issue 26: random labeling sequences through the
// engine, and after every action every reader's numbers agree: `tracelab
// report`, the Report screen's data (ReportWithLabels, what tui/report.go
// renders), the HTML report's (ReportDetail), export's report.json, and
// the report of the exported suite imported into a fresh database.

var modelSeqs = flag.Int("numbers.seqs", 200, "random labeling sequences TestNumbersAgreeOnEveryPath runs")

// numbersTemplate makes the database every sequence and every re-import
// starts from, a copy each: the bundled traces, scored (the demo's start,
// no cases). It returns its path and the trace ids.
func numbersTemplate(t *testing.T) (path string, ids []string) {
	t.Helper()
	dir, err := os.MkdirTemp(fastTemp(), "tracelab-numbers-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path = filepath.Join(dir, "traces.db")
	if ids, err = buildNumbersTemplate(path); err != nil {
		t.Fatal(err)
	}
	return path, ids
}

// fastTemp is where the sequences' databases go: memory (/dev/shm) where
// the system has it, as every action syncs the file several times and the
// test makes thousands of them; else the system's temporary folder.
func fastTemp() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if f, err := os.CreateTemp("/dev/shm", "probe-*"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/dev/shm"
		}
	}
	return ""
}

func buildNumbersTemplate(path string) ([]string, error) {
	ctx := context.Background()
	e, err := Open(ctx, path, Files{Lineage: "../testdata/lineage.json"})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	files, _ := filepath.Glob("../testdata/traces/*.jsonl")
	for _, f := range files {
		if _, err := importFile(ctx, e.st, nil, f, ImportOptions{}); err != nil {
			return nil, err
		}
	}
	if _, err := e.Scores.Rescore(ctx, nil, nil); err != nil {
		return nil, err
	}
	return e.st.TraceIDs(ctx, store.Filter{})
}

// copyDB copies a closed SQLite database file to a new one in dir.
func copyDB(t *testing.T, from, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(dir, name)
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return to
}

// openNumbersEngine opens an engine on a copy of the template with the
// bundled policy and lineage.
func openNumbersEngine(t *testing.T, path string) *Engine {
	t.Helper()
	e, err := Open(context.Background(), path, Files{Lineage: "../testdata/lineage.json"})
	if err != nil {
		t.Fatal(err)
	}
	e.SetPolicy(policy(t))
	return e
}

// labelingAction is one step of a sequence: what it did, in words for a
// failure message, and its error (nil, or one a labeler can meet).
type labelingAction struct {
	what string
	err  error
}

// expected says an action's error is one the workbench shows the labeler
// (nothing to undo, an unfinished label, an adjudication of a rater who
// gave no label), not a failure of the engine.
func (a labelingAction) expected() bool {
	if a.err == nil {
		return true
	}
	if _, ok := IsIncomplete(a.err); ok {
		return true
	}
	return errors.Is(a.err, ErrNothingToUndo) || errors.Is(a.err, ErrNothingToRedo) ||
		strings.HasPrefix(a.what, "adjudicate")
}

// modelWorld is what the random actions draw from.
type modelWorld struct {
	ids       []string
	caseLines []string // testdata/cases.jsonl
	fields    []string // field names from lineage.json
}

func newModelWorld(t *testing.T, ids []string) modelWorld {
	t.Helper()
	w := modelWorld{ids: ids}
	data, err := os.ReadFile("../testdata/cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	w.caseLines = strings.Split(strings.TrimSpace(string(data)), "\n")
	var lin map[string][]string
	raw, err := os.ReadFile("../testdata/lineage.json")
	if err == nil {
		err = json.Unmarshal(raw, &lin)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, fs := range lin {
		w.fields = append(w.fields, fs...)
	}
	slices.Sort(w.fields)
	w.fields = slices.Compact(w.fields)
	return w
}

// act runs one random labeling action on e.
func (w modelWorld) act(ctx context.Context, e *Engine, rng *rand.Rand) labelingAction {
	id := w.ids[rng.IntN(len(w.ids))]
	who := []string{"ana", "bob"}[rng.IntN(2)] // a second rater
	do := func(what string, err error) labelingAction {
		return labelingAction{what: fmt.Sprintf("%s %s by %s", what, id, who), err: err}
	}
	var err error
	switch k := rng.IntN(12); k {
	case 0, 1:
		_, err = e.Labels.ConfirmLabel(ctx, id, who, rng.IntN(2) == 0)
		return do("confirm", err)
	case 2:
		_, err = e.Labels.ToggleCorrect(ctx, id, who)
		return do("correct", err)
	case 3:
		_, err = e.Labels.ToggleGrounded(ctx, id, who)
		return do("grounded", err)
	case 4:
		var c *model.FailureClass
		if n := rng.IntN(len(model.Classes) + 1); n < len(model.Classes) {
			c = &model.Classes[n]
		}
		_, err = e.Labels.SetClass(ctx, id, who, c)
		return do(fmt.Sprintf("class %v", classStr(c)), err)
	case 5:
		f := w.fields[rng.IntN(len(w.fields))]
		req := rng.IntN(2) == 0
		_, err = e.Labels.MarkField(ctx, id, who, f, req)
		return do(fmt.Sprintf("mark %s required=%v", f, req), err)
	case 6:
		def := []string{"", "active = subscription_status = 'active'", "open ticket = status in (open, pending)"}[rng.IntN(3)]
		_, err = e.Labels.EditFields(ctx, id, who, FieldEdit{"gold.definition", jsonOf(def)})
		return do(fmt.Sprintf("definition %q", def), err)
	case 7:
		_, err = e.Labels.AcceptSuggestion(ctx, id, who)
		return do("accept", err)
	case 8:
		_, err = e.Labels.Undo(ctx, id, who)
		return do("undo", err)
	case 9:
		_, err = e.Labels.Redo(ctx, id, who)
		return do("redo", err)
	case 10:
		return w.importCases(ctx, e, rng)
	default:
		pick := []string{"ana", "bob", "tracelab"}[rng.IntN(3)]
		_, err = e.Raters.Adjudicate(ctx, id, "lead", AdjudicateRequest{Pick: pick, Note: "settled"})
		return do("adjudicate pick "+pick+" on", err)
	}
}

// importCases imports one to three lines of the bundled cases.jsonl, as
// the suite (human gold) or as carol's labels beside the others'.
func (w modelWorld) importCases(ctx context.Context, e *Engine, rng *rand.Rand) labelingAction {
	var b strings.Builder
	for range 1 + rng.IntN(3) {
		b.WriteString(w.caseLines[rng.IntN(len(w.caseLines))] + "\n")
	}
	opts := ImportOptions{}
	if rng.IntN(2) == 0 {
		opts.Labeler = "carol"
	}
	res, err := e.Imports.Reader(ctx, strings.NewReader(b.String()), "cases.jsonl", opts)
	if err == nil {
		_, err = e.Imports.AfterImport(ctx, res.ToScore, false)
	}
	return labelingAction{what: fmt.Sprintf("import %d case lines (labeler %q)", strings.Count(b.String(), "\n"), opts.Labeler), err: err}
}

func reportJSON(t *testing.T, reps []model.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := model.WriteReportJSON(&b, reps); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// reimported is the report of the suite in dir imported into a fresh
// database holding the bundled traces.
func reimported(t *testing.T, dir, template string) string {
	t.Helper()
	ctx := context.Background()
	e := openNumbersEngine(t, copyDB(t, template, dir, "fresh.db"))
	defer e.Close()
	f, err := os.Open(filepath.Join(dir, "suite", "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := e.Imports.Reader(ctx, f, "cases.jsonl", ImportOptions{})
	if err != nil {
		t.Fatalf("the exported suite does not import: %v", err)
	}
	if _, err := e.Imports.AfterImport(ctx, res.ToScore, false); err != nil {
		t.Fatal(err)
	}
	reps, err := e.Suite.Report(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	return reportJSON(t, reps)
}

// checkNumbers compares every reader's report after an action.
func checkNumbers(t *testing.T, e *Engine, dir, template string) error {
	t.Helper()
	ctx := context.Background()
	if err := e.WaitIdle(ctx); err != nil {
		return err
	}
	reps, err := e.Suite.Report(ctx, false)
	if err != nil {
		return err
	}
	want := reportJSON(t, reps)
	screen, _, err := e.Suite.ReportWithLabels(ctx, false) // the Report screen's data
	if err != nil {
		return err
	}
	detail, err := e.Suite.ReportDetail(ctx, false) // the HTML report's
	if err != nil {
		return err
	}
	os.RemoveAll(filepath.Join(dir, "suite"))
	exp, err := e.Suite.Export(ctx, ExportOptions{Dir: filepath.Join(dir, "suite")})
	if err != nil {
		return err
	}
	n := 0
	for _, r := range reps {
		n += r.Cases
	}
	for _, c := range []struct{ who, got string }{
		{"the Report screen", reportJSON(t, screen)},
		{"report --html", reportJSON(t, detail.Reports)},
		{"export's report.json", reportJSON(t, exp.Reports)},
		{"the exported suite re-imported", reimported(t, dir, template)},
	} {
		if c.got != want {
			return fmt.Errorf("%s says\n%s\nreport says\n%s", c.who, c.got, want)
		}
	}
	if exp.Cases != n || len(detail.Cases) != n {
		return fmt.Errorf("export wrote %d cases, the HTML report lists %d, report counts %d", exp.Cases, len(detail.Cases), n)
	}
	return checkAgreePopulation(ctx, e, detail)
}

// TestNumbersAgreeOnEveryPath runs seeded random labeling sequences over
// the bundled traces (-numbers.seqs sets how many; a failure names the
// seed and the actions that led to it).
func TestNumbersAgreeOnEveryPath(t *testing.T) {
	template, ids := numbersTemplate(t)
	world := newModelWorld(t, ids)
	seqs := *modelSeqs
	if testing.Short() {
		seqs = min(seqs, 20)
	}
	for seed := range seqs {
		rng := rand.New(rand.NewPCG(uint64(seed), 26))
		dir, err := os.MkdirTemp(fastTemp(), "seq-*")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		e := openNumbersEngine(t, copyDB(t, template, dir, "t.db"))
		var done []string
		for range 1 + rng.IntN(4) {
			a := world.act(context.Background(), e, rng)
			done = append(done, a.what)
			if !a.expected() {
				e.Close()
				t.Fatalf("seed %d: %s: %v\nactions: %s", seed, a.what, a.err, strings.Join(done, "; "))
			}
			if err := checkNumbers(t, e, dir, template); err != nil {
				e.Close()
				t.Fatalf("seed %d, after %s:\n%v", seed, strings.Join(done, "; "), err)
			}
		}
		if err := checkCheckVerdicts(context.Background(), e, dir); err != nil {
			e.Close()
			t.Fatalf("seed %d, check after %s:\n%v", seed, strings.Join(done, "; "), err)
		}
		e.Close()
	}
}

// checkAgreePopulation checks that `agree` compares the raters on the
// report's population: every case it compares is one the report counts,
// every rated case the report counts is compared, the rest are stated as
// left out, and the report's case count is the one agree prints.
func checkAgreePopulation(ctx context.Context, e *Engine, detail ReportDetail) error {
	counted := map[string]bool{}
	for _, c := range detail.Cases {
		counted[c.TraceID] = true
	}
	rated, err := e.Raters.RatedCases(ctx)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, tr := range rated {
		if counted[tr.TraceID] {
			want[tr.TraceID] = true
		}
	}
	kept, pop, err := e.ratedInPopulation(ctx)
	if err != nil {
		return err
	}
	got := map[string]bool{}
	for _, tr := range kept {
		if !counted[tr.TraceID] {
			return fmt.Errorf("agree compares %s, a case the report does not count", itemID(tr))
		}
		got[tr.TraceID] = true
	}
	if len(got) != len(want) {
		return fmt.Errorf("agree compares %d rated cases, the report counts %d rated ones", len(got), len(want))
	}
	rep, err := e.Raters.Agreement(ctx, model.AspectClass)
	if err != nil {
		return err
	}
	if p := rep.Population; p == nil || *p != pop || p.Counted != len(detail.Cases) || p.Rated+p.LeftOut != len(rated) {
		return fmt.Errorf("agree states population %+v; the report counts %d cases, %d rated cases in all", rep.Population, len(detail.Cases), len(rated))
	}
	return nil
}

// checkCheckVerdicts runs `check` with the exported suite (left in
// dir/suite by checkNumbers) over the bundled traces unchanged: check
// covers the report's cases, and where a case's own source trace is the
// one new trace it matched, check's verdict follows the report's verdict
// of that case: never "fixed" from a verdict the report counts good, never
// "regressed" from one it counts neither good nor correct.
// TestCheckCountsAPartialLabelAsTheReportDoes pins the case the random
// sequences rarely reach (a partial label on a trace the scorer finds good).
func checkCheckVerdicts(ctx context.Context, e *Engine, dir string) error {
	detail, err := e.Suite.ReportDetail(ctx, false)
	if err != nil || len(detail.Cases) == 0 {
		return err
	}
	verdict := map[string]scoring.Verdict{}
	for _, c := range detail.Cases {
		verdict[c.TraceID] = c.Verdict
	}
	suitePath := filepath.Join(dir, "suite", "cases.jsonl")
	cases, err := ReadSuite(ctx, suitePath)
	if err != nil {
		return err
	}
	source := map[string]string{}
	for _, c := range cases {
		source[c.CaseID] = c.SourceTrace
	}
	traces, _ := filepath.Glob("../testdata/traces/*.jsonl")
	rep, err := RunCheck(ctx, CheckInput{Suite: suitePath, Traces: traces, TempDir: dir})
	if err != nil {
		return err
	}
	if rep.Summary.Cases != len(detail.Cases) {
		return fmt.Errorf("check covers %d cases, the report counts %d", rep.Summary.Cases, len(detail.Cases))
	}
	isTrue := func(b *bool) bool { return b != nil && *b }
	for _, cc := range rep.Cases {
		v, ok := verdict[cc.TraceID]
		if cc.Traces != 1 || cc.TraceID != source[cc.CaseID] || !ok {
			continue
		}
		good := isTrue(v.Correct) && isTrue(v.Grounded) && v.Class == nil
		if cc.Verdict == suite.VerdictFixed && good || cc.Verdict == suite.VerdictRegressed && !good && !isTrue(v.Correct) {
			return fmt.Errorf("check says %s for %s (%s) on its own trace, the report's verdict is %+v", cc.Verdict, cc.CaseID, cc.Reason, v)
		}
	}
	return nil
}
