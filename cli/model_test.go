package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
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
	tr, err := eng.Traces.Trace(context.Background(), "m1")
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

// TestIncompleteTraceIsShown: a stream cut before its end imports with a
// warning naming the file, line and trace, and ls marks that trace (text
// and JSON); a nested "incomplete" key in another trace's metadata does
// not.
func TestIncompleteTraceIsShown(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	const cut = "importers/testdata/formats/openai_chat/stream_cut.sse"
	whole := writeIn(t, dir, "w.jsonl", `{"trace_id":"w1","question":"q?","metadata":{"note":{"incomplete":"no"}},"steps":[{"kind":"answer","text":"1"}]}`+"\n")
	out, errs, code := run(t, "import", "--db", db, cut, whole)
	if code != 0 || !strings.Contains(out, "1 incomplete") ||
		!strings.Contains(errs, "warning: "+cut+":1: trace chatcmpl-stream-2 is incomplete (the response stream ended before a chunk with finish_reason)") {
		t.Fatalf("import: %d %q %q", code, out, errs)
	}
	if strings.Contains(errs, "w1") {
		t.Errorf("warning for the whole trace: %q", errs)
	}
	out, _, code = run(t, "ls", "--db", db)
	var cutLine, wholeLine string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "chatcmpl-stream-2"):
			cutLine = l
		case strings.HasPrefix(l, "w1"):
			wholeLine = l
		}
	}
	if code != 0 || !strings.Contains(cutLine, "(incomplete)") || wholeLine == "" || strings.Contains(wholeLine, "incomplete") {
		t.Errorf("ls: %d\n%s", code, out)
	}
	out, _, code = run(t, "ls", "--db", db, "--format", "json")
	var rows []struct {
		TraceID    string `json:"trace_id"`
		Incomplete string `json:"incomplete"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || code != 0 || len(rows) != 2 {
		t.Fatalf("ls json: %d %v %s", code, err, out)
	}
	for _, r := range rows {
		if want := r.TraceID == "chatcmpl-stream-2"; (r.Incomplete != "") != want {
			t.Errorf("ls json: %s incomplete %q", r.TraceID, r.Incomplete)
		}
	}
}
