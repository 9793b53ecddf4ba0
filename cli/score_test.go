package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// `tracelab score` with nothing changed does no work: every stored score
// is current and it says so.
func TestScoreTwiceDoesNoWorkTheSecondTime(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	if _, errs, code := run(t, "import", "--db", db, "--no-score", "testdata/traces/generic-warehouse.jsonl"); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	out, errs, code := run(t, "score", "--db", db)
	if code != 0 || !strings.Contains(out, "13 traces scored (0 current)") {
		t.Fatalf("first score: %d %s %s", code, out, errs)
	}
	out, errs, code = run(t, "score", "--db", db)
	if code != 0 || strings.TrimSpace(out) != "all 13 scores current" {
		t.Fatalf("second score: %d %q %s", code, out, errs)
	}
	// Another configuration makes every score stale.
	out, _, code = run(t, "score", "--db", db, "--lineage", "testdata/lineage.json")
	if code != 0 || !strings.Contains(out, "13 traces scored") {
		t.Fatalf("score under a lineage file: %d %q", code, out)
	}
}

// `score --format jsonl` names each trace's case (issue 28): the traces
// carry no metadata.case_id; their cases are attached by import.
func TestScoreJSONLPrintsCaseID(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	for _, args := range [][]string{
		{"import", "--db", db, "--no-score", "testdata/traces/generic-warehouse.jsonl"},
		{"import", "--db", db, "--no-score", "testdata/cases.jsonl"},
	} {
		if _, errs, code := run(t, args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	out, errs, code := run(t, "score", "--db", db, "--format", "jsonl")
	if code != 0 {
		t.Fatalf("score: %d %s", code, errs)
	}
	byTrace := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var s struct {
			TraceID string `json:"trace_id"`
			CaseID  string `json:"case_id"`
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		byTrace[s.TraceID] = s.CaseID
	}
	if got := byTrace["trace_9f31c2"]; got != "emea-active-q2-017" {
		t.Errorf("trace_9f31c2 case_id = %q, want emea-active-q2-017; all: %v", got, byTrace)
	}
	// A second run prints the stored scores: the id is still there.
	out, _, _ = run(t, "score", "--db", db, "--format", "jsonl")
	if !strings.Contains(out, `"case_id":"emea-active-q2-017"`) {
		t.Errorf("stored scores lost the case id")
	}
}
