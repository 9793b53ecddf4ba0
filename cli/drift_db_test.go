package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// driftDBFixture imports the bundled traces and cases plus run r3 of the
// task-specific server (testdata/drift/task-specific-r3.jsonl: a required
// input added to active_customer_count, invoice_total's description
// changed) into a fresh database and returns its path.
func driftDBFixture(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "drift.db")
	files, _ := filepath.Glob("testdata/traces/*.jsonl")
	files = append(files, "testdata/cases.jsonl", "testdata/drift/task-specific-r3.jsonl")
	if _, errs, code := run(t, append([]string{"import", "--db", db}, files...)...); code != 0 {
		t.Fatalf("import: %d %s", code, errs)
	}
	return db
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if driftUpdating() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs (rerun with -update and review the diff):\n%s", path, got)
	}
}

// The acceptance flow of drift phase 2 from the command line: the latest
// run of task-specific against the one before, with the labeled cases of
// the database listed by evidence tier.
func TestDriftDBRunsWithCases(t *testing.T) {
	db := driftDBFixture(t)
	out, errs, code := run(t, "drift", "--db", db, "--cases", "db:task-specific@previous", "db:task-specific")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (breaking drift): %s", code, errs)
	}
	for _, want := range []string{
		"Schema drift detected for tool: active_customer_count",
		"input-property-added-required at inputSchema.properties.segment",
		"emea-active-q2-018 (tier 1, input fails): call 1: recorded args fail the new input schema: at /: missing property 'segment'",
		"na-active-q2-005 (tier 1, input fails)",
		"emea-invoiced-aug-012 (tier 3, called): called invoice_total 1 time(s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// Cases of other servers never saw these tools.
	if strings.Contains(out, "emea-active-q2-017") || strings.Contains(out, "acme-open-tickets") {
		t.Error("a case of another server is listed")
	}
	checkGolden(t, "testdata/drift/db-cases.golden", out)

	// The JSON report names the resolved runs and carries the same cases.
	out, _, code = run(t, "drift", "--db", db, "--cases", "--format", "json", "db:task-specific@r2", "db:task-specific@latest")
	var rep struct {
		Summary struct{ Old, New string }
		Cases   []struct {
			CaseID string `json:"case_id"`
			Tool   string
			Tier   int
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 {
		t.Fatalf("json: %v %d", err, code)
	}
	if rep.Summary.Old != "db:task-specific@r2" || rep.Summary.New != "db:task-specific@r3" {
		t.Errorf("sources %q %q", rep.Summary.Old, rep.Summary.New)
	}
	tier1 := 0
	for _, c := range rep.Cases {
		if c.Tier == 1 {
			tier1++
		}
	}
	if len(rep.Cases) != 24 || tier1 != 2 {
		t.Errorf("%d cases (%d at tier 1), want 24 (12 per tool) with 2 at tier 1", len(rep.Cases), tier1)
	}

	// r1 and r2 saw the same contracts.
	out, _, code = run(t, "drift", "--db", db, "--cases", "db:task-specific@r1", "db:task-specific@r2")
	if code != 0 || !strings.HasPrefix(out, "No tool contract drift between db:task-specific@r1 and db:task-specific@r2 (10 tool(s) compared).") {
		t.Errorf("r1 to r2: %d %q", code, out)
	}
}

func TestDriftDBSourceErrors(t *testing.T) {
	db := driftDBFixture(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"db:nope", "db:task-specific"}, `db:nope: no tool contracts: no trace of server "nope" saw any (servers with contracts: generic-warehouse, support-crm, task-specific)`},
		{[]string{"db:task-specific@r9", "db:task-specific"}, `db:task-specific@r9: no tool contracts: server "task-specific" has no run "r9" with tool contracts (runs, oldest first: r1, r2, r3)`},
		{[]string{"db:support-crm@previous", "db:support-crm"}, `server "support-crm" has a single run with contracts (r2), none before it`},
	} {
		_, errs, code := run(t, append([]string{"drift", "--db", db}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	_, errs, code := run(t, "drift", "--db", filepath.Join(t.TempDir(), "absent.db"), "db:x", "db:y")
	if code != 2 || !strings.Contains(errs, "no database at") {
		t.Errorf("absent database: %d %q", code, errs)
	}
}

// --suite with a database that holds none of the suite's traces: the
// contracts block of each case says which tools it was labeled against.
func TestDriftSuiteFallsBackToContracts(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "r3.db")
	if _, errs, code := run(t, "import", "--db", db, "testdata/drift/task-specific-r3.jsonl"); code != 0 {
		t.Fatal(errs)
	}
	// OLD: the tools an r1 trace of task-specific was given.
	f, err := os.Open("testdata/traces/task-specific.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	sc.Scan()
	f.Close()
	var tr model.Trace
	if err := json.Unmarshal(sc.Bytes(), &tr); err != nil {
		t.Fatal(err)
	}
	tools := make([]json.RawMessage, len(tr.Tools))
	for i, tc := range tr.Tools {
		tools[i] = tc.WireJSON()
	}
	oldB, _ := json.Marshal(map[string]any{"tools": tools})
	old := writeIn(t, dir, "r1-tools.json", string(oldB))
	suiteData, _ := os.ReadFile("testdata/cases.jsonl")
	suiteFile := writeIn(t, dir, "cases.jsonl", string(suiteData)+
		`{"case_id":"zz-no-evidence","source_trace":"gone","user_role":"r","as_user":"u","question":"q","gold":{"answer":1,"tolerance":null,"required_fields":[],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":true,"grounded":true,"failure_class":null,"note":""},"cost":{"input_tokens":0,"output_tokens":0,"tool_calls":0,"turns":0,"usd":0}}`+"\n")
	out, errs, code := run(t, "drift", "--db", db, "--suite", suiteFile, "--format", "json", old, "db:task-specific")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "1 suite case(s) have no trace in the database or --traces and no contracts block, so no evidence: zz-no-evidence") {
		t.Errorf("stderr: %q", errs)
	}
	var rep struct {
		Cases []struct {
			CaseID string `json:"case_id"`
			Tier   int
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// Only listing evidence is left: every task-specific case, at tier 4, per changed tool.
	if len(rep.Cases) != 24 {
		t.Errorf("%d affected, want 24", len(rep.Cases))
	}
	for _, c := range rep.Cases {
		if c.Tier != 4 {
			t.Errorf("%s at tier %d, want 4 (no recorded calls at hand)", c.CaseID, c.Tier)
		}
	}
}

func TestDriftApproveVerifyHistory(t *testing.T) {
	db := driftDBFixture(t)
	out, _, code := run(t, "drift", "verify", "--db", db, "--server", "task-specific")
	if code != 1 || !strings.Contains(out, "16 trace(s) ran against 12 contract(s) not in the approved registry") ||
		!strings.Contains(out, "The registry is empty") {
		t.Fatalf("verify on an empty registry: %d %q", code, out)
	}
	out, _, code = run(t, "drift", "approve", "--db", db, "--by", "ana", "db:task-specific@r2")
	if code != 0 || out != "approved 10 contract(s) of db:task-specific@r2 for server task-specific (10 new)\n" {
		t.Fatalf("approve: %d %q", code, out)
	}
	out, _, code = run(t, "drift", "verify", "--db", db, "--server", "task-specific")
	if code != 1 {
		t.Fatalf("verify after approving r2: exit %d", code)
	}
	checkGolden(t, "testdata/drift/verify.golden", out)
	out, _, code = run(t, "drift", "verify", "--db", db, "--server", "task-specific", "--format", "json")
	var v struct {
		Unapproved []struct {
			Tool      string
			KnownTool bool `json:"known_tool"`
			Traces    []string
		}
		Traces, Approved int
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != 1 {
		t.Fatalf("verify json: %v %d %s", err, code, out)
	}
	if len(v.Unapproved) != 2 || v.Traces != 3 || v.Approved != 10 || !v.Unapproved[0].KnownTool {
		t.Errorf("verify json: %+v", v)
	}
	// Approving the new run clears the server; re-approving adds nothing.
	if out, _, code = run(t, "drift", "approve", "--db", db, "db:task-specific"); code != 0 || !strings.Contains(out, "(2 new)") {
		t.Fatalf("approve r3: %d %q", code, out)
	}
	out, _, code = run(t, "drift", "verify", "--db", db, "--server", "task-specific")
	if code != 0 || !strings.HasPrefix(out, "Every imported trace ran against approved contracts") {
		t.Errorf("verify after approving r3: %d %q", code, out)
	}
	// Other servers are still unapproved.
	if _, _, code = run(t, "drift", "verify", "--db", db); code != 1 {
		t.Errorf("verify over every server: exit %d, want 1", code)
	}
	// A listing file approved without --server holds everywhere.
	if out, _, code = run(t, "drift", "approve", "--db", db, "testdata/drift/new.json"); code != 0 || !strings.Contains(out, "for every server") {
		t.Errorf("approve file: %d %q", code, out)
	}

	out, _, code = run(t, "drift", "history", "--db", db, "--server", "task-specific")
	if code != 0 || strings.Count(out, "active_customer_count") != 2 || strings.Count(out, "revenue_total") != 1 {
		t.Errorf("history: %d\n%s", code, out)
	}
	out, _, _ = run(t, "drift", "history", "--db", db, "--format", "json")
	var hist []struct {
		Tool   string
		Traces int
	}
	if err := json.Unmarshal([]byte(out), &hist); err != nil || len(hist) != 18 { // 3 + 3 + 10 tools, 2 of them changed
		t.Errorf("history json: %v, %d rows", err, len(hist))
	}
}
