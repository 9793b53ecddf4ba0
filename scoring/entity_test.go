package scoring

import (
	"encoding/json"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

func TestEntityRules(t *testing.T) {
	search := `{"name":"search_accounts","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}}}`
	documented := `{"name":"list_open_tickets","inputSchema":{"type":"object","properties":{"customer_id":{"type":"string","pattern":"^C2-[0-9]{6}$","description":"cust_id_v2, for example C2-004211"}}}}`
	undocumented := `{"name":"open_tickets","inputSchema":{"type":"object","properties":{"customer":{"type":"string","description":"The customer to look up."}}}}`
	enumTool := `{"name":"get_invoice","inputSchema":{"type":"object","properties":{"invoice_id":{"type":"string","enum":["INV-","CN-"]}}}}`
	described := `{"name":"open_signals","inputSchema":{"type":"object","properties":{"customer_id":{"type":"string","description":"cust_id_v2, for example c2_12345"}}}}`
	uuidTool := `{"name":"get_user","inputSchema":{"type":"object","properties":{"user_id":{"type":"string","format":"uuid"}}}}`
	lookup := `{"kind":"tool_call","id":"c1","tool":"search_accounts","args":{"query":"Acme"}},
		{"kind":"tool_result","call_id":"c1","result":{"columns":["account_id","billing_account_no","cust_id_v2","name"],"rows":[["ACC-00412","BA-77120","C2-004211","Acme Corp"]]}},`
	call := func(tool, args, result, answer string) string {
		return `{"kind":"tool_call","id":"c2","tool":"` + tool + `","args":` + args + `},
			{"kind":"tool_result","call_id":"c2","result":` + result + `},
			{"kind":"answer","text":"` + answer + `"}`
	}
	tickets := `{"tickets":[{"id":"T-1"}],"total":1}`
	empty := `{"tickets":[],"total":0}`
	tests := []struct {
		name, tools, steps string
		wantConf           float64 // entity confidence, 0 = no entity evidence
		suggested          bool
	}{
		{"a documented-scheme id passed correctly", search + "," + documented,
			lookup + call("list_open_tickets", `{"customer_id":"C2-004211"}`, tickets, "Acme has 1 open ticket."), 0, false},
		{"(1) pattern violated", documented,
			call("list_open_tickets", `{"customer_id":"ACC-00412"}`, tickets, "Acme has 1 open ticket."), 0.9, true},
		{"(1) pattern violated by a value an account_id column gave", search + "," + documented,
			lookup + call("list_open_tickets", `{"customer_id":"ACC-00412"}`, tickets, "Acme has 1 open ticket."), 0.99, true},
		{"(1)+(3) wrong scheme then an empty result read as none", documented,
			call("list_open_tickets", `{"customer_id":"ACC-00412"}`, empty, "Acme has no open tickets."), 0.96, true},
		{"(1)+(3) with its source", search + "," + documented,
			lookup + call("list_open_tickets", `{"customer_id":"BA-77120"}`, empty, "Acme has no open tickets."), 0.99, true},
		{"(1) enum of id prefixes", enumTool,
			call("get_invoice", `{"invoice_id":"ORD-2231"}`, `{"amount":1}`, "1"), 0.9, true},
		{"(1) enum prefix respected", enumTool,
			call("get_invoice", `{"invoice_id":"INV-2231"}`, `{"amount":1}`, "1"), 0, false},
		{"(1) a description naming the scheme by example", described,
			call("open_signals", `{"customer_id":"ACC-00412"}`, tickets, "Acme has 1 open signal."), 0.7, true},
		{"(1) an id in the described scheme", described,
			call("open_signals", `{"customer_id":"c2_99881"}`, tickets, "Acme has 1 open signal."), 0, false},
		{"(1) format uuid", uuidTool,
			call("get_user", `{"user_id":"USR-00012"}`, `{"name":"x"}`, "x"), 0.9, true},
		{"(2) no scheme documented, one of several ids offered", search + "," + undocumented,
			lookup + call("open_tickets", `{"customer":"ACC-00412"}`, tickets, "Acme has 1 open ticket."), 0.45, false},
		{"(2) and the result names another entity", search + "," + undocumented,
			lookup + call("open_tickets", `{"customer":"ACC-00412"}`, `{"customer_name":"Acme Holdings Ltd","tickets":[{"id":"T-9"}]}`, "Acme has 1 open ticket."), 0.73, true},
		{"(2) and the same entity comes back: no rise", search + "," + undocumented,
			lookup + call("open_tickets", `{"customer":"ACC-00412"}`, `{"customer_name":"Acme Corp","tickets":[{"id":"T-9"}]}`, "Acme has 1 open ticket."), 0.45, false},
		{"(2)+(3) and an empty result read as none", search + "," + undocumented,
			lookup + call("open_tickets", `{"customer":"ACC-00412"}`, empty, "Acme has no open tickets."), 0.78, true},
		{"(2) quiet when the lookup offered one id", search + "," + undocumented,
			`{"kind":"tool_call","id":"c1","tool":"search_accounts","args":{"query":"Acme"}},
			 {"kind":"tool_result","call_id":"c1","result":{"columns":["account_id","name"],"rows":[["ACC-00412","Acme Corp"]]}},` +
				call("open_tickets", `{"customer":"ACC-00412"}`, tickets, "Acme has 1 open ticket."), 0, false},
		{"(3) alone stays below the threshold", documented,
			call("list_open_tickets", `{"customer_id":"C2-004211"}`, empty, "Acme has no open tickets."), 0.4, false},
	}
	s, _ := NewScorer(Config{})
	for _, tt := range tests {
		tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(classTrace("e", "u", tt.tools, tt.steps)))
		if lerr != nil {
			t.Fatal(lerr)
		}
		ts := s.Score(tr, nil)
		conf := 0.0
		for _, c := range ts.Classes {
			if c.Class == model.ClassEntity {
				conf = c.Confidence
			}
		}
		suggested := ts.SuggestedClass != nil && *ts.SuggestedClass == model.ClassEntity
		if conf != tt.wantConf || suggested != tt.suggested {
			t.Errorf("%s: entity %.2f suggested %v, want %.2f %v; classes %s", tt.name, conf, suggested, tt.wantConf, tt.suggested, mustJSON(t, ts.Classes))
		}
	}
}

// A wrong-scheme id followed by an empty result wins the suggestion over
// the strongest single symptom of another class.
func TestEntityWinsOverOtherClasses(t *testing.T) {
	documented := `{"name":"list_open_tickets","inputSchema":{"type":"object","properties":{"customer_id":{"type":"string","pattern":"^C2-[0-9]{6}$"}}}}`
	tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(classTrace("w", "sup.agent.01", documented,
		`{"kind":"reasoning","text":"The id probably works here."},
		 {"kind":"tool_call","id":"c1","tool":"list_open_tickets","args":{"customer_id":"ACC-00412"},"credential":"svc-crm"},
		 {"kind":"tool_result","call_id":"c1","result":{"tickets":[],"total":0,"next_cursor":"n2"},"as_of":"2026-08-01T00:00:00Z"},
		 {"kind":"answer","text":"Acme has no open tickets."}`)))
	if lerr != nil {
		t.Fatal(lerr)
	}
	h := 4.0
	s, _ := NewScorer(Config{})
	ts := s.Score(tr, &model.Gold{Answer: json.RawMessage(`3`), FreshnessBoundHours: &h})
	if ts.SuggestedClass == nil || *ts.SuggestedClass != model.ClassEntity || len(ts.Classes) < 3 {
		t.Errorf("suggested %v, want entity over the others; classes %s", ts.SuggestedClass, mustJSON(t, ts.Classes))
	}
}
