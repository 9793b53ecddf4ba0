package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// report --all and export --all count one population on the bundled
// traces and cases: report --all printed 32 cases (every scored trace),
// while export --all wrote 29 and its report.json counted 29. Now report
// --all is byte for byte export's report.json, and both name what they
// leave out in the same words.
func TestReportAllIsExportAll(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	files, _ := filepath.Glob(repoFile(t, "testdata/traces") + "/*.jsonl")
	if _, errs, code := run(t, append([]string{"import", "--db", db}, append(files, repoFile(t, "testdata/cases.jsonl"))...)...); code != 0 {
		t.Fatalf("import: %d %s", code, errs)
	}
	report, rerr, code := run(t, "report", "--all", "--db", db, "--format", "json")
	if code != 0 {
		t.Fatalf("report --all: %d %s", code, rerr)
	}
	out := filepath.Join(dir, "suite")
	eout, eerr, code := run(t, "export", "--all", "--db", db, "--out", out)
	if code != 0 {
		t.Fatalf("export --all: %d %s", code, eerr)
	}
	exported, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if report != string(exported) {
		t.Errorf("report --all:\n%s\nexport --all's report.json:\n%s", report, exported)
	}
	if !strings.Contains(eout, "(29 cases)") {
		t.Errorf("export --all wrote %q, want 29 cases", eout)
	}
	const line = "left out: 3 scored traces with no case (the scorer suggested nothing and nobody labeled them); label them to count them"
	if !strings.Contains(rerr, line) || !strings.Contains(eerr, line) {
		t.Errorf("what they leave out:\nreport --all: %q\nexport --all: %q\nwant both to say %q", rerr, eerr, line)
	}
}
