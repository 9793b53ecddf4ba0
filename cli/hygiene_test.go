package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// hostileTraces carry a bidi override in the id, server and question and
// a C1 CSI (U+009B, UTF-8 encoded) in the question.
const hostileTraces = `{"trace_id":"t\u202eevil","server":"s\u2066x\u2069","question":"Which \u202eregion\u202c? \u009b2J","outcome":"pass","steps":[{"kind":"answer","text":"1"}]}
`

// hostileCase is a person's case for it, so that report counts it.
const hostileCase = `{"case_id":"c\u202eevil","source_trace":"t\u202eevil","server":"s\u2066x\u2069","question":"Which \u202eregion\u202c? \u009b2J","gold":{"answer":"1","required_fields":[],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":true,"grounded":true,"failure_class":null,"note":""}}
`

func TestBidiAndC1ShownEscapedInTextAndJSON(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	f := writeIn(t, dir, "hostile.jsonl", hostileTraces)
	c := writeIn(t, dir, "hostile-cases.jsonl", hostileCase)
	if _, errs, code := run(t, "import", "--db", db, f, c); code != 0 {
		t.Fatalf("import: %d %s", code, errs)
	}
	raw := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return model.IsBidiControl(r) || (r >= 0x80 && r <= 0x9f) })
	}
	for _, args := range [][]string{
		{"ls", "--db", db},
		{"report", "--db", db, "--all"},
		{"ls", "--db", db, "--format", "json"},
		{"score", "--db", db, "--format", "jsonl"},
	} {
		out, errs, code := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
		if raw(out) {
			t.Errorf("%v: a bidi or C1 control reached the output raw:\n%q", args, out)
		}
		if !strings.Contains(out, `\u202e`) && !strings.Contains(out, `\u2066`) {
			t.Errorf("%v: the bidi controls are not shown as \\u escapes:\n%s", args, out)
		}
	}
	// The JSON still means the same strings.
	out, _, _ := run(t, "ls", "--db", db, "--format", "json")
	var rows []struct {
		TraceID  string `json:"trace_id"`
		Question string `json:"question"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0].TraceID != "t\u202eevil" ||
		rows[0].Question != "Which \u202eregion\u202c? \u009b2J" {
		t.Errorf("ls json does not decode to the stored values: %+v %v", rows, err)
	}
}

func TestLsShowsUnscored(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	f := writeIn(t, dir, "traces.jsonl", cliTraces)
	if _, errs, code := run(t, "import", "--no-score", "--db", db, f); code != 0 {
		t.Fatalf("import: %d %s", code, errs)
	}
	out, _, _ := run(t, "ls", "--db", db)
	if strings.Count(out, "unscored") != 2 {
		t.Errorf("ls before scoring:\n%s", out)
	}
	out, _, _ = run(t, "ls", "--db", db, "--format", "json")
	if !strings.Contains(out, `"scored": false`) {
		t.Errorf("ls json before scoring lacks scored=false:\n%s", out)
	}
	run(t, "score", "--db", db)
	out, _, _ = run(t, "ls", "--db", db)
	if strings.Contains(out, "unscored") {
		t.Errorf("ls after scoring:\n%s", out)
	}
}

// TestExportOverflowKeepsTheOldPair exports a suite, then adds cases whose
// costs add up past float64: the second export must fail naming the
// metric and leave both old files as they were.
func TestExportOverflowKeepsTheOldPair(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	suite := filepath.Join(dir, "suite")
	f := writeIn(t, dir, "traces.jsonl", cliTraces)
	if _, errs, code := run(t, "import", "--db", db, f); code != 0 {
		t.Fatalf("import: %d %s", code, errs)
	}
	if _, errs, code := run(t, "export", "--all", "--db", db, "--out", suite); code != 0 {
		t.Fatalf("export: %d %s", code, errs)
	}
	oldCases, _ := os.ReadFile(filepath.Join(suite, "cases.jsonl"))
	oldReport, _ := os.ReadFile(filepath.Join(suite, "report.json"))
	before, _ := os.ReadDir(suite)
	huge := `{"trace_id":"h1","server":"s1","question":"Cost?","steps":[{"kind":"answer","text":"1"}],"usage":{"usd":1.7e308}}
{"trace_id":"h2","server":"s1","question":"Cost?","steps":[{"kind":"answer","text":"1"}],"usage":{"usd":1.7e308}}
`
	var cases strings.Builder
	for _, id := range []string{"h1", "h2"} {
		cases.WriteString(`{"case_id":"c-` + id + `","source_trace":"` + id + `","question":"Cost?","gold":{"answer":"1"},` +
			`"label":{"correct":true,"grounded":true,"failure_class":null,"note":""}}` + "\n")
	}
	for _, f := range []string{writeIn(t, dir, "huge.jsonl", huge), writeIn(t, dir, "cases.jsonl", cases.String())} {
		if _, errs, code := run(t, "import", "--db", db, f); code != 0 {
			t.Fatalf("import %s: %d %s", f, code, errs)
		}
	}
	_, errs, code := run(t, "export", "--all", "--db", db, "--out", suite)
	if code != 2 || !strings.Contains(errs, `report for server "s1": cost_total_usd is +Inf`) {
		t.Fatalf("export with overflowing costs: %d %q", code, errs)
	}
	newCases, _ := os.ReadFile(filepath.Join(suite, "cases.jsonl"))
	newReport, _ := os.ReadFile(filepath.Join(suite, "report.json"))
	if string(newCases) != string(oldCases) || string(newReport) != string(oldReport) {
		t.Error("a failed export changed the suite")
	}
	entries, _ := os.ReadDir(suite)
	if len(entries) != len(before) {
		t.Errorf("temporary files left behind: %v (before: %v)", entries, before)
	}
	if _, errs, code := run(t, "report", "--db", db); code != 2 || !strings.Contains(errs, "cost_total_usd is +Inf") {
		t.Errorf("report with overflowing costs: %d %q", code, errs)
	}
}
