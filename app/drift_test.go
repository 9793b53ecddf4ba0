package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

var update = flag.Bool("update", false, "rewrite golden files")

// openDriftTestdata is the bundled sample data plus run r3 of the
// task-specific server (testdata/drift/task-specific-r3.jsonl), where
// active_customer_count gains the required input segment and
// invoice_total's description changes.
func openDriftTestdata(t *testing.T) *store.Store {
	t.Helper()
	st := openTestdata(t, true)
	if _, err := importFile(context.Background(), st, nil, "../testdata/drift/task-specific-r3.jsonl", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestParseDBSource(t *testing.T) {
	for _, tc := range []struct {
		arg      string
		want     DBSource
		ok       bool
		errMatch string
	}{
		{"old.json", DBSource{}, false, ""},
		{"db:task-specific", DBSource{Server: "task-specific"}, true, ""},
		{"db:task-specific@r3", DBSource{Server: "task-specific", Run: "r3"}, true, ""},
		{"db:a@b@r1", DBSource{Server: "a@b", Run: "r1"}, true, ""},
		{"db:", DBSource{}, true, "no server"},
		{"db:@r1", DBSource{Run: "r1"}, true, "no server"},
		{"db:s@", DBSource{Server: "s"}, true, "empty run"},
	} {
		got, ok, err := ParseDBSource(tc.arg)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: %+v %v, want %+v %v", tc.arg, got, ok, tc.want, tc.ok)
		}
		if (err != nil) != (tc.errMatch != "") || (err != nil && !strings.Contains(err.Error(), tc.errMatch)) {
			t.Errorf("%s: error %v, want one containing %q", tc.arg, err, tc.errMatch)
		}
	}
}

func TestLoadRunResolvesRuns(t *testing.T) {
	st := openDriftTestdata(t)
	ctx := context.Background()
	for _, tc := range []struct {
		src     DBSource
		run     string
		errWant string
	}{
		{DBSource{Server: "task-specific"}, "r3", ""},
		{DBSource{Server: "task-specific", Run: RunLatest}, "r3", ""},
		{DBSource{Server: "task-specific", Run: RunPrevious}, "r2", ""},
		{DBSource{Server: "task-specific", Run: "r1"}, "r1", ""},
		{DBSource{Server: "task-specific", Run: "r9"}, "", `db:task-specific@r9: no tool contracts: server "task-specific" has no run "r9" with tool contracts (runs, oldest first: r1, r2, r3)`},
		{DBSource{Server: "support-crm", Run: RunPrevious}, "", "has a single run with contracts (r2)"},
		{DBSource{Server: "nope"}, "", `db:nope: no tool contracts: no trace of server "nope" saw any (servers with contracts: generic-warehouse, support-crm, task-specific)`},
	} {
		l, err := loadRun(ctx, st, tc.src)
		if tc.errWant != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errWant) || !errors.Is(err, ErrNoContracts) {
				t.Errorf("%s: error %v, want %q", tc.src, err, tc.errWant)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if l.Source.Run != tc.run || len(l.Tools) != 10 || len(l.Mixed) != 0 {
			t.Errorf("%s: run %s, %d tools, mixed %v", tc.src, l.Source.Run, len(l.Tools), l.Mixed)
		}
	}
}

func TestFillSemantic(t *testing.T) {
	st := openDriftTestdata(t)
	ctx := context.Background()
	n, err := fillSemantic(ctx, st)
	if err != nil || n == 0 {
		t.Fatalf("filled %d: %v", n, err)
	}
	if n, _ := fillSemantic(ctx, st); n != 0 {
		t.Errorf("second fill computed %d again", n)
	}
	hist, err := st.ContractHistory(ctx, "task-specific")
	if err != nil {
		t.Fatal(err)
	}
	// invoice_total's description changed: a new wire hash, the same
	// semantic hash. active_customer_count's input changed: both differ.
	sem := map[string][]string{}
	for _, v := range hist {
		if v.Semantic == "" || v.Semantic == "-" {
			t.Errorf("%s %s: semantic %q", v.Tool, v.Fingerprint[:12], v.Semantic)
		}
		sem[v.Tool] = append(sem[v.Tool], v.Semantic)
	}
	if s := sem["invoice_total"]; len(s) != 2 || s[0] != s[1] {
		t.Errorf("invoice_total semantic hashes %v, want two equal", s)
	}
	if s := sem["active_customer_count"]; len(s) != 2 || s[0] == s[1] {
		t.Errorf("active_customer_count semantic hashes %v, want two different", s)
	}
	if s := sem["revenue_total"]; len(s) != 1 {
		t.Errorf("revenue_total: %d versions, want 1", len(s))
	}
}

// TestDriftAcrossRunsNewRequiredInput is the phase's acceptance test: run
// r3 adds a required input to active_customer_count. The overview names the
// change and exactly the affected labeled cases: the two whose recorded
// calls now fail validation at tier 1, every other task-specific case that
// was given the tool at tier 4; nothing from other servers.
func TestDriftAcrossRunsNewRequiredInput(t *testing.T) {
	st := openDriftTestdata(t)
	ov, err := driftAcrossRuns(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if len(ov.Changes) != 2 {
		t.Fatalf("%d changes, want 2: %+v", len(ov.Changes), ov.Changes)
	}
	acc := ov.Changes[0]
	if acc.Tool != "active_customer_count" || acc.Server != "task-specific" || acc.OldRun != "r2" || acc.NewRun != "r3" ||
		acc.Lane != scoring.LaneBreaking || len(acc.Findings) != 1 {
		t.Fatalf("first change: %+v", acc)
	}
	f := acc.Findings[0]
	if f.ID != "input-property-added-required" || f.Path != "inputSchema.properties.segment" {
		t.Errorf("finding %s at %s", f.ID, f.Path)
	}
	tiers := map[scoring.Tier][]string{}
	for _, c := range acc.Cases {
		tiers[c.Tier] = append(tiers[c.Tier], c.CaseID)
		if c.Tier == scoring.TierInputFails && !strings.Contains(c.Evidence, "missing property 'segment'") {
			t.Errorf("%s: evidence %q does not name the missing input", c.CaseID, c.Evidence)
		}
	}
	wantTiers := map[scoring.Tier][]string{
		scoring.TierInputFails: {"emea-active-q2-018", "na-active-q2-005"},
		scoring.TierListed: {"deals-closing-aug-emea-013", "deals-closing-sep-emea-015", "emea-invoiced-aug-012",
			"na-avg-deal-q2-013", "new-business-q2-022", "pipeline-at-risk-na-w37-006", "revenue-q3-fy26-010",
			"top10-revenue-q2-009", "top5-revenue-q4-fy26-002", "umbrella-risk-signals-005"},
	}
	if !reflect.DeepEqual(tiers, wantTiers) {
		t.Errorf("cases by tier\n got %v\nwant %v", tiers, wantTiers)
	}
	if len(acc.TraceIDs) != 12 || acc.TraceIDs[0] != "trace_4be07a" {
		t.Errorf("trace ids for the queue: %v", acc.TraceIDs)
	}
	inv := ov.Changes[1]
	if inv.Tool != "invoice_total" || inv.Lane != scoring.LaneRisky || !inv.Security ||
		inv.Findings[0].ID != "tool-description-changed" || inv.Cases[0].CaseID != "emea-invoiced-aug-012" ||
		inv.Cases[0].Tier != scoring.TierCalled {
		t.Errorf("second change: %+v", inv)
	}
	golden(t, "testdata/drift_across_runs.golden", ov)
}

func TestDriftAcrossRunsWithoutChange(t *testing.T) {
	st := openTestdata(t, true) // r1 and r2 saw the same contracts
	ov, err := driftAcrossRuns(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if len(ov.Changes) != 0 || len(ov.Runs) != 5 {
		t.Errorf("changes %d (want 0), runs %d (want 5)", len(ov.Changes), len(ov.Runs))
	}
}

func TestSuiteCases(t *testing.T) {
	st := openDriftTestdata(t)
	ctx := context.Background()
	cases := []model.Case{
		{CaseID: "in-db", SourceTrace: "trace_4be07a"},
		{CaseID: "from-file", SourceTrace: "trace_elsewhere"},
		{CaseID: "by-contracts", SourceTrace: "gone", Contracts: map[string]string{"b": "1", "a": "2"}},
		{CaseID: "blind", SourceTrace: "gone"},
	}
	extra := []*model.Trace{{TraceID: "trace_elsewhere", Server: "x", Steps: []model.Step{
		{Kind: model.KindToolCall, ID: "c1", Tool: "a", Args: json.RawMessage(`{}`)}}}}
	got, unchecked, err := suiteCases(ctx, st, cases, extra)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !reflect.DeepEqual(unchecked, []string{"blind"}) {
		t.Fatalf("matched %d, unchecked %v", len(got), unchecked)
	}
	if got[0].TraceID != "trace_4be07a" || len(got[0].Tools.Calls) != 1 || len(got[0].Tools.Listed) != 10 {
		t.Errorf("in-db: %+v", got[0])
	}
	if got[1].Tools.Calls[0].Tool != "a" {
		t.Errorf("from-file: %+v", got[1])
	}
	if !reflect.DeepEqual(got[2].Tools.Listed, []string{"a", "b"}) || len(got[2].Tools.Calls) != 0 {
		t.Errorf("by-contracts: %+v", got[2])
	}
}

func TestApproveAndVerify(t *testing.T) {
	st := openDriftTestdata(t)
	ctx := context.Background()
	un, err := verify(ctx, st, "task-specific")
	if err != nil || len(un) != 12 {
		t.Fatalf("nothing approved: %d contracts, %v", len(un), err)
	}
	r2, err := loadRun(ctx, st, DBSource{Server: "task-specific", Run: "r2"})
	if err != nil {
		t.Fatal(err)
	}
	n, err := approveListing(ctx, st, "task-specific", "db:task-specific@r2", "ana", r2.Tools)
	if err != nil || n != 10 {
		t.Fatalf("approved %d: %v", n, err)
	}
	un, err = verify(ctx, st, "task-specific")
	if err != nil {
		t.Fatal(err)
	}
	if len(un) != 2 || un[0].Tool != "active_customer_count" || un[1].Tool != "invoice_total" {
		t.Fatalf("unapproved after approving r2: %+v", un)
	}
	for _, u := range un {
		if !u.KnownTool || !reflect.DeepEqual(u.Runs, []string{"r3"}) || len(u.Traces) != 3 {
			t.Errorf("%s: %+v", u.Tool, u)
		}
	}
	// Other servers were not approved.
	if all, _ := verify(ctx, st, ""); len(all) <= 2 {
		t.Errorf("every server: %d unapproved contracts", len(all))
	}
}

func golden(t *testing.T, path string, v any) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("%s differs; rerun with -update and review the diff\n%s", path, b.String())
	}
}

func TestNotLabeledOnNew(t *testing.T) {
	v1 := model.ToolContract{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`)}
	v2 := model.ToolContract{Name: "a", InputSchema: json.RawMessage(`{"type":"object","required":["x"]}`)}
	cases := []StoredCase{
		{Tools: scoring.CaseTools{CaseID: "on-old"}, Saw: map[string]string{"a": v1.Fingerprint()}},
		{Tools: scoring.CaseTools{CaseID: "on-new"}, Saw: map[string]string{"a": v2.Fingerprint()}},
		{Tools: scoring.CaseTools{CaseID: "unknown"}},
	}
	affected := []scoring.AffectedCase{{CaseID: "on-old", Tool: "a"}, {CaseID: "on-new", Tool: "a"}, {CaseID: "unknown", Tool: "a"}}
	got := NotLabeledOnNew(affected, cases, []model.ToolContract{v2})
	if len(got) != 2 || got[0].CaseID != "on-old" || got[1].CaseID != "unknown" {
		t.Errorf("kept %+v, want on-old and unknown", got)
	}
	if len(affected) != 3 {
		t.Error("the input slice was modified")
	}
}
