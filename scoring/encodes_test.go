package scoring

import (
	"encoding/json"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

func TestEncodesDefinition(t *testing.T) {
	encoded := model.ToolContract{Name: "closed_won_total",
		Raw: json.RawMessage(`{"name":"closed_won_total","_meta":{"lineage":{"period":["opportunities.closed_at"],"$tool":["opportunities.amount_usd","opportunities.stage"]}}}`)}
	mapped := model.ToolContract{Name: "resolve_period",
		Raw: json.RawMessage(`{"name":"resolve_period","_meta":{"lineage":{"label":["dim_fiscal_calendar.fiscal_quarter"]}}}`)}
	bare := model.ToolContract{Name: "run_sql", Raw: json.RawMessage(`{"name":"run_sql"}`)}
	describe := model.ToolContract{Name: "describe_table", Raw: json.RawMessage(`{"name":"describe_table"}`)}
	call := func(id, tool string) model.Step {
		return model.Step{Kind: model.KindToolCall, ID: id, Tool: tool, Args: json.RawMessage(`{}`)}
	}
	result := func(id string, isErr bool) model.Step {
		return model.Step{Kind: model.KindToolResult, CallID: id, Result: json.RawMessage(`{}`), IsError: isErr}
	}
	for _, tc := range []struct {
		name    string
		tools   []model.ToolContract
		steps   []model.Step
		lineage Lineage
		want    bool
	}{
		{"a tool that encodes the definition", []model.ToolContract{encoded}, []model.Step{call("c1", "closed_won_total"), result("c1", false)}, nil, true},
		{"with a mapped helper and a discovery call", []model.ToolContract{encoded, mapped, describe},
			[]model.Step{call("c1", "describe_table"), call("c2", "resolve_period"), call("c3", "closed_won_total")}, nil, true},
		{"only a mapped helper: nothing encodes the definition", []model.ToolContract{mapped}, []model.Step{call("c1", "resolve_period")}, nil, false},
		{"SQL beside it chose its own columns", []model.ToolContract{encoded, bare},
			[]model.Step{call("c1", "closed_won_total"), call("c2", "run_sql")}, nil, false},
		{"a rejected call read nothing", []model.ToolContract{encoded, bare},
			[]model.Step{call("c1", "closed_won_total"), call("c2", "run_sql"), result("c2", true)}, nil, true},
		{"no calls", []model.ToolContract{encoded}, nil, nil, false},
		{"lineage from the file counts as the contract's", []model.ToolContract{bare}, []model.Step{call("c1", "run_sql")},
			Lineage{"run_sql.$tool": {"orders.total"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewScorer(Config{Lineage: tc.lineage})
			if err != nil {
				t.Fatal(err)
			}
			tr := &model.Trace{TraceID: "t", Tools: tc.tools, Steps: append([]model.Step{{Kind: model.KindUser, Text: "q"}}, tc.steps...)}
			if got := s.EncodesDefinition(tr); got != tc.want {
				t.Errorf("EncodesDefinition = %v, want %v", got, tc.want)
			}
		})
	}
}
