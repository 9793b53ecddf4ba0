package scoring

import (
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

const lookupTool = `{"name":"find_customer","description":"Find customers by name.","inputSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`

func entityTrace(question, tools, lookupResult, call, result, answer string) string {
	tr := classTrace("n", "sup.agent.01", lookupTool+","+tools,
		`{"kind":"tool_call","id":"c1","tool":"find_customer","args":{"name":"Acme"}},
		 {"kind":"tool_result","call_id":"c1","result":`+lookupResult+`},
		 {"kind":"tool_call","id":"c2",`+call+`},
		 {"kind":"tool_result","call_id":"c2","result":`+result+`},
		 {"kind":"answer","text":`+mustJSONString(answer)+`}`)
	return strings.Replace(tr, `"question":"q"`, `"question":`+mustJSONString(question), 1)
}

// Issue 28, rules 5 and 6, and ids of any JSON type. Seed (entity): "The
// call refers to the wrong thing: wrong identifier type, wrong record,
// wrong object." Trace symptom: "An argument whose format matches one ID
// scheme passed into a tool that documents another, or no documentation
// of which scheme at all."
func TestEntitySchemesRecordsAndIntegerIDs(t *testing.T) {
	erpTool := `{"name":"open_invoices","inputSchema":{"type":"object","properties":{"erp_customer_no":{"type":"string"}}}}`
	erpIntTool := `{"name":"open_invoices","inputSchema":{"type":"object","properties":{"erp_customer_no":{"type":"integer"}}}}`
	plainTool := `{"name":"account_summary","inputSchema":{"type":"object","properties":{"account":{"type":"integer"}}}}`
	both := `{"columns":["crm_account_number","erp_customer_no","name"],"rows":[["CRM-40871","ERP-77812","Acme Corp"]]}`
	bothInt := `{"columns":["crm_account_number","erp_customer_no","name"],"rows":[[40871,77812,"Acme Corp"]]}`
	twoRecords := `{"customers":[{"account_id":"ACC-00412","name":"Acme Corp","region":"AMER"},{"account_id":"ACC-00977","name":"Acme GmbH","region":"EMEA"}]}`
	ticketsByAccount := `{"name":"list_open_tickets","inputSchema":{"type":"object","properties":{"account_id":{"type":"string","description":"CRM account_id"}}}}`
	tests := []struct {
		name      string
		question  string
		tools     string
		lookup    string
		call      string
		result    string
		answer    string
		wantClass model.FailureClass
		wantEv    string // a substring of the entity evidence
	}{
		// Rule 5: "a tool that documents another" — by its parameter's name.
		{"rule 5: crm_account_number value into erp_customer_no", "Open invoices for Acme?", erpTool, both,
			`"tool":"open_invoices","args":{"erp_customer_no":"CRM-40871"}`, `{"invoices":[]}`, "Acme has no open invoices.",
			model.ClassEntity, "shows it as crm_account_number, but the argument means erp_customer_no; the same row has erp_customer_no ERP-77812"},
		{"rule 5 with integer ids", "Open invoices for Acme?", erpIntTool, bothInt,
			`"tool":"open_invoices","args":{"erp_customer_no":40871}`, `{"invoices":[]}`, "Acme has no open invoices.",
			model.ClassEntity, "shows it as crm_account_number, but the argument means erp_customer_no"},
		{"rule 5 quiet: the erp number passed", "Open invoices for Acme?", erpTool, both,
			`"tool":"open_invoices","args":{"erp_customer_no":"ERP-77812"}`, `{"invoices":[{"id":"INV-1"}]}`, "Acme has 1 open invoice.",
			"", ""},
		// Rule 6: "wrong record".
		{"rule 6: the AMER record of two for an EMEA question", "How many open tickets does Acme EMEA have?", ticketsByAccount, twoRecords,
			`"tool":"list_open_tickets","args":{"account_id":"ACC-00412"}`, `{"tickets":[{"id":"T-1"}]}`, "Acme has 1 open ticket.",
			model.ClassEntity, "the record passed has region AMER (account_id ACC-00412, name Acme Corp), the one with region EMEA is account_id ACC-00977, name Acme GmbH"},
		{"rule 6 quiet: a correct record of two", "How many open tickets does Acme EMEA have?", ticketsByAccount, twoRecords,
			`"tool":"list_open_tickets","args":{"account_id":"ACC-00977"}`, `{"tickets":[{"id":"T-1"}]}`, "Acme has 1 open ticket.",
			"", ""},
		{"rule 6 quiet: the question picks no record", "How many open tickets does Acme have?", ticketsByAccount, twoRecords,
			`"tool":"list_open_tickets","args":{"account_id":"ACC-00412"}`, `{"tickets":[{"id":"T-1"}]}`, "Acme has 1 open ticket.",
			"", ""},
		// Also: an integer id into a tool that documents no scheme, one of
		// several ids the lookup offered, and the result names another customer.
		{"integer id, no scheme documented, another customer answered", "Summary for Acme?", plainTool, bothInt,
			`"tool":"account_summary","args":{"account":40871}`, `{"name":"Initech Ltd","open_deals":3}`, "Acme has 3 open deals.",
			model.ClassEntity, "the contract names no id scheme"},
		{"integer id quiet: a lookup with one id", "Summary for Acme?", plainTool, `[{"crm_account_number":40871,"name":"Acme Corp"}]`,
			`"tool":"account_summary","args":{"account":40871}`, `{"name":"Acme Corp","open_deals":3}`, "Acme has 3 open deals.",
			"", ""},
	}
	s, err := NewScorer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(entityTrace(tt.question, tt.tools, tt.lookup, tt.call, tt.result, tt.answer)))
			if lerr != nil {
				t.Fatal(lerr)
			}
			ts := s.Score(tr, nil)
			got := model.FailureClass("")
			if ts.SuggestedClass != nil {
				got = *ts.SuggestedClass
			}
			if got != tt.wantClass {
				t.Fatalf("class = %q, want %q; classes %s", got, tt.wantClass, mustJSON(t, ts.Classes))
			}
			if tt.wantEv != "" && !hasKind(ts, "entity", tt.wantEv) {
				t.Errorf("no entity evidence %q; classes %s", tt.wantEv, mustJSON(t, ts.Classes))
			}
			if tt.wantClass == "" {
				for _, c := range ts.Classes {
					if c.Class == model.ClassEntity && c.Confidence >= SuggestThreshold {
						t.Errorf("entity at %.2f on a clean call: %s", c.Confidence, mustJSON(t, c.Evidence))
					}
				}
			}
		})
	}
}
