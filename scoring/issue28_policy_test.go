package scoring

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
)

// Issue 28, rule 7. Seed: "Policy violation rate = calls that returned at
// least one row or column the as_user is not entitled to / all calls." A
// row is a row under whatever key the tool put it.
func TestPolicyRowsUnderAnyKey(t *testing.T) {
	p, err := ParsePolicy([]byte(policyJSON))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		result string
		want   []string // violation reasons, in order
		paths  []string // Violation.Path of each
	}{
		{"under rows", `{"rows":[{"id":"d1","region":"EMEA"},{"id":"d2","region":"APAC"}]}`,
			[]string{"row 1 has region = APAC, outside the scope's EMEA"}, []string{""}},
		{"the same rows under deals", `{"deals":[{"id":"d1","region":"EMEA"},{"id":"d2","region":"APAC"}],"next_cursor":"x"}`,
			[]string{"row 1 (deals[1]) has region = APAC, outside the scope's EMEA"}, []string{"deals[1]"}},
		{"under items", `{"items":[{"region":"AMER"}]}`,
			[]string{"row 0 (items[0]) has region = AMER, outside the scope's EMEA"}, []string{"items[0]"}},
		{"under data, nested deeper", `{"data":{"page":{"results":[{"region":"EMEA"},{"region":"LATAM"}]}}}`,
			[]string{"row 1 (data.page.results[1]) has region = LATAM, outside the scope's EMEA"}, []string{"data.page.results[1]"}},
		{"column/row arrays nested under data", `{"data":{"columns":["id","region"],"rows":[["d1","AMER"]]}}`,
			[]string{"row 0 (data.rows[0]) has region = AMER, outside the scope's EMEA"}, []string{"data.rows[0]"}},
		{"bare array", `[{"region":"EMEA"},{"region":"APAC"}]`,
			[]string{"row 1 has region = APAC, outside the scope's EMEA"}, []string{""}},
		{"rows inside a row: a deal's line items", `[{"region":"EMEA","lines":[{"region":"APAC"}]}]`,
			[]string{"row 1 ([0].lines[0]) has region = APAC, outside the scope's EMEA"}, []string{"[0].lines[0]"}},
		{"a denied column under any key", `{"contacts":[{"name":"a","email":"a@x"}]}`,
			[]string{"column email is denied to the scope"}, []string{""}},
		// Must not fire: every row in scope, and a wrapper's own scalars
		// are metadata, not a row.
		{"every row in scope under deals", `{"deals":[{"region":"EMEA"},{"region":"emea"}],"region":"APAC"}`, nil, nil},
		{"a wrapper object is not a row", `{"region":"APAC","total":3}`, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The file oracle decoding the result itself, and given the
			// rows the scorer found: the same answer.
			var v any
			if err := json.Unmarshal([]byte(tt.result), &v); err != nil {
				t.Fatal(err)
			}
			cols, rows := resultRows(v)
			for _, call := range []PolicyCall{
				{AsUser: "sales.mgr.emea.03", Result: json.RawMessage(tt.result)},
				{AsUser: "sales.mgr.emea.03", Result: json.RawMessage(tt.result), Columns: cols, Rows: rows},
				NewPolicyCall("sales.mgr.emea.03", "", "t", nil, json.RawMessage(tt.result)),
			} {
				vs, err := p.Check(call)
				if err != nil {
					t.Fatal(err)
				}
				var got, paths []string
				for _, v := range vs {
					got = append(got, v.Reason)
					paths = append(paths, v.Path)
				}
				if strings.Join(got, "|") != strings.Join(tt.want, "|") || strings.Join(paths, "|") != strings.Join(tt.paths, "|") {
					t.Errorf("got %q at %q, want %q at %q", got, paths, tt.want, tt.paths)
				}
			}
		})
	}
}

// The issue's own example: a result {"deals": [...]} with a row outside the
// user's region is one violating call, as the same rows under "rows" are.
func TestPolicyDealsKeyCountsAsRows(t *testing.T) {
	p, err := ParsePolicy([]byte(policyJSON))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewScorer(Config{Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"rows", "deals", "items", "data"} {
		tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(classTrace("k-"+key, "sales.mgr.emea.03", dealsTool,
			`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"},"credential":"sales.mgr.emea.03"},
			 {"kind":"tool_result","call_id":"c1","result":{"`+key+`":[{"id":"d1","region":"EMEA"},{"id":"d2","region":"APAC"}]},"as_of":"2026-08-04T08:30:00Z"},
			 {"kind":"answer","text":"2 deals"}`)))
		if lerr != nil {
			t.Fatal(lerr)
		}
		ts := s.Score(tr, nil)
		if ts.PolicyViolations == nil || *ts.PolicyViolations != 1 {
			t.Errorf("%s: policy_violations = %v, want 1", key, ts.PolicyViolations)
		}
	}
}

func FuzzResultRows(f *testing.F) {
	f.Add(`{"deals":[{"region":"x","lines":[{"a":1}]}],"data":{"columns":["a"],"rows":[[1],[2,3]]}}`)
	f.Add(`[[{"a":1}],[],{"b":[{"c":{"d":[{}]}}]}]`)
	f.Fuzz(func(t *testing.T, result string) {
		v, err := decodeValue([]byte(result))
		if err != nil {
			return
		}
		cols, rows := resultRows(v)
		seen := map[string]bool{}
		for _, c := range cols {
			if seen[c] {
				t.Fatalf("column %q listed twice", c)
			}
			seen[c] = true
		}
		for _, r := range rows {
			if r.Values == nil {
				t.Fatalf("row %s without values", r.Path)
			}
		}
	})
}
