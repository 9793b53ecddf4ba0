package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// TestGoldOnlyCasesCountTheScorersVerdict: a suite whose gold experts wrote
// and whose labels are still empty is "pending", not zero: report counts
// the scorer's verdicts for it, ls shows the status, and a person's label
// overrides field by field.
func TestGoldOnlyCasesCountTheScorersVerdict(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	traces, _ := filepath.Glob("testdata/traces/*.jsonl")
	args := append([]string{"import", "--db", db, "--policy", "testdata/policy.json"}, traces...)
	if _, errs, code := run(t, args...); code != 0 {
		t.Fatalf("import traces: %d %s", code, errs)
	}
	// The bundled cases with every label emptied.
	f, err := os.Open("testdata/cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c map[string]any
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		c["label"] = map[string]any{"correct": nil, "grounded": nil, "failure_class": nil}
		line, _ := json.Marshal(c)
		b.Write(line)
		b.WriteByte('\n')
		n++
	}
	goldOnly := writeIn(t, dir, "gold-only.jsonl", b.String())
	if _, errs, code := run(t, "import", "--db", db, "--policy", "testdata/policy.json", goldOnly); code != 0 {
		t.Fatalf("import gold-only cases: %d %s", code, errs)
	}
	out, _, code := run(t, "ls", "--db", db, "--status", "pending", "--format", "json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || code != 0 || len(rows) != n {
		t.Fatalf("ls --status pending: %d rows of %d cases, %v %q", len(rows), n, err, out)
	}
	report := func() []model.Report {
		t.Helper()
		out, errs, code := run(t, "report", "--db", db, "--policy", "testdata/policy.json")
		var reps []model.Report
		if err := json.Unmarshal([]byte(out), &reps); err != nil || code != 0 {
			t.Fatalf("report: %d %v %s", code, err, errs)
		}
		return reps
	}
	correct := func(reps []model.Report) (c, cg, failures int) {
		for _, r := range reps {
			c += r.Correct
			cg += r.CorrectAndGrounded
			for _, k := range r.FailuresByClass {
				failures += k
			}
		}
		return
	}
	c, cg, fails := correct(report())
	if c == 0 || cg == 0 || fails == 0 {
		t.Fatalf("gold-only cases report correct %d, correct_and_grounded %d, failures %d: the scorer's verdicts were dropped", c, cg, fails)
	}
	text, _, _ := run(t, "report", "--db", db, "--policy", "testdata/policy.json", "--format", "text")
	if !strings.Contains(text, "gold confirmed, label pending") {
		t.Errorf("the text report does not say how many labels are pending:\n%s", text)
	}
	// A person's label on one field overrides the scorer on that field only.
	id, _ := rows[0]["trace_id"].(string)
	server, _ := rows[0]["server"].(string)
	out, _, _ = run(t, "score", "--db", db, "--policy", "testdata/policy.json", "--format", "jsonl")
	var scorer *bool
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var s struct {
			TraceID string `json:"trace_id"`
			Correct *bool  `json:"correct"`
		}
		if json.Unmarshal([]byte(line), &s) == nil && s.TraceID == id {
			scorer = s.Correct
		}
	}
	if scorer == nil {
		t.Fatalf("no scorer verdict on correct for %s", id)
	}
	correctOf := func(reps []model.Report) int {
		for _, r := range reps {
			if r.Server == server {
				return r.Correct
			}
		}
		return -1
	}
	before := correctOf(report())
	eng, err := app.Open(t.Context(), db, app.Files{Policy: "testdata/policy.json"})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := json.Marshal(!*scorer)
	if _, err := eng.Labels.EditFields(t.Context(), id, "ana", app.FieldEdit{Field: "label.correct", Value: v}); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	want := before + 1
	if *scorer {
		want = before - 1
	}
	if got := correctOf(report()); got != want {
		t.Errorf("%s: correct %d after a person said %v where the scorer said %v, want %d", server, got, !*scorer, *scorer, want)
	}
	if out, _, _ := run(t, "ls", "--db", db, "--status", "pending", "--format", "json"); strings.Contains(out, `"`+id+`"`) {
		t.Errorf("%s is still pending after a person labeled it", id)
	}
}
