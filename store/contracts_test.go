package store

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// Two runs of server s1: r1 sees lookup v1 and list, r2 sees lookup v2
// (a new required input) and the same list. Tool shapes follow the MCP
// specification 2025-11-25, server/tools "Tool".
const (
	lookupV1 = `{"name":"lookup","description":"Find a customer","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`
	lookupV2 = `{"name":"lookup","description":"Find a customer","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"region":{"type":"string"}},"required":["id","region"]}}`
	listTool = `{"name":"list","inputSchema":{"type":"object"}}`
)

func runTrace(id, server, run, started string, tools ...string) string {
	return `{"trace_id":"` + id + `","server":"` + server + `","run_id":"` + run + `","question":"q","started_at":"` + started +
		`","tools":[` + strings.Join(tools, ",") + `],"steps":[{"kind":"tool_call","id":"c1","tool":"lookup","args":{"id":"C1"}},{"kind":"answer","text":"a"}]}` + "\n"
}

func driftStore(t *testing.T, b backend) *Store {
	t.Helper()
	st := b.open(t)
	body := runTrace("a1", "s1", "r1", "2026-08-01T10:00:00Z", lookupV1, listTool) +
		runTrace("a2", "s1", "r1", "2026-08-02T10:00:00Z", lookupV1, listTool) +
		runTrace("b1", "s1", "r2", "2026-08-20T10:00:00Z", lookupV2, listTool) +
		runTrace("x1", "s2", "r1", "2026-08-03T10:00:00Z", lookupV1)
	if _, err := importString(t, st, "runs.jsonl", body, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	return st
}

func fpOf(t *testing.T, raw string) string {
	t.Helper()
	fp, err := model.Fingerprint([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// A listing that names a tool twice keeps the later contract, on both
// backends (PostgreSQL refused the import), and the earlier is not stored.
func TestToolNamedTwiceKeepsTheLater(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		body := runTrace("d1", "s1", "r1", "2026-08-01T10:00:00Z", lookupV1, listTool, lookupV2)
		if _, err := importString(t, st, "d.jsonl", body, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		tr, err := st.Trace(ctx, "d1")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tc := range tr.Tools {
			got = append(got, tc.Name+" "+tc.Fingerprint())
		}
		if want := []string{"list " + fpOf(t, listTool), "lookup " + fpOf(t, lookupV2)}; !reflect.DeepEqual(got, want) {
			t.Errorf("tools %q, want %q", got, want)
		}
		var n int
		if err := st.db.QueryRow(`SELECT count(*) FROM contracts WHERE fingerprint = ?`, fpOf(t, lookupV1)).Scan(&n); err != nil || n != 0 {
			t.Errorf("the overwritten contract is stored %d times (%v)", n, err)
		}
	})
}

func TestContractHistory(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := driftStore(t, b)
		ctx := context.Background()
		got, err := st.ContractHistory(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		want := []ContractVersion{
			{Server: "s1", Tool: "list", Fingerprint: fpOf(t, listTool), FirstSeen: "2026-08-01T10:00:00Z", LastSeen: "2026-08-20T10:00:00Z", Traces: 3, Runs: []string{"r1", "r2"}},
			{Server: "s1", Tool: "lookup", Fingerprint: fpOf(t, lookupV1), FirstSeen: "2026-08-01T10:00:00Z", LastSeen: "2026-08-02T10:00:00Z", Traces: 2, Runs: []string{"r1"}},
			{Server: "s1", Tool: "lookup", Fingerprint: fpOf(t, lookupV2), FirstSeen: "2026-08-20T10:00:00Z", LastSeen: "2026-08-20T10:00:00Z", Traces: 1, Runs: []string{"r2"}},
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("history\n got %+v\nwant %+v", got, want)
		}
		all, err := st.ContractHistory(ctx, "")
		if err != nil || len(all) != 4 || all[3].Server != "s2" {
			t.Fatalf("every server: %+v %v", all, err)
		}

		// Semantic hashes start empty and are filled by whoever computes them.
		todo, err := st.ContractsWithoutSemantic(ctx)
		if err != nil || len(todo) != 3 {
			t.Fatalf("without semantic: %d %v", len(todo), err)
		}
		set := map[string]string{}
		for _, c := range todo {
			tc, err := c.Contract()
			if err != nil {
				t.Fatal(err)
			}
			if tc.Fingerprint() != c.Fingerprint {
				t.Errorf("%s: decoded contract fingerprints as %s, stored %s", c.Name, tc.Fingerprint(), c.Fingerprint)
			}
			set[c.Fingerprint] = "sem-" + c.Name
		}
		if err := st.SetSemantic(ctx, set); err != nil {
			t.Fatal(err)
		}
		if todo, _ := st.ContractsWithoutSemantic(ctx); len(todo) != 0 {
			t.Errorf("still without semantic: %d", len(todo))
		}
		got, _ = st.ContractHistory(ctx, "s1")
		if got[1].Semantic != "sem-lookup" {
			t.Errorf("semantic not stored: %+v", got[1])
		}
	})
}

func TestRunsAndRunContracts(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := driftStore(t, b)
		ctx := context.Background()
		runs, err := st.ContractRuns(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 2 || runs[0].RunID != "r1" || runs[0].Traces != 2 || runs[1].RunID != "r2" {
			t.Fatalf("runs %+v", runs)
		}
		rc, err := st.RunContracts(ctx, "s1", "r2")
		if err != nil {
			t.Fatal(err)
		}
		if len(rc) != 2 || rc[0].Name != "list" || rc[1].Name != "lookup" || rc[1].Fingerprint != fpOf(t, lookupV2) || len(rc[1].Also) != 0 {
			t.Fatalf("r2 contracts %+v", rc)
		}
		if _, err := st.RunContracts(ctx, "s1", "r9"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("unknown run: %v", err)
		}
		ids, err := st.ContractTraceIDs(ctx, "s1", fpOf(t, lookupV1))
		if err != nil || !reflect.DeepEqual(ids, []string{"a1", "a2"}) {
			t.Fatalf("traces of lookup v1 on s1: %v %v", ids, err)
		}

		// A run that saw two versions of a tool keeps the latest and names the other.
		if _, err := importString(t, st, "mixed.jsonl", runTrace("b2", "s1", "r2", "2026-08-21T10:00:00Z", lookupV1), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		rc, _ = st.RunContracts(ctx, "s1", "r2")
		if rc[1].Fingerprint != fpOf(t, lookupV1) || !reflect.DeepEqual(rc[1].Also, []string{fpOf(t, lookupV2)}) {
			t.Fatalf("mixed run: %+v", rc[1])
		}
	})
}

func TestApproveAndUnapprovedUses(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := driftStore(t, b)
		ctx := context.Background()
		uses, err := st.UnapprovedUses(ctx, "")
		if err != nil || len(uses) != 7 {
			t.Fatalf("nothing approved: %d uses, %v", len(uses), err)
		}
		// Approve r1 of s1 for s1 only, and list everywhere.
		as := []Approval{
			{Server: "s1", Tool: "lookup", Fingerprint: fpOf(t, lookupV1), Body: json.RawMessage(lookupV1), Source: "db:s1@r1", ApprovedBy: "ana"},
			{Server: "", Tool: "list", Fingerprint: fpOf(t, listTool), Body: json.RawMessage(listTool), Source: "db:s1@r1", ApprovedBy: "ana"},
		}
		n, err := st.Approve(ctx, as)
		if err != nil || n != 2 {
			t.Fatalf("approve: %d %v", n, err)
		}
		if n, _ := st.Approve(ctx, as); n != 0 {
			t.Errorf("approving again added %d", n)
		}
		uses, err = st.UnapprovedUses(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, u := range uses {
			got = append(got, u.TraceID+" "+u.Tool+" "+map[bool]string{true: "drifted", false: "new"}[u.KnownTool])
		}
		// b1 saw lookup v2 (a known tool drifted); x1 on s2 saw lookup v1,
		// which is approved on s1 only.
		want := []string{"b1 lookup drifted", "x1 lookup new"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("unapproved\n got %v\nwant %v", got, want)
		}
		if uses, _ := st.UnapprovedUses(ctx, "s2"); len(uses) != 1 || uses[0].TraceID != "x1" {
			t.Errorf("server filter: %+v", uses)
		}
		reg, err := st.Approvals(ctx)
		if err != nil || len(reg) != 2 || reg[0].Tool != "list" || reg[0].ApprovedAt != "2026-07-04T10:00:00Z" {
			t.Fatalf("registry %+v %v", reg, err)
		}
		if _, err := st.Approve(ctx, []Approval{{Tool: "x"}}); err == nil {
			t.Error("an approval without fingerprint was accepted")
		}
	})
}

func TestCaseExportCarriesContracts(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := driftStore(t, b)
		ctx := context.Background()
		caseLine := func(id, trace, contracts string) string {
			return `{"case_id":"` + id + `","source_trace":"` + trace + `","user_role":"r","as_user":"u","question":"q","gold":{"answer":1,"tolerance":null,"required_fields":[],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":true,"grounded":true,"failure_class":null,"note":""},"cost":{"input_tokens":0,"output_tokens":0,"tool_calls":0,"turns":0,"usd":0}` + contracts + "}\n"
		}
		// k1 is linked to a1: its trace's contracts win over what the line says.
		// k2's trace is not here: the imported block is kept as it came.
		body := caseLine("k1", "a1", `,"contracts":{"lookup":"stale"}`) + caseLine("k2", "gone", `,"contracts":{"t":"abc"}`) +
			caseLine("k3", "gone", "")
		if _, err := importString(t, st, "cases.jsonl", body, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		recs, err := st.Cases(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]map[string]string{
			"k1": {"list": fpOf(t, listTool), "lookup": fpOf(t, lookupV1)},
			"k2": {"t": "abc"},
			"k3": nil,
		}
		for _, r := range recs {
			if !reflect.DeepEqual(r.Case.Contracts, want[r.Case.CaseID]) {
				t.Errorf("%s: contracts %v, want %v", r.Case.CaseID, r.Case.Contracts, want[r.Case.CaseID])
			}
		}
		line, _ := model.MarshalLine(&recs[0].Case)
		if !strings.Contains(string(line), `"usd":0},"contracts":{"list":"`) {
			t.Errorf("contracts do not follow cost: %s", line)
		}
		line, _ = model.MarshalLine(&recs[2].Case)
		if strings.Contains(string(line), "contracts") {
			t.Errorf("a case without contracts carries the key: %s", line)
		}
	})
}

// A suite whose traces are elsewhere keeps its contracts blocks: import
// then export is byte-identical, contracts included.
func TestCasesWithContractsRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		in := `{"case_id":"a1","source_trace":"elsewhere","user_role":"r","as_user":"u","question":"q","gold":{"answer":1,"tolerance":null,"required_fields":[],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":true,"grounded":true,"failure_class":null,"note":""},"cost":{"input_tokens":1,"output_tokens":2,"tool_calls":1,"turns":1,"usd":0.5},"contracts":{"list":"` + fpOf(t, listTool) + `","lookup":"` + fpOf(t, lookupV1) + `"}}` + "\n"
		st := b.open(t)
		if _, err := importString(t, st, "cases.jsonl", in, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, err := st.ExportCases(context.Background(), dir, false); err != nil {
			t.Fatal(err)
		}
		out, _ := os.ReadFile(filepath.Join(dir, "cases.jsonl"))
		if string(out) != in {
			t.Fatalf("round trip differs:\n in: %s\nout: %s", in, out)
		}
		if res, err := importString(t, st, "cases.jsonl", string(out), ImportOptions{}); err != nil || res.Unchanged != 1 {
			t.Fatalf("re-import: %+v %v", res, err)
		}
	})
}
