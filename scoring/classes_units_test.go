package scoring

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

func TestCentsAgainstDollarLiterals(t *testing.T) {
	sqlTool := `{"name":"run_sql","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`
	dealsTool := `{"name":"big_deals","inputSchema":{"type":"object","properties":{"min_amount":{"type":"number","description":"Minimum deal size in cents."},"min_amount_cents":{"type":"integer"},"min_usd":{"type":"number"}}}}`
	sqlCall := func(q string) string {
		args, _ := json.Marshal(map[string]string{"sql": q})
		return fmt.Sprintf(`{"kind":"tool_call","id":"c1","tool":"run_sql","args":%s},{"kind":"tool_result","call_id":"c1","result":[[3]],"as_of":"2026-08-04T08:00:00Z"},{"kind":"answer","text":"3 invoices"}`, args)
	}
	argCall := func(args string) string {
		return `{"kind":"tool_call","id":"c1","tool":"big_deals","args":` + args + `},{"kind":"tool_result","call_id":"c1","result":{"count":3},"as_of":"2026-08-04T08:00:00Z"},{"kind":"answer","text":"3 deals"}`
	}
	tests := []struct {
		name, question, tools, steps string
		want                         bool // cents_literal evidence at step 0
	}{
		{"cents column against the question's dollars", "How many invoices over $10,000 last month?", sqlTool,
			sqlCall("SELECT count(*) FROM invoices WHERE amount_cents > 10000"), true},
		{"cents column against the dollars times 100 is right", "How many invoices over $10,000 last month?", sqlTool,
			sqlCall("SELECT count(*) FROM invoices WHERE amount_cents > 1000000"), false},
		{"a dollar column against dollars is right", "How many invoices over $10,000 last month?", sqlTool,
			sqlCall("SELECT count(*) FROM invoices WHERE amount_usd > 10000"), false},
		{"amount_minor with a $10k question", "Deals above $10k?", sqlTool,
			sqlCall("SELECT count(*) FROM deals WHERE amount_minor >= 10000"), true},
		{"an argument the contract describes as cents", "Deals above 10,000 dollars?", dealsTool,
			argCall(`{"min_amount":10000}`), true},
		{"an argument named in cents", "Deals above $10,000?", dealsTool,
			argCall(`{"min_amount_cents":10000}`), true},
		{"a dollar argument is right", "Deals above $10,000?", dealsTool,
			argCall(`{"min_usd":10000}`), false},
		{"no money in the question: no evidence", "How many deals with 10000 seats?", dealsTool,
			argCall(`{"min_amount_cents":10000}`), false},
	}
	s, _ := NewScorer(Config{})
	for _, tt := range tests {
		tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(classTrace("u", "u", tt.tools, tt.steps)))
		if lerr != nil {
			t.Fatal(lerr)
		}
		tr.Question = tt.question
		ts := s.Score(tr, &model.Gold{Answer: json.RawMessage(`3`)})
		got := false
		for _, c := range ts.Classes {
			for _, e := range c.Evidence {
				if c.Class == model.ClassStructural && e.Step == 0 {
					got = true
				}
			}
		}
		if got != tt.want {
			t.Errorf("%s: cents evidence %v, want %v; classes %s", tt.name, got, tt.want, mustJSON(t, ts.Classes))
		}
	}
}
