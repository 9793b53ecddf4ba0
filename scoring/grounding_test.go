package scoring

import (
	"encoding/json"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

func TestGroundingPerCallPrecisionTaskRecall(t *testing.T) {
	lookup := `{"name":"find_customer","inputSchema":{"type":"object","properties":{"name":{"type":"string"}}},"_meta":{"lineage":{"name":["customers.name"]}}}`
	act := `{"name":"list_open_tickets","inputSchema":{"type":"object","properties":{"customer_id":{"type":"string"},"status":{"type":"string"},"cursor":{"type":"string"},"page_size":{"type":"integer"},"after":{"type":"string","description":"Pagination cursor from the previous page."}}},"_meta":{"lineage":{"customer_id":["tickets.cust_id_v2"],"status":["tickets.status"]}}}`
	sqlTools := `{"name":"list_tables","inputSchema":{"type":"object","properties":{}}},{"name":"run_sql","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`
	tests := []struct {
		name      string
		tools     string
		steps     string
		required  []string
		prec, rec any // float64 or nil
		perCall   []float64
	}{
		{"lookup then act, each with its own required field: 1.0 / 1.0", lookup + "," + act,
			`{"kind":"tool_call","id":"c1","tool":"find_customer","args":{"name":"Acme"}},
			 {"kind":"tool_result","call_id":"c1","result":{"cust_id_v2":"C2-000412"}},
			 {"kind":"tool_call","id":"c2","tool":"list_open_tickets","args":{"customer_id":"C2-000412","status":"open"}},
			 {"kind":"tool_result","call_id":"c2","result":{"tickets":[{"id":"T-1"}]}},
			 {"kind":"answer","text":"1 open ticket"}`,
			[]string{"customers.name", "tickets.cust_id_v2", "tickets.status"}, 1.0, 1.0, []float64{1, 1}},
		{"pagination and control arguments are neutral", act,
			`{"kind":"tool_call","id":"c1","tool":"list_open_tickets","args":{"customer_id":"C2-000412","status":"open","cursor":"abc","page_size":100,"after":"x"}},
			 {"kind":"tool_result","call_id":"c1","result":{"tickets":[]}},
			 {"kind":"answer","text":"none"}`,
			[]string{"tickets.cust_id_v2", "tickets.status"}, 1.0, 1.0, []float64{1}},
		{"discovery uses no field; precision is the mean over the SQL calls", sqlTools,
			`{"kind":"tool_call","id":"c1","tool":"list_tables","args":{}},
			 {"kind":"tool_result","call_id":"c1","result":["customers"]},
			 {"kind":"tool_call","id":"c2","tool":"run_sql","args":{"sql":"SELECT COUNT(*) FROM customers WHERE subscription_status = 'ACTIVE' AND is_active"}},
			 {"kind":"tool_result","call_id":"c2","result":[[3]]},
			 {"kind":"tool_call","id":"c3","tool":"run_sql","args":{"sql":"SELECT COUNT(*) FROM customers WHERE sales_region = 'EMEA'"}},
			 {"kind":"tool_result","call_id":"c3","result":[[3]]},
			 {"kind":"answer","text":"3"}`,
			// call 2: 1 of 2 required; call 3: 1 of 1. Mean 0.75; union would say 2/3.
			[]string{"customers.subscription_status", "customers.sales_region"}, 0.75, 1.0, []float64{0.5, 1}},
		{"recall loses the field no call used", act,
			`{"kind":"tool_call","id":"c1","tool":"list_open_tickets","args":{"customer_id":"C2-000412"}},
			 {"kind":"tool_result","call_id":"c1","result":{"tickets":[]}},
			 {"kind":"answer","text":"none"}`,
			[]string{"tickets.cust_id_v2", "tickets.status"}, 1.0, 0.5, []float64{1}},
		{"only discovery: no field-using call, precision null", sqlTools,
			`{"kind":"tool_call","id":"c1","tool":"list_tables","args":{}},
			 {"kind":"tool_result","call_id":"c1","result":["customers"]},
			 {"kind":"answer","text":"I cannot tell"}`,
			[]string{"customers.name"}, nil, 0.0, nil},
	}
	s, err := NewScorer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(classTrace("g", "u", tt.tools, tt.steps)))
			if lerr != nil {
				t.Fatal(lerr)
			}
			ts := s.Score(tr, &model.Gold{Answer: json.RawMessage(`1`), RequiredFields: tt.required})
			if f64(ts.GroundingPrecision) != tt.prec || f64(ts.GroundingRecall) != tt.rec {
				t.Errorf("precision/recall = %v/%v, want %v/%v; fields %s", f64(ts.GroundingPrecision), f64(ts.GroundingRecall), tt.prec, tt.rec, mustJSON(t, ts.FieldsUsed))
			}
			var per []float64
			for _, c := range ts.CallGrounding {
				per = append(per, c.Precision)
			}
			if mustJSON(t, per) != mustJSON(t, tt.perCall) {
				t.Errorf("per call = %v, want %v", per, tt.perCall)
			}
		})
	}
}

func TestIsControlArg(t *testing.T) {
	c := &contract{props: map[string]argSchema{"after": {Description: "Opaque pagination cursor"}, "region": {Description: "Sales region"}}}
	for name, want := range map[string]bool{
		"cursor": true, "page": true, "page_token": true, "pageToken": true, "limit": true, "offset": true,
		"next_cursor": true, "after": true, "region": false, "customer_id": false, "page_title": false,
	} {
		if got := isControlArg(name, c); got != want {
			t.Errorf("isControlArg(%q) = %v, want %v", name, got, want)
		}
	}
}
