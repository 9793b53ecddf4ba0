package scoring

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestFindSQL(t *testing.T) {
	tests := []struct {
		name string
		args string
		want []ArgSQL
	}{
		// Shaped after the MCP tools/call params.arguments object
		// (modelcontextprotocol.io/specification/2025-06-18/server/tools#calling-tools).
		{"named sql argument", `{"sql":"SELECT id FROM orders","limit":10}`,
			[]ArgSQL{{"sql", "SELECT id FROM orders"}}},
		{"named query that fails to parse is still reported", `{"query":"SELECT FROM WHERE"}`,
			[]ArgSQL{{"query", "SELECT FROM WHERE"}}},
		{"search tool query in natural language is not SQL", `{"query":"active customers in EMEA last quarter"}`, nil},
		{"other argument parsed as a statement", `{"text":"with x as (select 1 as a) select a from x","mode":"fast"}`,
			[]ArgSQL{{"text", "with x as (select 1 as a) select a from x"}}},
		{"other argument starting like SQL but not SQL", `{"note":"select the best region please"}`, nil},
		{"transaction keywords are not column SQL", `{"cmd":"BEGIN"}`, nil},
		{"nested and arrays, keys sorted", `{"queries":[{"statement":"DELETE FROM t WHERE id = 1"},"UPDATE t SET a = 1"],"a":{"sql":"SELECT 1"}}`,
			[]ArgSQL{{"a.sql", "SELECT 1"}, {"queries[0].statement", "DELETE FROM t WHERE id = 1"}, {"queries[1]", "UPDATE t SET a = 1"}}},
		{"case-insensitive names, fenced SQL", "{\"SQL\":\"```sql\\nSELECT 1\\n```\"}",
			[]ArgSQL{{"SQL", "```sql\nSELECT 1\n```"}}},
		{"not JSON", `SELECT 1`, nil},
		{"empty", ``, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := FindSQL(json.RawMessage(tc.args)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("FindSQL(%s)\n got %v\nwant %v", tc.args, got, tc.want)
			}
		})
	}
}
