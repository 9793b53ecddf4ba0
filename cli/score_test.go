package cli

import (
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
