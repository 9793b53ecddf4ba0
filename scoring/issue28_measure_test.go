package scoring

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

const revenueDefinition = "revenue = SUM(orders.total) of closed orders by closed_at, at order grain (one row per order), USD"

const measureSQLTool = `{"name":"run_sql","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`

func measureSQLTrace(id, sql string) string {
	args, _ := json.Marshal(map[string]string{"sql": sql})
	return classTrace(id, "fin.analyst.02", measureSQLTool,
		`{"kind":"tool_call","id":"c1","tool":"run_sql","args":`+string(args)+`,"credential":"fin.analyst.02"},
		 {"kind":"tool_result","call_id":"c1","result":{"columns":["revenue"],"rows":[[1200]]},"as_of":"2026-08-04T08:30:00Z"},
		 {"kind":"answer","text":"1,200"}`)
}

func revenueToolTrace(id, lineage string) string {
	tool := `{"name":"revenue_total","description":"Total revenue for a quarter.","inputSchema":{"type":"object","properties":{"period":{"type":"string"}}}` + lineage + `}`
	return classTrace(id, "fin.analyst.02", tool,
		`{"kind":"tool_call","id":"c1","tool":"revenue_total","args":{"period":"FY2026-Q3"},"credential":"fin.analyst.02"},
		 {"kind":"tool_result","call_id":"c1","result":{"total":1200},"as_of":"2026-08-04T08:30:00Z"},
		 {"kind":"answer","text":"1,200"}`)
}

// Issue 28, rule 1. Seed: "'Resolved to' means the predicate in the query
// or tool arguments is equivalent to the definition string in the gold
// record." A measure definition has no predicate: its equivalent is the
// aggregate, in the query or, for a tool, through its lineage. And "A task
// whose definition cannot be decided is never reported grounded=true:
// grounded stays null (unknown) with the reason."
func TestMeasureDefinitions(t *testing.T) {
	tests := []struct {
		name       string
		trace      string
		definition string
		wantMatch  any // true, false or nil
		wantGr     any
		wantReason string // in the review reasons when the match is unknown
	}{
		{"the same aggregate of the same column", measureSQLTrace("m1",
			"SELECT SUM(total) AS revenue FROM orders WHERE status = 'closed'"), revenueDefinition, true, true, ""},
		{"qualified, in a join", measureSQLTrace("m2",
			"SELECT c.name, SUM(o.total) FROM orders o JOIN customers c ON c.customer_id = o.customer_id GROUP BY c.name"), revenueDefinition, true, true, ""},
		{"another column summed", measureSQLTrace("m3",
			"SELECT SUM(subtotal) FROM orders WHERE status = 'closed'"), revenueDefinition, false, false, ""},
		{"another aggregate of the column", measureSQLTrace("m4",
			"SELECT AVG(total) FROM orders WHERE status = 'closed'"), revenueDefinition, false, false, ""},
		{"the column read row by row: undecided", measureSQLTrace("m5",
			"SELECT id, total FROM orders WHERE status = 'closed'"), revenueDefinition, nil, nil, "reads orders.total without computing SUM(orders.total)"},
		{"a tool whose lineage computes from the column", revenueToolTrace("m6",
			`,"_meta":{"lineage":{"$tool":["orders.total"]}}`), revenueDefinition, true, true, ""},
		{"a tool with no lineage: undecided", revenueToolTrace("m7", ""), revenueDefinition, nil, nil,
			"no call computes SUM(orders.total)"},
		{"a tool computing from another column: undecided, not a mismatch", revenueToolTrace("m8",
			`,"_meta":{"lineage":{"$tool":["orders.subtotal"]}}`), revenueDefinition, nil, nil, "no call computes"},
		{"a definition that cannot be read at all", measureSQLTrace("m9",
			"SELECT SUM(total) FROM orders"), "at risk = open deal with risk_flag set (close date slipped, or no activity)", nil, nil,
			"cannot read the definition"},
	}
	s, err := NewScorer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(tt.trace))
			if lerr != nil {
				t.Fatal(lerr)
			}
			gold := &model.Gold{Answer: json.RawMessage(`1200`), Definition: tt.definition}
			ts := s.Score(tr, gold)
			reasons := strings.Join(ts.ReviewReasons, "; ")
			if bptr(ts.DefinitionMatch) != tt.wantMatch {
				t.Errorf("definition_match = %v, want %v (%s)", bptr(ts.DefinitionMatch), tt.wantMatch, reasons)
			}
			if bptr(ts.Grounded) != tt.wantGr {
				t.Errorf("grounded = %v, want %v; classes %s", bptr(ts.Grounded), tt.wantGr, mustJSON(t, ts.Classes))
			}
			if tt.wantReason != "" && !strings.Contains(reasons, tt.wantReason) {
				t.Errorf("review reasons %q lack %q", reasons, tt.wantReason)
			}
			if tt.wantMatch == false && !hasKind(ts, "semantic", "computes another aggregate than the definition of \"revenue\" (SUM(orders.total))") {
				t.Errorf("a measure mismatch without semantic evidence: %s", mustJSON(t, ts.Classes))
			}
		})
	}
}

func TestParseMeasure(t *testing.T) {
	tests := []struct {
		text string
		want string // "" when no measure
	}{
		{revenueDefinition, "SUM(orders.total)"},
		{"invoiced = SUM(invoices.amount_cents) / 100 in USD, by issued_at", "SUM(invoices.amount_cents)"},
		{"average deal size: avg(amount_usd) of won deals", "AVG(amount_usd)"},
		{"buyers means COUNT(DISTINCT orders.customer_id)", "COUNT(orders.customer_id)"},
		{"open ticket = status in (open, pending)", ""},
		{"SUM(orders.total)", ""}, // no term
	}
	for _, tt := range tests {
		m, ok := parseMeasure(tt.text)
		got := ""
		if ok {
			got = m.String()
		}
		if got != tt.want {
			t.Errorf("parseMeasure(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
