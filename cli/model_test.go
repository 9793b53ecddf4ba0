package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"tracelab/app"
)

// TestModelAndEstimatedCostAreKept: the model a trace names and a cost
// estimated from the price table survive the database, and ls shows the
// model.
func TestModelAndEstimatedCostAreKept(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	f := writeIn(t, dir, "m.jsonl", `{"trace_id":"m1","server":"s1","question":"How many?","model":"gpt-4o-2024-08-06",`+
		`"steps":[{"kind":"answer","text":"1"}],"usage":{"input_tokens":1000000,"output_tokens":0}}`+"\n")
	if _, errs, code := run(t, "import", "--db", db, f); code != 0 {
		t.Fatalf("import: %d %s", code, errs)
	}
	out, _, code := run(t, "ls", "--db", db, "--format", "json")
	var rows []struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || code != 0 || len(rows) != 1 || rows[0].Model != "gpt-4o-2024-08-06" {
		t.Fatalf("ls: %d %v %+v", code, err, rows)
	}
	eng, err := app.Open(context.Background(), db, app.Files{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	tr, err := eng.Trace(context.Background(), "m1")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Model != "gpt-4o-2024-08-06" || !tr.Usage.Estimated || tr.Usage.USD <= 0 {
		t.Errorf("stored trace: model %q, usd %v, estimated %v", tr.Model, tr.Usage.USD, tr.Usage.Estimated)
	}
}

// TestImportVerboseListsSkippedParts: a cassette's non-model call is read
// past, counted in the summary and listed with --verbose.
func TestImportVerboseListsSkippedParts(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	const f = "importers/testdata/formats/openai_chat/cassette_parsed_body.yaml"
	out, errs, code := run(t, "import", "--db", db, f)
	if code != 0 || !strings.Contains(out, "1 part(s) skipped") || strings.Contains(out, "telemetry.example.com") {
		t.Fatalf("import: %d %q %q", code, out, errs)
	}
	out, _, code = run(t, "import", "--db", filepath.Join(t.TempDir(), "u.db"), "--verbose", f)
	if code != 0 || !strings.Contains(out, "skipped interactions[2]: POST https://telemetry.example.com/v1/runs") {
		t.Fatalf("import --verbose: %d %q", code, out)
	}
}
