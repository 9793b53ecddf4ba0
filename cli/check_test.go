package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// exportedSuite imports the bundled traces and their confirmed cases into
// a fresh database and exports the suite, as a team would before CI.
func exportedSuite(t *testing.T) (suitePath, db string) {
	t.Helper()
	dir := t.TempDir()
	db = filepath.Join(dir, "team.db")
	files, _ := filepath.Glob("testdata/traces/*.jsonl")
	args := append([]string{"import", "--db", db, "--no-score"}, files...)
	args = append(args, "testdata/cases.jsonl")
	if _, errs, code := run(t, args...); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	out := filepath.Join(dir, "suite")
	if _, errs, code := run(t, "export", "--db", db, "--out", out); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	return filepath.Join(out, "cases.jsonl"), db
}

type checkJSON struct {
	Cases []struct {
		CaseID           string `json:"case_id"`
		Verdict          string `json:"verdict"`
		Reason           string `json:"reason"`
		TraceID          string `json:"trace_id"`
		PolicyViolations int    `json:"policy_violations"`
	} `json:"cases"`
	Summary map[string]any `json:"summary"`
}

// junitDoc is read back with encoding/xml, as a CI reporter would.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestCheckVerdictsReasonsJUnitAndExitCode(t *testing.T) {
	suitePath, _ := exportedSuite(t)
	dir := t.TempDir()
	junit := filepath.Join(dir, "check.xml")
	report := filepath.Join(dir, "report.json")
	out, errs, code := run(t, "check", "--suite", suitePath, "--policy", "testdata/policy.json",
		"--lineage", "testdata/lineage.json", "--format", "json", "--junit", junit, "--report", report,
		"testdata/check/new-run.jsonl")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (regressions and a policy leak)\n%s", code, errs)
	}
	var got checkJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("--format json: %v\n%s", err, out)
	}
	byCase := map[string]int{}
	for i, c := range got.Cases {
		byCase[c.CaseID] = i
	}
	tests := []struct {
		caseID, verdict string
		reason          []string // substrings of the one-line reason
		policy          bool
	}{
		// A forbidden column creeps back into the WHERE (matched by metadata.case_id).
		{"emea-active-q2-019", "regressed", []string{"forbidden field used: customers.is_active (step 6)"}, false},
		// The tool read a snapshot older than the case's 24h bound.
		{"emea-active-q2-018", "regressed", []string{"freshness at step 2", "30h old", "over the 24h bound"}, false},
		// A policy leak: the service account returns another region's row.
		{"deals-closing-sep-emea-015", "regressed", []string{"policy violation at step 2: row 5 has region = NA", "ran as svc-warehouse"}, true},
		// The governed predicate is narrowed: pending tickets dropped.
		{"acme-open-tickets-032", "regressed", []string{`predicate differs at step 5`, `"open ticket" (status in (open, pending))`}, false},
		// Fixed: the r3 agent applies the definition the suite said it ignored.
		{"emea-active-q2-017", "fixed", []string{"correct and grounded", "the suite label was correct, not grounded, semantic"}, false},
		{"acme-open-tickets-031", "fixed", []string{"correct and grounded", "wrong, not grounded, entity"}, false},
		// Fixed, but the answer names deals where the gold lists ids: a person checks it.
		{"deals-closing-sep-emea-014", "fixed", []string{"grounded; the answer needs a person"}, false},
		// Missing: no trace carries its case_id or its question.
		{"bookings-q4-fy26-003", "missing", []string{"no new trace for this case"}, false},
		// Unchanged reruns.
		{"revenue-q3-fy26-011", "pass", []string{"correct and grounded"}, false},
		{"na-active-q2-004", "failing", []string{"forbidden field used: customers.status", "required field missing: customers.subscription_status"}, false},
		{"emea-billing-contacts-009", "failing", []string{"policy violation at step 4: column email is denied"}, true},
		// Matched by identical question and as_user (no metadata.case_id).
		{"initech-urgent-tickets-044", "failing", []string{"wrong answer: the answer says there are none"}, false},
		{"umbrella-risk-signals-005", "failing", []string{"wrong answer"}, false},
	}
	for _, tt := range tests {
		i, ok := byCase[tt.caseID]
		if !ok {
			t.Errorf("%s: not reported", tt.caseID)
			continue
		}
		c := got.Cases[i]
		if c.Verdict != tt.verdict {
			t.Errorf("%s: verdict %s, want %s (%s)", tt.caseID, c.Verdict, tt.verdict, c.Reason)
		}
		for _, want := range tt.reason {
			if !strings.Contains(c.Reason, want) {
				t.Errorf("%s: reason %q lacks %q", tt.caseID, c.Reason, want)
			}
		}
		if (c.PolicyViolations > 0) != tt.policy {
			t.Errorf("%s: policy violations %d", tt.caseID, c.PolicyViolations)
		}
		if strings.Contains(c.Reason, "\n") {
			t.Errorf("%s: reason spans lines", tt.caseID)
		}
	}
	want := map[string]float64{"cases": 28, "pass": 8, "regressed": 4, "fixed": 3, "failing": 12, "missing": 1,
		"policy_violations": 3, "traces": 28, "unmatched": 1}
	for k, v := range want {
		if got.Summary[k] != v {
			t.Errorf("summary %s = %v, want %v", k, got.Summary[k], v)
		}
	}
	if got.Summary["failed"] != true {
		t.Error("summary.failed is not true")
	}

	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("JUnit does not parse: %v", err)
	}
	// 28 cases and the coverage gate. Failures: the 4 regressions, the 2
	// still-failing cases that leak, the missing case (coverage is not
	// relaxed) and the gate; skipped: the 10 other failing cases.
	if doc.Tests != 29 || doc.Failures != 8 || doc.Skipped != 10 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 29 {
		t.Fatalf("JUnit counts: tests %d failures %d skipped %d", doc.Tests, doc.Failures, doc.Skipped)
	}
	for _, tc := range doc.Suites[0].Cases {
		if tc.Name == "coverage" {
			if tc.Failure == nil || !strings.Contains(tc.Failure.Message, "27 of 28 suite cases") {
				t.Errorf("JUnit coverage gate: %+v", tc.Failure)
			}
			continue
		}
		c := got.Cases[byCase[tc.Name]]
		failed := c.Verdict == "regressed" || c.PolicyViolations > 0 || c.Verdict == "missing"
		switch {
		case failed && (tc.Failure == nil || tc.Failure.Message != c.Reason):
			t.Errorf("JUnit %s: failure %+v, want message %q", tc.Name, tc.Failure, c.Reason)
		case !failed && tc.Failure != nil:
			t.Errorf("JUnit %s: unexpected failure", tc.Name)
		case (c.Verdict == "missing" || c.Verdict == "failing") && !failed && tc.Skipped == nil:
			t.Errorf("JUnit %s: %s case not skipped", tc.Name, c.Verdict)
		}
	}

	var reports []map[string]any
	rb, _ := os.ReadFile(report)
	if err := json.Unmarshal(rb, &reports); err != nil || len(reports) != 3 {
		t.Fatalf("--report: %v %s", err, rb)
	}
}

// newRunLines keeps the lines of the new-run fixture whose case is listed.
func newRunLines(t *testing.T, keep ...string) string {
	t.Helper()
	f, err := os.Open("testdata/check/new-run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		for _, id := range keep {
			if strings.Contains(sc.Text(), `"trace_id":"new_`+id+`"`) {
				b.Write(sc.Bytes())
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

func TestCheckExitCodesAndFormats(t *testing.T) {
	suitePath, _ := exportedSuite(t)
	dir := t.TempDir()
	good := writeIn(t, dir, "good.jsonl", newRunLines(t, "emea-active-q2-017", "revenue-q3-fy26-011", "na-avg-deal-q2-013"))
	leak := writeIn(t, dir, "leak.jsonl", newRunLines(t, "emea-billing-contacts-009"))
	strict := []string{"check", "--suite", suitePath, "--policy", "testdata/policy.json"}
	base := []string{"check", "--suite", suitePath, "--policy", "testdata/policy.json", "--allow-missing"}

	// No coverage, no pass: 3 of 28 cases is a failure of its own.
	out, errs, code := run(t, append(strict, good)...)
	if code != 1 || strings.Contains(out, "OK") || !strings.Contains(out, "FAIL: coverage: 3 of 28 suite cases were matched by a new trace (10.7%), below the 100% required") {
		t.Errorf("3 of 28 cases covered: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = run(t, append(base, good)...)
	if code != 0 {
		t.Fatalf("fixed and passing cases only, --allow-missing: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "OK: nothing regressed in the 3 cases covered (25 missing, allowed)") {
		t.Errorf("text output:\n%s", out)
	}
	// A case that was already failing is no regression, but a policy leak blocks the release.
	out, _, code = run(t, append(base, "--format", "github", leak)...)
	if code != 1 || !strings.Contains(out, "::error title=emea-billing-contacts-009 failing::policy violation at step 4") {
		t.Errorf("policy leak: exit %d\n%s", code, out)
	}
	if out, _, _ := run(t, "check", "--suite", suitePath, "--allow-missing", good); !strings.Contains(out, "no policy oracle given") {
		t.Errorf("a check without a policy oracle does not say so:\n%s", out)
	}
	if strings.Contains(out, "no policy oracle") {
		t.Errorf("a check with --policy warns of none:\n%s", out)
	}
	// "-" reads the new traces from standard input.
	root := newRootCmd(testProgram)
	var sout, serr bytes.Buffer
	root.SetIn(strings.NewReader(newRunLines(t, "revenue-q3-fy26-011")))
	root.SetOut(&sout)
	root.SetErr(&serr)
	root.SetArgs(append(base, "-"))
	if err := root.Execute(); err != nil || !strings.Contains(sout.String(), "28 cases: 1 pass, 0 regressed, 0 fixed, 0 failing, 27 missing") {
		t.Errorf("stdin: %v\n%s", err, sout.String())
	}
	out, _, code = run(t, append(base, "--format", "markdown", good)...)
	if code != 0 || !strings.Contains(out, "| `emea-active-q2-017` | fixed |") {
		t.Errorf("markdown: %d\n%s", code, out)
	}

	badSuite := writeIn(t, dir, "bad-suite.jsonl", `{"case_id":"x","gold":{},"question":""}`+"\n")
	badTraces := writeIn(t, dir, "bad.jsonl", `{"trace_id":"t","question":"q","steps":[{"kind":"tool-call"}]}`+"\n")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no suite", []string{"check", good}, "--suite cases.jsonl is required"},
		{"missing suite", []string{"check", "--suite", filepath.Join(dir, "nope.jsonl"), good}, "nope.jsonl"},
		{"bad suite line", []string{"check", "--suite", badSuite, good}, "bad-suite.jsonl:1: question: required"},
		{"no traces", []string{"check", "--suite", suitePath}, "no new trace files given"},
		{"bad trace", append(base, badTraces), `bad.jsonl:1: steps[0].kind`},
		{"suite as traces", append(base, suitePath), "is a cases.jsonl suite, not traces"},
		{"bad format", append(base, "--format", "xml", good), `--format "xml" is not one of`},
		{"bad policy", []string{"check", "--suite", suitePath, "--policy", filepath.Join(dir, "nope.json"), good}, "nope.json"},
	} {
		_, errs, code := run(t, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q", tt.name, code, errs, tt.want)
		}
	}
}

// TestCheckNeverWritesTheUserDatabase: check is given --db and
// --no-record, and the file is untouched: same bytes, same mtime, no -wal
// or -shm appears. (Without --no-record it appends its report to the
// history and nothing else: TestCheckRecordsOnlyItsReport.)
func TestCheckNeverWritesTheUserDatabase(t *testing.T) {
	suitePath, db := exportedSuite(t)
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(db)
	for _, sfx := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(db + sfx); err == nil {
			t.Fatalf("%s exists before the check", sfx)
		}
	}
	// mtime has a coarse resolution on some file systems: wait so a write would show.
	time.Sleep(20 * time.Millisecond)
	t.Setenv("TRACELAB_DB", db)
	_, errs, code := run(t, "check", "--db", db, "--no-record", "--suite", suitePath, "--policy", "testdata/policy.json",
		"testdata/check/new-run.jsonl")
	if code != 1 {
		t.Fatalf("check: exit %d %s", code, errs)
	}
	after, _ := os.ReadFile(db)
	st2, _ := os.Stat(db)
	if !bytes.Equal(before, after) || !st.ModTime().Equal(st2.ModTime()) {
		t.Error("check changed the user's database")
	}
	for _, sfx := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(db + sfx); err == nil {
			t.Errorf("check created %s%s", filepath.Base(db), sfx)
		}
	}
}

func TestCIText(t *testing.T) {
	for in, want := range map[string]string{
		"plain reason":               "plain reason",
		"two\nlines\tand tab":        "two lines and tab",
		"\x1b[31mred\x1b[0m":         "red",
		"case\u202eexe.txt":          `case\u202eexe.txt`,
		"isolate \u2066x\u2069 done": `isolate \u2066x\u2069 done`,
	} {
		if got := ciText(in); got != want {
			t.Errorf("ciText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ghMsg("50% done\nnext"); got != "50%25 done next" {
		t.Errorf("ghMsg: %q", got)
	}
	if got := ghProperty("a:b,c"); got != "a%3Ab%2Cc" {
		t.Errorf("ghProperty: %q", got)
	}
}

// TestCheckOpenAIRequests: a harness that records OpenAI chat requests
// ties each to its case with the request's metadata.case_id and names
// the trace with metadata.trace_id; --input-format forces the reader
// while --format stays the output format.
func TestCheckOpenAIRequests(t *testing.T) {
	suitePath, _ := exportedSuite(t)
	req := writeIn(t, t.TempDir(), "requests.jsonl", `{"messages":[{"role":"user","content":"What was revenue in FY2026 Q3?"},{"role":"assistant","content":"I cannot tell."}],"metadata":{"case_id":"revenue-q3-fy26-011","trace_id":"replay-0011"}}`+"\n")
	out, errs, code := run(t, "check", "--suite", suitePath, "--input-format", "openai_chat", "--server", "generic-warehouse",
		"--allow-missing", "--format", "json", req)
	var got checkJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, errs)
	}
	for _, c := range got.Cases {
		if c.CaseID == "revenue-q3-fy26-011" && (c.TraceID != "replay-0011" || c.Verdict == "missing") {
			t.Errorf("the request did not reach its case: %+v", c)
		}
	}
	if _, errs, code := run(t, "check", "--suite", suitePath, "--input-format", "xml", req); code != 2 || !strings.Contains(errs, `--input-format "xml" is not one of`) {
		t.Errorf("unknown --input-format: exit %d %s", code, errs)
	}
	if _, errs, code := run(t, "check", "--suite", suitePath, "--min-coverage", "1.5", req); code != 2 || !strings.Contains(errs, "--min-coverage 1.5") {
		t.Errorf("--min-coverage 1.5: exit %d %s", code, errs)
	}
}

// TestCheckScoresWithTheSuiteFiles: a suite exported with --lineage is
// checked with that lineage without the flag, so rerunning the cases'
// own traces reproduces report.json's grounding metrics; without the
// manifest the lineage is lost and support-crm's grounding precision,
// which rests on lineage.json, silently changes.
func TestCheckScoresWithTheSuiteFiles(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "team.db")
	files, _ := filepath.Glob("testdata/traces/*.jsonl")
	if _, errs, code := run(t, append(append([]string{"import", "--db", db, "--no-score"}, files...), "testdata/cases.jsonl")...); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	suite := filepath.Join(dir, "suite")
	if _, errs, code := run(t, "export", "--db", db, "--out", suite, "--policy", "testdata/policy.json", "--lineage", "testdata/lineage.json"); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	replay := writeIn(t, dir, "replay.jsonl", replayOf(t))
	precision := func(path string) map[string]any {
		var rs []map[string]any
		data, _ := os.ReadFile(path)
		if err := json.Unmarshal(data, &rs); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out := map[string]any{}
		for _, r := range rs {
			out[r["server"].(string)] = []any{r["grounding_precision"], r["grounding_recall"], r["definition_match_rate"], r["freshness_pass_rate"]}
		}
		return out
	}
	want := precision(filepath.Join(suite, "report.json"))
	got := filepath.Join(dir, "with.json")
	run(t, "check", "--suite", filepath.Join(suite, "cases.jsonl"), "--report", got, replay)
	if g := precision(got); fmt.Sprint(g) != fmt.Sprint(want) {
		t.Errorf("check with the suite's files:\n got %v\nwant %v (report.json)", g, want)
	}
	// The same check without the manifest: the lineage is gone.
	os.Remove(filepath.Join(suite, "suite.json"))
	without := filepath.Join(dir, "without.json")
	run(t, "check", "--suite", filepath.Join(suite, "cases.jsonl"), "--policy", "testdata/policy.json", "--report", without, replay)
	if g := precision(without); fmt.Sprint(g["support-crm"]) == fmt.Sprint(want["support-crm"]) {
		t.Errorf("without lineage support-crm still scores %v: the test would not see a lost lineage", g["support-crm"])
	}
}
