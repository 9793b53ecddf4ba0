package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/store"
)

// manyTraces writes n small native traces over three tools, two roles and
// four outcomes (DESIGN.md "Native trace format").
func manyTraces(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	tools := []string{"run_sql", "active_customer_count", "list_open_tickets"}
	roles := []string{"finance_analyst", "support_lead"}
	outcomes := []string{"pass", "pass", "retry", "clarification"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"trace_id":"s%03d","server":"srv","user_role":%q,"as_user":"u%d","question":"Question %d?","outcome":%q,`+
			`"steps":[{"kind":"tool_call","id":"c1","tool":%q,"args":{}},{"kind":"tool_result","call_id":"c1","result":{}},{"kind":"answer","text":"%d"}]}`+"\n",
			i, roles[i%2], i, i, outcomes[i%4], tools[i%3], i)
	}
	return writeIn(t, dir, "many.jsonl", b.String())
}

func queued(t *testing.T, db string) []string {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ids, err := st.TraceIDs(context.Background(), store.Filter{QueuedOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}

func TestCLISampleQueuesAStratifiedSample(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	if _, errs, code := run(t, "import", "--db", db, "--no-score", manyTraces(t, dir, 60)); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := run(t, "sample", "--db", db, "--n", "12", "--seed", "5")
	if code != 0 || !strings.Contains(out, "queued 12 of 60 traces (seed 5)") {
		t.Fatalf("sample: %d %s %s", code, out, errs)
	}
	first := queued(t, db)
	if len(first) != 12 {
		t.Fatalf("%d traces queued", len(first))
	}
	if _, _, code := run(t, "sample", "--db", db, "--n", "12", "--seed", "5"); code != 0 || !slices.Equal(queued(t, db), first) {
		t.Error("the same seed queued another sample")
	}
	if _, _, code := run(t, "sample", "--db", db, "--n", "6", "--seed", "6", "--by", "outcome", "--oversample", "none"); code != 0 {
		t.Fatal("second sample failed")
	}
	if got := queued(t, db); len(got) != 6 {
		t.Errorf("the queue was not replaced: %d queued", len(got))
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sample", "--db", db}, 2, "--n N is required"},
		{[]string{"sample", "--db", db, "--n", "5", "--by", "colour"}, 2, `"colour" is not one of tool, user_role, outcome, server`},
		{[]string{"sample", "--db", db, "--n", "5", "--oversample", "retry"}, 2, "expected OUTCOME=FACTOR"},
	} {
		_, errs, code := run(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d %q", tt.args, code, errs)
		}
	}
}

func TestCLISampleRefusesFewerThanFifty(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	if _, errs, code := run(t, "import", "--db", db, "--no-score", manyTraces(t, dir, 40)); code != 0 {
		t.Fatal(errs)
	}
	_, errs, code := run(t, "sample", "--db", db, "--n", "10")
	if code != 1 || !strings.Contains(errs, "the database holds 40 traces") || !strings.Contains(errs, "fewer than fifty is not") {
		t.Fatalf("exit %d %q", code, errs)
	}
	if len(queued(t, db)) != 0 {
		t.Error("a refused sample queued traces")
	}
	out, _, code := run(t, "sample", "--db", db, "--n", "10", "--force")
	if code != 0 || !strings.Contains(out, "queued 10 of 40") {
		t.Errorf("--force: %d %s", code, out)
	}
}

func TestCLIExportExposeOnly(t *testing.T) {
	keep := filepath.Join(t.TempDir(), "demo.db")
	importBundled(t, keep)
	dir := t.TempDir()
	out, errs, code := run(t, "export", "--db", keep, "--out", dir, "--expose-only", "--policy", "testdata/policy.json")
	if code != 0 {
		t.Fatalf("export: %s", errs)
	}
	// testdata/README.md: every server passes "What was revenue in Q3?" and
	// the North America average deal size question, correct and grounded.
	for _, want := range []string{
		"wrote " + filepath.Join(dir, "cases.jsonl") + " (24 cases)",
		"dropped 4 of 28 cases: every server's case of the same question is correct and grounded",
		`"What was revenue in Q3?": revenue-q3-fy26-010, revenue-q3-fy26-011`,
		`na-avg-deal-q2-012, na-avg-deal-q2-013`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, "cases.jsonl"))
	if strings.Contains(string(data), "revenue-q3-fy26-010") || strings.Count(string(data), "\n") != 24 {
		t.Error("cases.jsonl still holds dropped cases")
	}
	var reports []struct{ Cases int }
	rep, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := json.Unmarshal(rep, &reports); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range reports {
		n += r.Cases
	}
	if n != 24 {
		t.Errorf("report.json covers %d cases, want the 24 kept", n)
	}
}
