package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/store/livetest"
)

// TestLsShowsTracesChangedAfterConfirmation: a confirmed trace that new
// spans changed is marked in ls's table, counted under it with what to
// do, and its note is in the JSON; a trace nobody confirmed is not.
func TestLsShowsTracesChangedAfterConfirmation(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "live.db")
	e, err := app.Open(ctx, db, app.Files{})
	if err != nil {
		t.Fatal(err)
	}
	const tid, other = "5b8efff798038103d269b633813fc60c", "6b8efff798038103d269b633813fc60c"
	if _, err := e.Imports.IngestLive(ctx, "otlp", []app.LiveSpan{livetest.ChatSpan(tid, "eee19b7ec3c1b174", 1, "42"), livetest.ChatSpan(other, "eee19b7ec3c1b174", 1, "7")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Labels.ConfirmLabel(ctx, tid, "ana", true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Imports.IngestLive(ctx, "otlp", []app.LiveSpan{livetest.ChatSpan(tid, "fff19b7ec3c1b174", 2, "43"), livetest.ChatSpan(other, "fff19b7ec3c1b174", 2, "8")}); err != nil {
		t.Fatal(err)
	}
	e.Close()

	out, stderr, code := run(t, "ls", "--db", db)
	if code != 0 {
		t.Fatalf("ls exit %d: %s", code, stderr)
	}
	var marked []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "(changed)") {
			marked = append(marked, l)
		}
	}
	if len(marked) != 1 || !strings.HasPrefix(marked[0], tid) {
		t.Fatalf("rows marked changed: %q\n%s", marked, out)
	}
	if !strings.Contains(out, "1 confirmed trace(s) changed after confirmation") {
		t.Fatalf("no count of changed traces:\n%s", out)
	}
	js, _, _ := run(t, "ls", "--db", db, "--format", "json")
	var rows []struct {
		TraceID string `json:"trace_id"`
		Review  string `json:"review"`
	}
	if err := json.Unmarshal([]byte(js), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if changed := strings.Contains(r.Review, "final answer changed"); changed != (r.TraceID == tid) {
			t.Errorf("trace %s review %q", r.TraceID, r.Review)
		}
	}
}
