package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store/pgtest"
)

// historyJSON is one entry of report --history --format json.
type historyJSON struct {
	ID          int64          `json:"id"`
	At          time.Time      `json:"at"`
	Kind        string         `json:"kind"`
	Suite       string         `json:"suite"`
	ManifestSHA string         `json:"manifest_sha256"`
	Report      []model.Report `json:"report"`
}

func readHistory(t *testing.T, db string) []historyJSON {
	t.Helper()
	out, errs, code := run(t, "report", "--db", db, "--history", "--format", "json")
	if code != 0 {
		t.Fatalf("report --history: exit %d: %s", code, errs)
	}
	var h []historyJSON
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return h
}

func fileSHA(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Export and check each record their report, with the suite's manifest
// hash; report --history lists them oldest first.
func TestCLIReportHistory(t *testing.T) {
	suitePath, db := exportedSuite(t)
	dir := filepath.Dir(suitePath)
	h := readHistory(t, db)
	if len(h) != 1 || h[0].Kind != "export" || h[0].Suite != dir {
		t.Fatalf("after one export: %+v", h)
	}
	if want := fileSHA(t, filepath.Join(dir, "suite.json")); h[0].ManifestSHA != want {
		t.Errorf("export recorded manifest %s, suite.json's sha256 is %s", h[0].ManifestSHA, want)
	}
	exported, err := app.ReadReport(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, h[0].Report, exported) {
		t.Errorf("recorded report differs from report.json:\n%+v\n%+v", h[0].Report, exported)
	}

	// A check with --db records its run's report and changes nothing
	// else; one without a database records nothing and creates none.
	snapshot := func() string {
		ls, errs, code := run(t, "ls", "--db", db)
		rep, errs2, code2 := run(t, "report", "--db", db, "--format", "json")
		if code != 0 || code2 != 0 {
			t.Fatalf("ls, report: %s %s", errs, errs2)
		}
		return ls + rep
	}
	before := snapshot()
	newReport := filepath.Join(t.TempDir(), "new-report.json")
	_, errs, code := run(t, "check", "--db", db, "--suite", suitePath, "--report", newReport, "testdata/check/new-run.jsonl",
		"--allow-missing")
	if code == 2 {
		t.Fatalf("check: %s", errs)
	}
	if snapshot() != before {
		t.Error("the check changed the database beyond its history")
	}
	h = readHistory(t, db)
	if len(h) != 2 || h[1].Kind != "check" || h[1].Suite != dir || h[1].ManifestSHA != h[0].ManifestSHA {
		t.Fatalf("after a check: %+v", h)
	}
	checked, err := app.ReadReport(newReport)
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, h[1].Report, checked) || h[1].At.Before(h[0].At) {
		t.Errorf("check recorded %+v, its --report is %+v", h[1], checked)
	}
	t.Setenv("TRACELAB_DB", "")
	if _, errs, code := run(t, "check", "--suite", suitePath, "testdata/check/new-run.jsonl", "--allow-missing"); code == 2 {
		t.Fatalf("check without a database: %s", errs)
	}
	if _, err := os.Stat("tracelab.db"); err == nil {
		t.Error("a check without a database created ./tracelab.db")
	}

	out, errs, code := run(t, "report", "--db", db, "--history")
	if code != 0 {
		t.Fatalf("report --history: %s", errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if want := 1 + len(h[0].Report) + len(h[1].Report); len(lines) != want {
		t.Fatalf("%d lines, want a header and one per report and server (%d):\n%s", len(lines), want, out)
	}
	for _, col := range []string{"RECORDED", "SUITE.JSON", "PRECISION", "USD/CORRECT"} {
		if !strings.Contains(lines[0], col) {
			t.Errorf("header lacks %s: %s", col, lines[0])
		}
	}
	first := h[0].Report[0]
	if f := strings.Fields(lines[1]); f[0] != "1" || f[3] != "export" || !strings.HasPrefix(h[0].ManifestSHA, f[5]) ||
		f[6] != first.Server || f[7] != strconv.Itoa(first.Cases) {
		t.Errorf("first line %q, want entry 1, export, its manifest, %s, %d cases", lines[1], first.Server, first.Cases)
	}
	if !strings.Contains(lines[len(lines)-1], " check ") {
		t.Errorf("last line is not the check: %s", lines[len(lines)-1])
	}
	if _, _, code := run(t, "report", "--db", db, "--history", "--html", "x.html"); code != 2 {
		t.Errorf("--history with --html: exit %d, want 2", code)
	}
	if _, _, code := run(t, "report", "--db", db, "--history", "--format", "markdown"); code != 2 {
		t.Errorf("--history --format markdown: exit %d, want 2", code)
	}
}

// An empty history says how one is made.
func TestCLIReportHistoryEmpty(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	out, errs, code := run(t, "report", "--db", db, "--history")
	if code != 0 || !strings.Contains(out, "no report recorded yet") {
		t.Errorf("exit %d, %q %q", code, out, errs)
	}
	if h := readHistory(t, db); len(h) != 0 {
		t.Errorf("empty history as JSON: %+v", h)
	}
}

func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

// dataValue finds the page's numbers: each cell carries report.json's
// field and exact value.
var dataValue = regexp.MustCompile(`data-server="([^"]*)" data-metric="([^"]*)" data-value="([^"]*)"`)

// PageNumbers reads the metric numbers of an HTML report by server and
// report.json field.
func pageNumbers(page string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, m := range dataValue.FindAllStringSubmatch(page, -1) {
		if out[m[1]] == nil {
			out[m[1]] = map[string]string{}
		}
		out[m[1]][m[2]] = m[3]
	}
	return out
}

// reportNumbers is report.json's numbers as the page writes them.
func reportNumbers(t *testing.T, reps []model.Report) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, r := range reps {
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		if err := json.Unmarshal(raw, &fields); err != nil {
			t.Fatal(err)
		}
		out[r.Server] = map[string]string{}
		for k, v := range fields {
			switch v := v.(type) {
			case nil:
				out[r.Server][k] = "null"
			case float64:
				out[r.Server][k] = strconv.FormatFloat(v, 'g', -1, 64)
			}
		}
	}
	return out
}

// report --html writes one self-contained page whose numbers are report
// --format json's, with no script and nothing fetched.
func TestCLIReportHTML(t *testing.T) {
	_, db := exportedSuite(t)
	page := filepath.Join(t.TempDir(), "report.html")
	if _, errs, code := run(t, "report", "--db", db, "--html", page); code != 0 {
		t.Fatalf("report --html: exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	out, errs, code := run(t, "report", "--db", db, "--format", "json")
	if code != 0 {
		t.Fatalf("report: %s", errs)
	}
	var reps []model.Report
	if err := json.Unmarshal([]byte(out), &reps); err != nil {
		t.Fatal(err)
	}
	got, want := pageNumbers(string(data)), reportNumbers(t, reps)
	if len(got) != len(reps) {
		t.Fatalf("page has numbers of %d servers, report.json %d", len(got), len(reps))
	}
	n := 0
	for server, metrics := range got {
		for k, v := range metrics {
			n++
			if w, ok := want[server][k]; !ok || w != v {
				t.Errorf("%s %s: page %s, report.json %s", server, k, v, w)
			}
		}
	}
	if n != len(reps)*12 {
		t.Errorf("%d numbers on the page, want 12 per server", n)
	}
	checkSelfContained(t, string(data))
}

// checkSelfContained fails a page that runs or fetches anything.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	lower := strings.ToLower(page)
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "src=", "@import", "url(", "http://", "https://", "javascript:"} {
		if strings.Contains(lower, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
}

// The page is the same for the same database and clock (a golden), and
// trace text in it is escaped.
func TestReportHTMLGolden(t *testing.T) {
	ctx := context.Background()
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	abs := func(p string) string { return filepath.Join(root, p) }
	golden := abs("testdata/report/report.golden.html")
	t.Chdir(t.TempDir()) // the suites' folders are recorded as given: relative
	clock := time.Date(2026, 7, 6, 9, 30, 0, 0, time.UTC)
	openAt := func(files app.Files) *app.Engine {
		eng, err := app.Open(ctx, "team.db", files)
		if err != nil {
			t.Fatal(err)
		}
		eng.SetClock(func() time.Time { return clock })
		return eng
	}
	eng := openAt(app.Files{})
	traces, _ := filepath.Glob(abs("testdata/traces/*.jsonl"))
	for _, f := range append(traces, abs("testdata/cases.jsonl")) {
		if _, err := eng.Imports.File(ctx, f, app.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// A hostile server name: the page must escape it, never run it.
	hostile := `{"trace_id":"x1\u202e","server":"<script>alert(1)</script>\u202e","question":"q","outcome":"pass","steps":[{"kind":"answer","text":"1"}]}` + "\n"
	if _, err := eng.Imports.Reader(ctx, strings.NewReader(hostile), "hostile.jsonl", app.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	// The scorer suggests nothing for it, so it has no case and no report
	// would count it: a person's confirmed label puts it on the page.
	if _, err := eng.Labels.ConfirmLabel(ctx, "x1\u202e", "ana", true); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Suite.Export(ctx, app.ExportOptions{Dir: "suite-v1"}); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	// A day later, with the policy and lineage: other numbers.
	clock = clock.Add(24 * time.Hour)
	// suite.json records where the policy and lineage came from, as given:
	// copied here and named relatively, the manifest (and its hash on the
	// page) is the same wherever the checkout is.
	for _, name := range []string{"policy.json", "lineage.json"} {
		data, err := os.ReadFile(abs(filepath.Join("testdata", name)))
		if err != nil || os.WriteFile(name, data, 0o644) != nil {
			t.Fatal("copying", name, err)
		}
	}
	eng = openAt(app.Files{Policy: "policy.json", Lineage: "lineage.json"})
	defer eng.Close()
	if _, err := eng.Suite.Export(ctx, app.ExportOptions{Dir: "suite-v2"}); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(time.Hour)
	render := func() string {
		var b bytes.Buffer
		if err := writeReportHTML(ctx, &b, eng, true); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	got := render()
	if again := render(); again != got {
		t.Fatal("two renders of the same database differ")
	}
	if strings.Contains(got, "<script>alert") {
		t.Error("a server name went into the page unescaped")
	}
	if strings.ContainsFunc(got, model.IsBidiControl) {
		t.Error("a bidi control from a trace reached the page raw")
	}
	checkSelfContained(t, got)
	if updating() {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./cli -run TestReportHTMLGolden -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("the page differs from %s (go test ./cli -run TestReportHTMLGolden -update, then review the diff)", golden)
	}
}

// The history on the team store: export and check record there as in a
// file, and report --history and --html read it back.
func TestCLIReportHistoryTeamStore(t *testing.T) {
	db := pgtest.DSN(t)
	files, _ := filepath.Glob("testdata/traces/*.jsonl")
	if _, errs, code := run(t, append(append([]string{"import", "--db", db}, files...), "testdata/cases.jsonl")...); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	suite := filepath.Join(t.TempDir(), "suite")
	if _, errs, code := run(t, "export", "--db", db, "--out", suite); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	if _, errs, code := run(t, "check", "--db", db, "--suite", filepath.Join(suite, "cases.jsonl"),
		"testdata/check/new-run.jsonl", "--allow-missing"); code == 2 {
		t.Fatalf("check: %s", errs)
	}
	h := readHistory(t, db)
	if len(h) != 2 || h[0].Kind != "export" || h[1].Kind != "check" ||
		h[0].ManifestSHA != fileSHA(t, filepath.Join(suite, "suite.json")) || h[1].ManifestSHA != h[0].ManifestSHA {
		t.Fatalf("history on PostgreSQL: %+v", h)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	if _, errs, code := run(t, "report", "--db", db, "--html", page); code != 0 {
		t.Fatalf("report --html: %s", errs)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `<tr><td class="num">`); n != 2 {
		t.Errorf("the page lists %d recorded reports, want 2", n)
	}
}
