package app

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/suite"
)

// replayWithTools is the source trace of a bundled case rerun under its
// case id, with edit applied to each of its tools (as MCP JSON objects).
func replayWithTools(t *testing.T, traceID, caseID string, edit func(tool map[string]any)) string {
	t.Helper()
	f, err := os.Open("../testdata/traces/generic-warehouse.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var tr map[string]any
		if err := json.Unmarshal(sc.Bytes(), &tr); err != nil {
			t.Fatal(err)
		}
		if tr["trace_id"] != traceID {
			continue
		}
		for _, tool := range tr["tools"].([]any) {
			edit(tool.(map[string]any))
		}
		tr["trace_id"], tr["metadata"] = "replay_"+caseID, map[string]any{"case_id": caseID}
		out, _ := json.Marshal(tr)
		p := filepath.Join(t.TempDir(), "replay.jsonl")
		os.WriteFile(p, append(out, '\n'), 0o644)
		return p
	}
	t.Fatalf("no trace %s", traceID)
	return ""
}

// TestCheckContractGate: a suite whose cases carry contracts is checked
// against the contracts the new run saw. A tool that lost readOnlyHint
// fails the check unless approved before export; a description change is
// reported beside the verdicts and fails nothing.
func TestCheckContractGate(t *testing.T) {
	ctx := context.Background()
	const caseID, traceID = "revenue-q3-fy26-011", "trace_7a18cb"
	writer := func(tool map[string]any) {
		if tool["name"] == "run_sql" {
			tool["annotations"].(map[string]any)["readOnlyHint"] = false
		}
	}
	reworded := func(tool map[string]any) {
		if tool["name"] == "describe_table" {
			tool["description"] = tool["description"].(string) + " Includes views."
		}
	}
	dir := exportSuite(t, Files{})
	suitePath := filepath.Join(dir, "cases.jsonl")
	m, _ := ReadSuiteManifest(dir)
	if m.Contracts == nil {
		t.Fatal("export wrote no contracts.json for cases with contracts blocks")
	}

	check := func(suitePath, traces string) CheckReport {
		t.Helper()
		rep, err := RunCheck(ctx, CheckInput{Suite: suitePath, Traces: []string{traces}, TempDir: t.TempDir(), Gate: suite.Gate{AllowMissing: true}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := check(suitePath, replayWithTools(t, traceID, caseID, writer))
	if len(rep.Contracts) != 1 {
		t.Fatalf("contract changes: %+v", rep.Contracts)
	}
	d := rep.Contracts[0]
	if d.Server != "generic-warehouse" || d.Tool != "run_sql" || !d.Writer || !d.Blocking || d.Worst != "breaking" || strings.Join(d.Cases, ",") != caseID {
		t.Errorf("writer: %+v", d)
	}
	if !rep.Summary.Failed || rep.Summary.ContractsBlocking != 1 || rep.Summary.Regressed != 0 {
		t.Errorf("a tool that became a writer does not fail the check: %+v", rep.Summary)
	}
	if !strings.Contains(ContractLine(d), "BLOCKING") {
		t.Errorf("ContractLine: %s", ContractLine(d))
	}

	rep = check(suitePath, replayWithTools(t, traceID, caseID, reworded))
	if len(rep.Contracts) != 1 || rep.Contracts[0].Tool != "describe_table" || rep.Contracts[0].Blocking || len(rep.Contracts[0].Findings) == 0 || rep.Summary.Failed {
		t.Errorf("reworded description: %+v, summary %+v", rep.Contracts, rep.Summary)
	}

	rep = check(suitePath, replayWithTools(t, traceID, caseID, func(map[string]any) {}))
	if len(rep.Contracts) != 0 || rep.Summary.Failed {
		t.Errorf("unchanged contracts: %+v %+v", rep.Contracts, rep.Summary)
	}

	// Approved in the workbench before export: reported, not blocking.
	st := openTestdata(t, true)
	replay := replayWithTools(t, traceID, caseID, writer)
	tools, err := ReadTraces(ctx, []string{replay})
	if err != nil {
		t.Fatal(err)
	}
	var approve []model.ToolContract
	for _, tc := range tools[0].Tools {
		if tc.Name == "run_sql" {
			approve = append(approve, tc)
		}
	}
	if _, err := approveListing(ctx, st, "generic-warehouse", "review", "lead", approve); err != nil {
		t.Fatal(err)
	}
	eng, _ := newEngine(ctx, st, Files{})
	approvedDir := filepath.Join(t.TempDir(), "suite")
	if _, err := eng.Suite.Export(ctx, ExportOptions{Dir: approvedDir}); err != nil {
		t.Fatal(err)
	}
	rep = check(filepath.Join(approvedDir, "cases.jsonl"), replay)
	if len(rep.Contracts) != 1 || !rep.Contracts[0].Writer || !rep.Contracts[0].Approved || rep.Contracts[0].Blocking || rep.Summary.Failed {
		t.Errorf("approved writer: %+v, summary %+v", rep.Contracts, rep.Summary)
	}

	// A contracts.json edited after export is bad input.
	os.WriteFile(filepath.Join(dir, "contracts.json"), []byte(`{"contracts":[],"approved":[]}`), 0o644)
	if _, err := RunCheck(ctx, CheckInput{Suite: suitePath, Traces: []string{replay}, TempDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "changed since export") {
		t.Errorf("tampered contracts.json: %v", err)
	}
}
