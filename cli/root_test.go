package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/intake"
	"github.com/tracelab-dev/tracelab/store/pgtest"
)

// run executes the CLI in-process and returns stdout, stderr and the exit code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	root := newRootCmd(testProgram)
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err != nil {
		errb.WriteString(err.Error())
	}
	return out.String(), errb.String(), exitCode(err)
}

func writeIn(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const cliTraces = `{"trace_id":"t1","server":"s1","as_user":"u1","question":"How many?","outcome":"pass","steps":[{"kind":"answer","text":"1"}]}
{"trace_id":"t2","server":"s2","question":"Which?","steps":[{"kind":"answer","text":"x"}]}
`

func TestCLIImportLsExport(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	f := writeIn(t, dir, "traces.jsonl", cliTraces)
	out, errs, code := run(t, "import", "--db", db, f)
	if code != 0 || !strings.Contains(out, "native, 2 new, 0 unchanged") {
		t.Fatalf("import: code %d out %q err %q", code, out, errs)
	}
	out, _, code = run(t, "import", "--db", db, f)
	if code != 0 || !strings.Contains(out, "0 new, 2 unchanged") {
		t.Fatalf("re-import: %d %q", code, out)
	}
	// TRACELAB_DB is honoured when --db is absent.
	t.Setenv("TRACELAB_DB", db)
	out, _, code = run(t, "ls", "--server", "s1")
	if code != 0 || !strings.Contains(out, "t1") || strings.Contains(out, "t2") || !strings.Contains(out, "1 traces") {
		t.Fatalf("ls: %d %q", code, out)
	}
	out, _, code = run(t, "ls", "--format", "json", "--status", "none")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || code != 0 || len(rows) != 2 {
		t.Fatalf("ls json: %d %v %q", code, err, out)
	}
	_, errs, code = run(t, "ls", "--status", "maybe")
	if code != 2 || !strings.Contains(errs, `--status "maybe" is not one of suggested, pending, confirmed, none`) {
		t.Fatalf("bad status: %d %q", code, errs)
	}
	out, _, code = run(t, "export", "--out", filepath.Join(dir, "suite"))
	if code != 0 || !strings.Contains(out, "(0 cases)") {
		t.Fatalf("export: %d %q", code, out)
	}
	_, errs, code = run(t, "export")
	if code != 2 || !strings.Contains(errs, "--out DIR is required") {
		t.Fatalf("export without --out: %d %q", code, errs)
	}
}

func TestCLIImportRejectsBadFileAndKeepsGoodOnes(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	good := writeIn(t, dir, "good.jsonl", cliTraces)
	bad := writeIn(t, dir, "bad.jsonl", `{"trace_id":"t3","question":"q","steps":[{"kind":"tool-call"}]}`+"\n")
	other := writeIn(t, dir, "other.json", `{"hello":"world"}`)
	out, errs, code := run(t, "import", "--db", db, good, bad, other)
	if code == 0 {
		t.Fatal("exit 0 with a rejected file")
	}
	for _, want := range []string{
		`bad.jsonl:1: steps[0].kind: "tool-call" is not one of user, reasoning, assistant, tool_call, tool_result, clarification, answer`,
		"nothing imported from it",
		"other.json: not a supported trace format (supported: ",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if !strings.Contains(out, "good.jsonl: native, 2 new") {
		t.Errorf("good file not imported: %q", out)
	}
	out, _, _ = run(t, "ls", "--db", db)
	if !strings.Contains(out, "2 traces") {
		t.Errorf("ls after partial import: %q", out)
	}
	out, _, code = run(t, "import", "--list-formats")
	if code != 0 || !strings.Contains(out, "native") || !strings.Contains(out, "cases") {
		t.Errorf("list formats: %q", out)
	}
	_, errs, code = run(t, "import", "--db", db, "--format", "nope", good)
	if code != 2 || !strings.Contains(errs, `unknown format "nope"`) {
		t.Errorf("unknown format: %d %q", code, errs)
	}
}

func TestEveryCommandHasHelpWithExample(t *testing.T) {
	root := newRootCmd(testProgram)
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if c.Short == "" || c.Long == "" || c.Example == "" {
			t.Errorf("%s: missing Short, Long or Example", c.Name())
		}
	}
}

// importBundled loads every bundled trace and gold case into db, as
// `tracelab import` would (the demo leaves one server's cases out).
func importBundled(t *testing.T, db string) {
	t.Helper()
	files, _ := filepath.Glob("testdata/traces/*.jsonl")
	args := append([]string{"import", "--db", db}, append(files, "testdata/cases.jsonl")...)
	if _, errs, code := run(t, args...); code != 0 {
		t.Fatalf("import: %d %s", code, errs)
	}
}

func TestImportedSuiteExportsByteForByte(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	importBundled(t, db)
	// Exporting the confirmed cases gives back testdata/cases.jsonl byte
	// for byte (cost blocks from the traces).
	dir := t.TempDir()
	out, _, code := run(t, "export", "--db", db, "--out", dir)
	if code != 0 || !strings.Contains(out, "(28 cases)") {
		t.Fatalf("export: %d %s", code, out)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "cases.jsonl"))
	want, _ := os.ReadFile("testdata/cases.jsonl")
	if !bytes.Equal(got, want) {
		t.Fatal("exported suite differs from testdata/cases.jsonl")
	}
}

// The demo keeps its database in the user's cache directory and reuses
// it, --fresh starts over, --list leaves no temporary folder, and the
// data leaves the generic warehouse unlabeled next to a second run.
func TestDemoKeepsItsDatabase(t *testing.T) {
	cache, tmp := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TMPDIR", tmp)
	out, errs, code := run(t, "demo", "--list")
	if code != 0 {
		t.Fatalf("demo: %d %s", code, errs)
	}
	if !strings.Contains(out, "trace_9f31c2") || !strings.Contains(out, "35 traces") || !strings.Contains(out, "trace_r3_4be07a") {
		t.Fatalf("demo output: %s", out)
	}
	db := filepath.Join(cache, "tracelab", "demo.db")
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("no demo database in the cache directory: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("demo --list left %v in the temporary directory", left)
	}
	// The second run changed a tool contract: the Drift screen's overview
	// lists the change and the labeled cases it affects.
	eng, err := app.Open(context.Background(), db, app.Files{})
	if err != nil {
		t.Fatal(err)
	}
	ov, err := eng.Drift.AcrossRuns(context.Background())
	eng.Close()
	affected := 0
	for _, ch := range ov.Changes {
		affected += len(ch.TraceIDs)
	}
	if err != nil || len(ov.Changes) == 0 || affected == 0 {
		t.Errorf("demo drift: %d change(s), %d affected trace(s), %v", len(ov.Changes), affected, err)
	}
	// Only the cases of two servers arrive labeled.
	dir := t.TempDir()
	if out, _, code := run(t, "export", "--db", db, "--out", dir); code != 0 || !strings.Contains(out, "(15 cases)") {
		t.Fatalf("export of the demo: %d %s", code, out)
	}
	// A label made in the demo survives the next demo; --fresh drops it.
	if _, errs, code := run(t, "sample", "--db", db, "--n", "5", "--force"); code != 0 {
		t.Fatalf("sample: %s", errs)
	}
	queuedCount := func() string {
		out, _, _ := run(t, "ls", "--db", db, "--queued")
		return out
	}
	before := queuedCount()
	if _, errs, code := run(t, "demo", "--list"); code != 0 {
		t.Fatal(errs)
	}
	if queuedCount() != before || !strings.Contains(before, "5 traces") {
		t.Errorf("the second demo did not reuse the database:\n%s\nthen\n%s", before, queuedCount())
	}
	if _, errs, code := run(t, "demo", "--list", "--fresh"); code != 0 {
		t.Fatal(errs)
	}
	if strings.Contains(queuedCount(), "5 traces") {
		t.Error("--fresh kept the old database")
	}
}

func TestCLIScoreReportAndExportReport(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	importBundled(t, db)
	out, errs, code := run(t, "score", "--db", db, "--policy", "testdata/policy.json", "--format", "jsonl")
	if code != 0 {
		t.Fatalf("score: %d %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 32 {
		t.Fatalf("score printed %d lines", len(lines))
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"trace_id", "case_id", "server", "fields_used", "markers", "suggested_class", "classes",
		"grounding_precision", "grounding_recall", "definition_match", "freshness_pass", "policy_violations",
		"correct", "grounded", "needs_human_review"} {
		if _, ok := first[k]; !ok {
			t.Errorf("score jsonl lacks %q", k)
		}
	}
	out, _, code = run(t, "report", "--db", db, "--policy", "testdata/policy.json")
	var reports []map[string]any
	if err := json.Unmarshal([]byte(out), &reports); err != nil || code != 0 || len(reports) != 3 {
		t.Fatalf("report: %d %v %s", code, err, out)
	}
	_, errs, code = run(t, "report", "--db", db, "--policy", "nope.json")
	if code != 2 || !strings.Contains(errs, "nope.json") {
		t.Errorf("missing policy file: %d %q", code, errs)
	}
	suiteDir := filepath.Join(dir, "suite")
	if _, errs, code := run(t, "export", "--db", db, "--out", suiteDir, "--policy", "testdata/policy.json"); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	a, _ := os.ReadFile(filepath.Join(suiteDir, "report.json"))
	if _, _, code := run(t, "export", "--db", db, "--out", suiteDir, "--policy", "testdata/policy.json"); code != 0 {
		t.Fatal("second export failed")
	}
	b, _ := os.ReadFile(filepath.Join(suiteDir, "report.json"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("report.json missing or not byte-identical on rerun")
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{{"ls", "--nope"}, {"nope"}, {"ls", "extra"}, {"export", "--out"}} {
		if _, errs, code := run(t, args...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errs)
		}
	}
}

// testProgram serves the demo data from the checkout, as main embeds it.
var testProgram = Program{Version: "test", Demo: os.DirFS("."), Serve: intake.Serve}

// TestMain runs the tests from the repository root, so paths in commands
// and in their output read as a user at the root would type them.
func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) != "" {
		code := Main(testProgram) // the test binary as tracelab: see process_test.go
		writePeakRSS(os.Getenv(peakEnv))
		os.Exit(code)
	}
	if err := os.Chdir(".."); err != nil {
		panic(err)
	}
	// A user's TRACELAB_DB never reaches the tests: each names its database.
	os.Unsetenv("TRACELAB_DB")
	code := m.Run()
	pgtest.Stop() // the private PostgreSQL server, when a test started one
	os.Exit(code)
}
