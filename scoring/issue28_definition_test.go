package scoring

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

// seedDefinition is the seed's gold definition of "active".
const seedDefinition = "active = subscription_status in (ACTIVE, PAUSED_BILLING) at any point in the fiscal quarter"

func activeCountTrace(id, meta, args string) string {
	tool := `{"name":"active_customer_count","description":"Customers by region and period.","inputSchema":{"type":"object","properties":{"region":{"type":"string"},"period":{"type":"string"},"statuses":{"type":"array","items":{"type":"string"}}}}` + meta + `}`
	return classTrace(id, "fin.analyst.02", tool, fmt.Sprintf(
		`{"kind":"tool_call","id":"c1","tool":"active_customer_count","args":%s,"credential":"fin.analyst.02"},
		 {"kind":"tool_result","call_id":"c1","result":{"count":1284},"as_of":"2026-08-04T08:30:00Z"},
		 {"kind":"answer","text":"1,284"}`, args))
}

// Issue 28, rule 1. Seed: "'Resolved to' means the predicate in the query
// or tool arguments is equivalent to the definition string in the gold
// record."
func TestDefinitionThroughToolArguments(t *testing.T) {
	lineage := `,"_meta":{"lineage":{"statuses":["customers.subscription_status"]}}`
	tests := []struct {
		name      string
		meta      string
		args      string
		wantMatch any // true, false or nil
		wantGr    any
	}{
		{"an argument set equal to the definition, order and case aside", lineage,
			`{"region":"EMEA","period":"2026-Q2","statuses":["PAUSED_BILLING","active"]}`, true, true},
		{"the same set as one comma-separated string", lineage,
			`{"region":"EMEA","period":"2026-Q2","statuses":"ACTIVE, PAUSED_BILLING"}`, true, true},
		{"a smaller set is another predicate", lineage,
			`{"region":"EMEA","period":"2026-Q2","statuses":["ACTIVE"]}`, false, false},
		{"a larger set is another predicate", lineage,
			`{"region":"EMEA","period":"2026-Q2","statuses":["ACTIVE","PAUSED_BILLING","TRIAL"]}`, false, false},
		// Undecidable: no lineage says what statuses means, so grounded is
		// unknown rather than true.
		{"no lineage: undecidable, grounded unknown", "",
			`{"region":"EMEA","period":"2026-Q2","statuses":["ACTIVE","PAUSED_BILLING"]}`, nil, nil},
	}
	s, err := NewScorer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(activeCountTrace("d", tt.meta, tt.args)))
			if lerr != nil {
				t.Fatal(lerr)
			}
			gold := &model.Gold{Answer: json.RawMessage(`1284`), Definition: seedDefinition}
			ts := s.Score(tr, gold)
			if bptr(ts.DefinitionMatch) != tt.wantMatch {
				t.Errorf("definition_match = %v, want %v (%s)", bptr(ts.DefinitionMatch), tt.wantMatch, strings.Join(ts.ReviewReasons, "; "))
			}
			if bptr(ts.Grounded) != tt.wantGr {
				t.Errorf("grounded = %v, want %v; classes %s", bptr(ts.Grounded), tt.wantGr, mustJSON(t, ts.Classes))
			}
			if tt.wantMatch == nil && !strings.Contains(strings.Join(ts.ReviewReasons, "; "), `definition of "active"`) {
				t.Errorf("an undecided definition needs review with its reason: %q", ts.ReviewReasons)
			}
			if tt.wantMatch == false && !hasKind(ts, "semantic", "the arguments of active_customer_count state another set") {
				t.Errorf("mismatch without semantic evidence: %s", mustJSON(t, ts.Classes))
			}
		})
	}
}
