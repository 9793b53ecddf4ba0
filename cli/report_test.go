package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func TestCLIReportDiff(t *testing.T) {
	const oldR, newR = "testdata/check/report-old.json", "testdata/check/report-new.json"
	for _, tt := range []struct{ format, golden string }{
		{"text", "testdata/check/diff.golden.txt"},
		{"markdown", "testdata/check/diff.golden.md"},
	} {
		out, errs, code := run(t, "report", "--diff", oldR, newR, "--format", tt.format)
		if code != 0 {
			t.Fatalf("%s: exit %d without --fail-on-regression: %s", tt.format, code, errs)
		}
		if updating() {
			os.WriteFile(tt.golden, []byte(out), 0o644)
		}
		want, err := os.ReadFile(tt.golden)
		if err != nil {
			t.Fatalf("%v (go test -run TestCLIReportDiff -update writes it)", err)
		}
		if out != string(want) {
			t.Errorf("%s differs from %s:\n%s", tt.format, tt.golden, out)
		}
	}
	out, _, code := run(t, "report", "--diff", oldR, newR, "--fail-on-regression", "--format", "json")
	if code != 1 {
		t.Errorf("--fail-on-regression: exit %d, want 1", code)
	}
	var d struct {
		Regressed bool
		Servers   []struct {
			Server      string
			Regressions []string
			ClassesGrew []struct{ Class string } `json:"classes_grew"`
		}
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || !d.Regressed || len(d.Servers) != 4 {
		t.Fatalf("json: %v %s", err, out)
	}
	ts := d.Servers[3]
	if ts.Server != "task-specific" || len(ts.Regressions) != 2 || len(ts.ClassesGrew) != 2 {
		t.Errorf("task-specific: %+v", ts)
	}
	// Improvements only: exit 0 even with --fail-on-regression.
	if _, _, code := run(t, "report", "--diff", oldR, oldR, "--fail-on-regression"); code != 0 {
		t.Errorf("identical reports: exit %d", code)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--diff", oldR}, "--diff takes two report files"},
		{[]string{"report", "--diff", oldR, "testdata/cases.jsonl"}, "expected report.json"},
		{[]string{"report", "--diff", oldR, newR, "--format", "xml"}, `--format "xml" is not one of text, markdown, json`},
		{[]string{"report", "--fail-on-regression"}, "--fail-on-regression goes with --diff"},
	} {
		_, errs, code := run(t, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d %q", tt.args, code, errs)
		}
	}
}

// TestCLIReportDiffPopulation: a NEW report that covers fewer cases warns
// and fails --fail-on-regression even when no metric fell (dropping the
// hard cases must not look like a fix); more cases only warn.
func TestCLIReportDiffPopulation(t *testing.T) {
	dir := t.TempDir()
	report := func(name string, cases int) string {
		return writeIn(t, dir, name, fmt.Sprintf(`[{"server":"s1","run_id":"r","cases":%d,"correct":1,"correct_and_grounded":1,"grounding_precision":1,"grounding_recall":1,"definition_match_rate":null,"freshness_pass_rate":null,"policy_violation_rate":0,"clarification_loops_per_task":0,"cost_total_usd":0,"cost_per_correct_answer_usd":null,"failures_by_class":{},"needs_human_review":0}]`, cases))
	}
	full, fewer, more := report("full.json", 28), report("fewer.json", 1), report("more.json", 30)
	for _, tt := range []struct {
		name     string
		old, cur string
		code     int
		warn     string
	}{
		{"fewer", full, fewer, 1, "s1: 28 cases in OLD, 1 in NEW"},
		{"more", full, more, 0, "s1: 28 cases in OLD, 30 in NEW"},
		{"same", full, full, 0, ""},
	} {
		out, errs, code := run(t, "report", "--diff", tt.old, tt.cur, "--fail-on-regression")
		if code != tt.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", tt.name, code, tt.code, out, errs)
		}
		if tt.warn == "" && strings.Contains(errs, "warning") {
			t.Errorf("%s: unexpected warning %q", tt.name, errs)
		}
		if tt.warn != "" && (!strings.Contains(errs, "warning: the reports cover different cases: "+tt.warn) || !strings.Contains(out, tt.warn)) {
			t.Errorf("%s: want warning %q in stderr and output:\n%s%s", tt.name, tt.warn, out, errs)
		}
	}
}
