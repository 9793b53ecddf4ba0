package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

const judgeCmd = "sh testdata/raters/judge.sh"

// raterDB imports the bundled traces, ana's cases (each line names her),
// bob's (the file names nobody: --labeler bob) and runs the test judge.
func raterDB(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "t.db")
	traces, _ := filepath.Glob("testdata/traces/*.jsonl")
	steps := [][]string{
		append([]string{"import", "--db", db, "--policy", "testdata/policy.json"}, traces...),
		{"import", "--db", db, "testdata/raters/ana.cases.jsonl"},
		{"import", "--db", db, "--labeler", "bob", "testdata/raters/bob.cases.jsonl"},
		{"judge", "--db", db, "--policy", "testdata/policy.json", "--judge", judgeCmd},
	}
	for _, args := range steps {
		if out, errs, code := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	return db
}

// Two labelers and a judge end to end: import adds bob's labels beside
// ana's, the judge is one more rater, agree compares them all with
// tracelab, and export --labels all writes every rater's label, which an
// import reads back into the same agreement.
func TestTwoLabelersAndAJudge(t *testing.T) {
	db := raterDB(t)
	out, errs, code := run(t, "import", "--db", db, "--labeler", "bob", "testdata/raters/bob.cases.jsonl")
	if code != 0 || !strings.Contains(out, "0 new, 11 unchanged") {
		t.Errorf("bob's file again: exit %d %q %s", code, out, errs)
	}
	for _, g := range []struct {
		golden string
		args   []string
	}{
		{"agree-class.golden", []string{"agree"}},
		{"agree-correct.golden.md", []string{"agree", "--by", "correct", "--format", "markdown"}},
		{"agree-fields.golden", []string{"agree", "--by", "fields"}},
		{"progress.golden", []string{"agree", "--progress"}},
	} {
		out, errs, code := run(t, append(g.args, "--db", db)...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", g.args, code, errs)
		}
		checkGolden(t, filepath.Join("testdata", "raters", g.golden), out)
	}
	var ps []app.LabelerProgress
	out, _, _ = run(t, "agree", "--progress", "--format", "json", "--db", db)
	if err := json.Unmarshal([]byte(out), &ps); err != nil || len(ps) != 4 {
		t.Fatalf("progress json: %v %q", err, out)
	}
	// ana and bob disagree on acme-open-tickets-031 (class),
	// deals-closing-sep-emea-014 (correct) and emea-active-q2-017 (fields).
	want := app.LabelerProgress{Rater: "ana", Kind: model.RaterHuman, Labeled: 10, Confirmed: 10, Disputed: 3}
	if ps[0] != want || ps[2].Rater != "judge:judge" || ps[2].Labeled != 32 || ps[3].Rater != "tracelab" {
		t.Errorf("progress %+v", ps)
	}
	var rows []struct {
		TraceID string `json:"trace_id"`
	}
	ls, _, _ := run(t, "ls", "--db", db, "--disputed", "--format", "json")
	if err := json.Unmarshal([]byte(ls), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("ls --disputed: %v %s", err, ls)
	}

	// The lead settles emea-active-q2-017 (ana and bob differ on its
	// required fields) by taking bob's label and field sets.
	eng, err := app.Open(context.Background(), db, app.Files{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Raters.Adjudicate(context.Background(), "trace_9f31c2", "lead", app.AdjudicateRequest{Pick: "bob", Note: "the period is implied"}); err != nil {
		t.Fatal(err)
	}
	eng.Close()

	dir := t.TempDir()
	if _, errs, code := run(t, "export", "--db", db, "--out", dir, "--labels", "all"); code != 0 {
		t.Fatalf("export --labels all: %d %s", code, errs)
	}
	lines := readCases(t, filepath.Join(dir, "cases.jsonl"))
	acme := lines["acme-open-tickets-031"]
	if !acme.Label.Unset() {
		t.Errorf("disputed case exported with final label %+v, want pending (unset)", acme.Label)
	}
	var names []string
	for _, l := range acme.Labels {
		names = append(names, l.Rater)
	}
	if strings.Join(names, ",") != "ana,bob,judge:judge,tracelab" {
		t.Errorf("labels of acme-open-tickets-031: %v", names)
	}
	if l := lines["acme-open-tickets-032"].Label; l.Correct == nil || !*l.Correct {
		t.Errorf("agreed case: final label %+v, want ana's and bob's correct", l)
	}
	if c := lines["emea-active-q2-017"]; c.Adjudication == nil || c.Label.Note != "the period is implied" || len(c.Gold.RequiredFields) != 2 {
		t.Errorf("adjudicated case: label %+v, gold fields %v, adjudication %+v", c.Label, c.Gold.RequiredFields, c.Adjudication)
	}

	// The export read back: every person's and judge's label returns.
	db2 := filepath.Join(t.TempDir(), "t2.db")
	traces, _ := filepath.Glob("testdata/traces/*.jsonl")
	if _, errs, code := run(t, append([]string{"import", "--db", db2, "--policy", "testdata/policy.json"}, traces...)...); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := run(t, "import", "--db", db2, filepath.Join(dir, "cases.jsonl")); code != 0 {
		t.Fatalf("import the export: %s", errs)
	}
	// Everything returns: the same file from the second database.
	dir2 := t.TempDir()
	if _, errs, code := run(t, "export", "--db", db2, "--out", dir2, "--labels", "all"); code != 0 {
		t.Fatalf("export again: %s", errs)
	}
	first, _ := os.ReadFile(filepath.Join(dir, "cases.jsonl"))
	again, _ := os.ReadFile(filepath.Join(dir2, "cases.jsonl"))
	if string(first) != string(again) {
		t.Errorf("export --labels all, imported and exported again, differs:\n%s\nwant\n%s", again, first)
	}
	a, _, _ := run(t, "agree", "--db", db, "--format", "json")
	b, _, _ := run(t, "agree", "--db", db2, "--format", "json")
	if pairOf(t, a, "ana", "bob") != pairOf(t, b, "ana", "bob") {
		t.Errorf("ana and bob after a round trip:\n%s\nwant\n%s", pairOf(t, b, "ana", "bob"), pairOf(t, a, "ana", "bob"))
	}
}

// pairOf is the JSON of one rater pair of an agree --format json report.
func pairOf(t *testing.T, report, a, b string) string {
	t.Helper()
	var r struct {
		Nominal struct {
			Pairs []map[string]any `json:"pairs"`
		} `json:"nominal"`
	}
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatalf("%v: %s", err, report)
	}
	for _, p := range r.Nominal.Pairs {
		if p["a"] == a && p["b"] == b {
			out, _ := json.Marshal(p)
			return string(out)
		}
	}
	t.Fatalf("no pair %s-%s in %s", a, b, report)
	return ""
}

func readCases(t *testing.T, path string) map[string]model.Case {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]model.Case{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c model.Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out[c.CaseID] = c
	}
	return out
}

// One labeler's cases export as they were imported, byte for byte: the
// final label of a case one person labeled is theirs, and the default
// export writes no labeler or labels.
func TestOneLabelerExportsUnchanged(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	traces, _ := filepath.Glob("testdata/traces/*.jsonl")
	if _, errs, code := run(t, append([]string{"import", "--db", db, "--policy", "testdata/policy.json"}, traces...)...); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := run(t, "import", "--db", db, "testdata/raters/ana.cases.jsonl"); code != 0 {
		t.Fatal(errs)
	}
	dir := t.TempDir()
	if _, errs, code := run(t, "export", "--db", db, "--out", dir); code != 0 {
		t.Fatal(errs)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "cases.jsonl"))
	suite, _ := os.ReadFile("testdata/cases.jsonl")
	ana, _ := os.ReadFile("testdata/raters/ana.cases.jsonl")
	var want strings.Builder
	for _, line := range strings.SplitAfter(string(suite), "\n") {
		var c model.Case
		if json.Unmarshal([]byte(line), &c) == nil && strings.Contains(string(ana), `"case_id":"`+c.CaseID+`"`) {
			want.WriteString(line)
		}
	}
	if string(got) != want.String() {
		t.Errorf("export of ana's cases differs from the suite's lines:\n%s\nwant\n%s", got, want.String())
	}
}

// A judge that cannot answer stops the run with exit 2 naming the judge
// and the trace, and leaves no label for that trace.
func TestJudgeFailuresAreErrors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	if _, errs, code := run(t, "import", "--db", db, "testdata/traces/support-crm.jsonl"); code != 0 {
		t.Fatal(errs)
	}
	for _, tt := range []struct {
		mode string
		args []string
		want string
	}{
		{"hang", []string{"--timeout", "300ms"}, "did not answer within 300ms"},
		{"flood", []string{"--max-output", "4096"}, "wrote more than 4096 bytes (the cap is --max-output)"},
		{"malformed", nil, `expected one JSON object {"failure_class","correct","grounded","rationale"} on stdout`},
		{"typo", nil, `the verdict has no "failure_class"`},
		{"fail", nil, "failed: judge: model endpoint unreachable"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			args := append([]string{"judge", "--db", db, "--judge", judgeCmd + " " + tt.mode}, tt.args...)
			_, errs, code := run(t, args...)
			if code != 2 || !strings.Contains(errs, "judge:judge on trace trace_") || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 naming judge:judge, the trace and %q", code, errs, tt.want)
			}
			out, _, _ := run(t, "agree", "--db", db, "--progress", "--format", "json")
			if strings.Contains(out, "judge:") {
				t.Errorf("a failed judge left labels: %s", out)
			}
		})
	}
	if _, errs, code := run(t, "judge", "--db", db); code != 2 || !strings.Contains(errs, "--judge CMD is required") {
		t.Errorf("no --judge: exit %d %q", code, errs)
	}
	if _, errs, code := run(t, "agree", "--db", db, "--by", "mood"); code != 2 || !strings.Contains(errs, `--by "mood"`) {
		t.Errorf("agree --by mood: exit %d %q", code, errs)
	}
}

// A judge's labels of traces nobody labeled yet survive the suite that
// later brings those traces' cases: they move to the suite's case, and
// the trace keeps one case.
func TestJudgeBeforeTheSuite(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	traces, _ := filepath.Glob("testdata/traces/*.jsonl")
	for _, args := range [][]string{
		append([]string{"import", "--db", db, "--policy", "testdata/policy.json"}, traces...),
		{"judge", "--db", db, "--policy", "testdata/policy.json", "--judge", judgeCmd},
		{"import", "--db", db, "testdata/cases.jsonl"},
	} {
		if out, errs, code := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	dir := t.TempDir()
	if _, errs, code := run(t, "export", "--db", db, "--out", dir, "--labels", "all"); code != 0 {
		t.Fatal(errs)
	}
	c := readCases(t, filepath.Join(dir, "cases.jsonl"))["emea-active-q2-017"]
	if len(c.Labels) != 2 || c.Labels[0].Rater != "judge:judge" || c.Labels[1].Rater != "tracelab" {
		t.Errorf("labels of the suite's case: %+v", c.Labels)
	}
	out, _, _ := run(t, "ls", "--db", db, "--format", "json")
	var rows []struct {
		TraceID string `json:"trace_id"`
		CaseID  string `json:"case_id"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.TraceID == "trace_9f31c2" && r.CaseID != "emea-active-q2-017" {
			t.Errorf("trace_9f31c2 shows case %s, want the suite's", r.CaseID)
		}
	}
	if _, errs, code := run(t, "agree", "--db", db, "--progress"); code != 0 {
		t.Fatal(errs)
	}
}
