package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/scoring"
)

// Issue 28, rule 7: the external oracle command is given the rows the
// scorer found (seed: "calls that returned at least one row or column the
// as_user is not entitled to"), under any key, with where each was found.
func TestCommandOracleGetsTheRows(t *testing.T) {
	got := filepath.Join(t.TempDir(), "call.json")
	o := &CommandOracle{Command: "cat > '" + got + `'; echo '{"violations":[{"row":1,"column":"region","reason":"APAC is not EMEA"}]}'`,
		Timeout: 20 * time.Second}
	tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(`{"trace_id":"t1","server":"s","as_user":"sales.mgr.emea.03","question":"q",
		"started_at":"2026-08-04T09:00:00Z","tools":[{"name":"list_deals","inputSchema":{"type":"object","properties":{"month":{"type":"string"}}}}],
		"steps":[{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"}},
		 {"kind":"tool_result","call_id":"c1","result":{"deals":[{"id":"d1","region":"EMEA"},{"id":"d2","region":"APAC"}],"next_cursor":null}},
		 {"kind":"answer","text":"2 deals"}]}`))
	if lerr != nil {
		t.Fatal(lerr)
	}
	ts, err := scoring.ScoreTrace(scoring.Config{Policy: o}, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ts.PolicyViolations == nil || *ts.PolicyViolations != 1 {
		t.Errorf("policy_violations = %v, want 1", ts.PolicyViolations)
	}
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	var call scoring.PolicyCall
	if err := json.Unmarshal(data, &call); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if len(call.Rows) != 2 || call.Rows[1].Path != "deals[1]" || call.Rows[1].Values["region"] != "APAC" {
		t.Errorf("the command got rows %+v, want deals[0] and deals[1]", call.Rows)
	}
	if len(call.Columns) != 2 || call.Columns[0] != "id" || call.Columns[1] != "region" {
		t.Errorf("the command got columns %v", call.Columns)
	}
}
