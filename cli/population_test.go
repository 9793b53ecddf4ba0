package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// report --all and export --all on the bundled traces and cases: report
// --all counts 32 traces, export --all writes 29 cases, and nothing said
// why. The 3 scored traces with no case (nothing suggested, nobody
// labeled) are the difference, and both commands now say so in the same
// words; the rest of the two reports is the same.
func TestReportAllAndExportAllSayWhatDiffers(t *testing.T) {
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
	count := func(js string) int {
		var rs []struct {
			Cases int `json:"cases"`
		}
		if err := json.Unmarshal([]byte(js), &rs); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rs {
			n += r.Cases
		}
		return n
	}
	if r, e := count(report), count(string(exported)); r != 32 || e != 29 || !strings.Contains(eout, "(29 cases)") {
		t.Errorf("report --all counts %d, export --all's report.json %d (%q): want 32 and 29", r, e, eout)
	}
	const line = "3 scored traces have no case (the scorer suggested nothing and nobody labeled them): report --all counts them, export --all writes no case for them"
	if !strings.Contains(rerr, line) || !strings.Contains(eerr, line) {
		t.Errorf("what differs:\nreport --all: %q\nexport --all: %q\nwant both to say %q", rerr, eerr, line)
	}
	// Without --all neither says it: both count the confirmed cases only.
	if _, rerr, _ := run(t, "report", "--db", db); strings.Contains(rerr, "no case") {
		t.Errorf("report without --all: %q", rerr)
	}
}
