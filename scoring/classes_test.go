package scoring

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

// Small traces, one per symptom, in the native format. Tool definitions
// follow the MCP tools shape (name, description, inputSchema as JSON
// Schema with "pattern"), per the MCP specification, server/tools:
// https://modelcontextprotocol.io/specification/2025-06-18/server/tools
const ticketsTool = `{"name":"list_open_tickets","description":"Open tickets of one customer.","inputSchema":{"type":"object","properties":{"customer_id":{"type":"string","pattern":"^C2-[0-9]{6}$","description":"cust_id_v2, the canonical customer id, e.g. C2-004211"}},"required":["customer_id"]}}`

const dealsTool = `{"name":"list_deals","description":"Deals closing in a month.","inputSchema":{"type":"object","properties":{"month":{"type":"string"},"cursor":{"type":"string"}}}}`

func classTrace(id, asUser, tools, steps string) string {
	return fmt.Sprintf(`{"trace_id":%q,"server":"s","as_user":%q,"question":"q","started_at":"2026-08-04T09:00:00Z","tools":[%s],"steps":[%s],"usage":{"input_tokens":1,"output_tokens":1,"usd":0.01}}`,
		id, asUser, tools, steps)
}

func TestClassesWithoutSQL(t *testing.T) {
	hours := func(h float64) *float64 { return &h }
	policy, err := ParsePolicy([]byte(policyJSON))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		trace     string
		gold      *model.Gold
		wantClass model.FailureClass // "" = no class suggested
		wantEv    []string           // "class@step" lines that must be present
	}{
		{"entity: CRM id against a documented cust_id_v2 pattern, empty result read as none",
			classTrace("e1", "sup.agent.01", ticketsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_open_tickets","args":{"customer_id":"ACC-00412"},"credential":"sup.agent.01"},
				 {"kind":"tool_result","call_id":"c1","result":{"tickets":[],"total":0},"as_of":"2026-08-04T08:59:00Z"},
				 {"kind":"answer","text":"Acme has no open tickets."}`),
			nil, model.ClassEntity, []string{"entity@0", "entity@1"}},
		{"entity: no pattern, but the description names cust_id_v2 and the value came from account_id",
			classTrace("e3", "sup.agent.01", `{"name":"search_accounts","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}}},
				{"name":"open_risk_signals","inputSchema":{"type":"object","properties":{"customer_id":{"type":"string","description":"Customer id (cust_id_v2)."}}}}`,
				`{"kind":"tool_call","id":"c1","tool":"search_accounts","args":{"query":"Umbrella"},"credential":"sup.agent.01"},
				 {"kind":"tool_result","call_id":"c1","result":{"columns":["account_id","cust_id_v2","name"],"rows":[["ACC-01877","C2-018774","Umbrella Health AG"]]}},
				 {"kind":"tool_call","id":"c2","tool":"open_risk_signals","args":{"customer_id":"ACC-01877"},"credential":"sup.agent.01"},
				 {"kind":"tool_result","call_id":"c2","result":{"columns":["signal"],"rows":[]}},
				 {"kind":"answer","text":"Umbrella Health has no open churn-risk signals."}`),
			nil, model.ClassEntity, []string{"entity@2", "entity@3"}},
		{"entity quiet: the crosswalked value is passed",
			classTrace("e4", "sup.agent.01", `{"name":"search_accounts","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}}},
				{"name":"open_risk_signals","inputSchema":{"type":"object","properties":{"customer_id":{"type":"string","description":"Customer id (cust_id_v2)."}}}}`,
				`{"kind":"tool_call","id":"c1","tool":"search_accounts","args":{"query":"Umbrella"},"credential":"sup.agent.01"},
				 {"kind":"tool_result","call_id":"c1","result":{"columns":["account_id","cust_id_v2","name"],"rows":[["ACC-01877","C2-018774","Umbrella Health AG"]]}},
				 {"kind":"tool_call","id":"c2","tool":"open_risk_signals","args":{"customer_id":"C2-018774"},"credential":"sup.agent.01"},
				 {"kind":"tool_result","call_id":"c2","result":{"columns":["signal"],"rows":[["usage drop"]]}},
				 {"kind":"answer","text":"Umbrella Health has 1 open churn-risk signal."}`),
			nil, "", nil},
		{"entity listed, not suggested: an empty result read as none, with a valid id",
			classTrace("e5", "sup.agent.01", ticketsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_open_tickets","args":{"customer_id":"C2-004211"},"credential":"sup.agent.01"},
				 {"kind":"tool_result","call_id":"c1","result":{"tickets":[],"total":0}},
				 {"kind":"answer","text":"Acme has no open tickets."}`),
			nil, "", []string{"entity@1"}},
		{"entity quiet: id in the documented scheme",
			classTrace("e2", "sup.agent.01", ticketsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_open_tickets","args":{"customer_id":"C2-004211"},"credential":"sup.agent.01"},
				 {"kind":"tool_result","call_id":"c1","result":{"tickets":[{"id":"T-1"}],"total":1}},
				 {"kind":"answer","text":"Acme has 1 open ticket."}`),
			nil, "", nil},
		{"structural: next_cursor set and no follow-up call",
			classTrace("p1", "sales.mgr.emea.03", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c1","result":{"deals":[{"id":"d1","region":"EMEA"}],"next_cursor":"abc","has_more":true},"next_cursor":"abc","has_more":true},
				 {"kind":"answer","text":"100 results"}`),
			nil, model.ClassStructural, []string{"structural@1"}},
		{"structural quiet: the next page was fetched",
			classTrace("p2", "sales.mgr.emea.03", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c1","result":{"deals":[{"id":"d1","region":"EMEA"}],"has_more":true,"next_cursor":"abc"}},
				 {"kind":"tool_call","id":"c2","tool":"list_deals","args":{"month":"2026-08","cursor":"abc"},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c2","result":{"deals":[{"id":"d2","region":"EMEA"}],"has_more":false}},
				 {"kind":"answer","text":"2 deals"}`),
			nil, "", nil},
		{"structural: a second call to the same tool for something else is no follow-up",
			classTrace("p4", "sales.mgr.emea.03", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c1","result":{"deals":[{"id":"d1","region":"EMEA"}],"has_more":true,"next_cursor":"abc"}},
				 {"kind":"tool_call","id":"c2","tool":"list_deals","args":{"month":"2026-09"},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c2","result":{"deals":[{"id":"d9","region":"EMEA"}],"has_more":false}},
				 {"kind":"answer","text":"1 deal in August"}`),
			nil, model.ClassStructural, []string{"structural@1"}},
		{"structural: a follow-up passing another cursor is no follow-up",
			classTrace("p5", "sales.mgr.emea.03", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c1","result":{"deals":[{"id":"d1","region":"EMEA"}],"has_more":true,"next_cursor":"abc"}},
				 {"kind":"tool_call","id":"c2","tool":"list_deals","args":{"month":"2026-08","cursor":"zzz"},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c2","result":{"deals":[],"has_more":false}},
				 {"kind":"answer","text":"1 deal"}`),
			nil, model.ClassStructural, []string{"structural@1"}},
		{"structural quiet: the next page number was asked for",
			classTrace("p6", "sales.mgr.emea.03", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08","page":1},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c1","result":{"deals":[{"id":"d1","region":"EMEA"}],"has_more":true}},
				 {"kind":"tool_call","id":"c2","tool":"list_deals","args":{"month":"2026-08","page":2},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c2","result":{"deals":[{"id":"d2","region":"EMEA"}],"has_more":false}},
				 {"kind":"answer","text":"2 deals"}`),
			nil, "", nil},
		{"structural: page 1 asked for again is not the next page",
			classTrace("p7", "sales.mgr.emea.03", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08","page":1},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c1","result":{"deals":[{"id":"d1","region":"EMEA"}],"has_more":true}},
				 {"kind":"tool_call","id":"c2","tool":"list_deals","args":{"month":"2026-08","page":1},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c2","result":{"deals":[{"id":"d1","region":"EMEA"}],"has_more":true}},
				 {"kind":"answer","text":"1 deal"}`),
			nil, model.ClassStructural, []string{"structural@1"}},
		{"structural: cents reported as dollars",
			classTrace("m1", "fin.analyst.02", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"},"credential":"fin.analyst.02"},
				 {"kind":"tool_result","call_id":"c1","result":{"columns":["region","amount_cents"],"rows":[["EMEA",4521050]]},"as_of":"2026-08-04T08:00:00Z"},
				 {"kind":"answer","text":"Revenue was $4,521,050."}`),
			&model.Gold{Answer: json.RawMessage(`45210.50`), Tolerance: hours(0.01), PolicyScope: "all_regions"},
			model.ClassStructural, []string{"structural@2"}},
		{"temporal: nightly snapshot 14h old against a 4h bound",
			classTrace("t1", "sales.mgr.emea.03", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c1","result":[{"id":"d1","region":"EMEA"}],"as_of":"2026-08-03T19:00:00Z"},
				 {"kind":"answer","text":"1 deal at risk"}`),
			&model.Gold{Answer: json.RawMessage(`1`), FreshnessBoundHours: hours(4), PolicyScope: "region:EMEA"},
			model.ClassTemporal, []string{"temporal@1"}},
		{"temporal: no as_of with a freshness bound",
			classTrace("t2", "sales.mgr.emea.03", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c1","result":[{"id":"d1","region":"EMEA"}]},
				 {"kind":"answer","text":"1 deal"}`),
			&model.Gold{Answer: json.RawMessage(`1`), FreshnessBoundHours: hours(24), PolicyScope: "region:EMEA"},
			model.ClassTemporal, []string{"temporal@1"}},
		{"policy: service credential returns every region",
			classTrace("x1", "sales.mgr.emea.03", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"},"credential":"svc-warehouse"},
				 {"kind":"tool_result","call_id":"c1","result":{"columns":["id","region"],"rows":[["d1","EMEA"],["d2","AMER"]]},"as_of":"2026-08-04T08:30:00Z"},
				 {"kind":"answer","text":"2 deals"}`),
			&model.Gold{Answer: json.RawMessage(`1`), FreshnessBoundHours: hours(24), PolicyScope: "region:EMEA"},
			model.ClassPolicy, []string{"policy@0", "policy@1"}},
		{"structural quiet: a cursor echoed on the last page (has_more false)",
			classTrace("p3", "sales.mgr.emea.03", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c1","result":{"deals":[{"id":"d1","region":"EMEA"}],"next_cursor":"abc","has_more":false}},
				 {"kind":"answer","text":"1 deal"}`),
			nil, "", nil},
		{"temporal: the tool resolved a calendar quarter for a fiscal case",
			classTrace("w1", "fin.analyst.02", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"Q4"},"credential":"fin.analyst.02"},
				 {"kind":"tool_result","call_id":"c1","result":{"total":3,"window":{"start":"2025-10-01","end":"2025-12-31","calendar":"calendar"}},"as_of":"2026-08-04T08:30:00Z"},
				 {"kind":"answer","text":"3 deals"}`),
			&model.Gold{Answer: json.RawMessage(`3`), Window: &model.Window{Start: "2026-04-01", End: "2026-06-30", Calendar: "fiscal"}, PolicyScope: "all_regions"},
			model.ClassTemporal, []string{"temporal@1"}},
		{"clean: user's credential, fresh, in scope",
			classTrace("ok", "sales.mgr.emea.03", dealsTool,
				`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"},"credential":"sales.mgr.emea.03"},
				 {"kind":"tool_result","call_id":"c1","result":{"columns":["id","region"],"rows":[["d1","EMEA"]]},"as_of":"2026-08-04T08:30:00Z"},
				 {"kind":"answer","text":"1 deal"}`),
			&model.Gold{Answer: json.RawMessage(`1`), FreshnessBoundHours: hours(24), PolicyScope: "region:EMEA"},
			"", nil},
	}
	s, err := NewScorer(Config{Policy: policy})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(tt.trace))
			if lerr != nil {
				t.Fatal(lerr)
			}
			ts := s.Score(tr, tt.gold)
			got := ""
			if ts.SuggestedClass != nil {
				got = string(*ts.SuggestedClass)
			}
			if got != string(tt.wantClass) {
				t.Errorf("class = %q, want %q; classes %s", got, tt.wantClass, mustJSON(t, ts.Classes))
			}
			have := map[string]bool{}
			for _, c := range ts.Classes {
				for _, e := range c.Evidence {
					have[fmt.Sprintf("%s@%d", c.Class, e.Step)] = true
				}
			}
			for _, w := range tt.wantEv {
				if !have[w] {
					t.Errorf("missing evidence %s; classes %s", w, mustJSON(t, ts.Classes))
				}
			}
			if tt.wantClass == "" && len(tt.wantEv) == 0 && len(ts.Classes) != 0 {
				t.Errorf("clean trace has classes %s", mustJSON(t, ts.Classes))
			}
			if tt.wantClass == "" && tt.gold != nil && (ts.Grounded == nil || !*ts.Grounded) {
				t.Errorf("clean trace grounded = %v (%s)", bptr(ts.Grounded), strings.Join(ts.ReviewReasons, "; "))
			}
		})
	}
}

// A malformed part of a contract does not hide the rest of it.
func TestParseContractTolerant(t *testing.T) {
	tc, err := importers.ParseContract(json.RawMessage(`{"name":"t","description":"d",
		"inputSchema":{"type":"object","properties":{"customer_id":{"type":"string","pattern":"^C2-[0-9]{6}$","examples":"C2-000001"},"other":{"pattern":"(unclosed"}}},
		"_meta":{"lineage":{"customer_id":["tickets.cust_id_v2"],"bad":"not a list","$tool":["Sales.Tickets.Status"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c := parseContract(tc)
	if c.patterns["customer_id"] == nil || c.patterns["customer_id"].MatchString("ACC-00412") {
		t.Errorf("pattern lost: %+v", c.props)
	}
	if _, ok := c.patterns["other"]; ok {
		t.Error("a pattern RE2 cannot compile must not be checked")
	}
	want := Lineage{"t.customer_id": {"tickets.cust_id_v2"}, "t.$tool": {"tickets.status"}}
	if fmt.Sprint(c.lineage) != fmt.Sprint(want) {
		t.Errorf("lineage = %v, want %v", c.lineage, want)
	}
}
