package scoring

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
)

const sqlTool = `{"name":"run_sql","description":"Run read-only SQL on the warehouse.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}}`

// sqlTrace is one run_sql call with sql and its result, then an answer.
func sqlTrace(id, sql, result, answer string) string {
	q, _ := json.Marshal(sql)
	return classTrace(id, "fin.analyst.02", sqlTool, fmt.Sprintf(
		`{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":%s},"credential":"fin.analyst.02"},
		 {"kind":"tool_result","call_id":"c1","result":%s,"as_of":"2026-08-04T08:30:00Z"},
		 {"kind":"answer","text":%q}`, q, result, answer))
}

func hasKind(ts TraceScore, class, substr string) bool {
	for _, c := range ts.Classes {
		if string(c.Class) != class {
			continue
		}
		for _, e := range c.Evidence {
			if strings.Contains(e.Reason, substr) {
				return true
			}
		}
	}
	return false
}

// Issue 28, rule 2. Seed: "Aggregation after a one-to-many join… Every
// order with three lines counts three times." Fan-out only when a measure
// is repeated.
func TestFanOutOnlyWhenAMeasureRepeats(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		want bool
	}{
		{"seed: sum of orders.total after joining order_lines",
			`SELECT c.name, SUM(o.total) FROM customers c JOIN orders o ON o.customer_id = c.id JOIN order_lines l ON l.order_id = o.id GROUP BY c.name`, true},
		{"avg of a one-side column after the join",
			`SELECT AVG(o.total) FROM orders o JOIN order_lines l ON l.order_id = o.id`, true},
		{"count of a one-side column after the join",
			`SELECT COUNT(o.id) FROM orders o JOIN order_lines l ON l.order_id = o.id`, true},
		{"the join in WHERE",
			`SELECT SUM(orders.total) FROM orders, order_lines WHERE order_lines.order_id = orders.id`, true},
		{"the one side read through a subquery that does not group",
			`SELECT SUM(x.total) FROM (SELECT id, total FROM orders) x JOIN order_lines l ON l.order_id = x.id`, true},
		{"a CTE of the many side that does not group by the key still repeats it",
			`WITH l AS (SELECT order_id, sku FROM order_lines) SELECT SUM(o.total) FROM orders o JOIN l ON l.order_id = o.id`, true},
		// Must not fire.
		{"aggregate-before-join: the many side grouped by the key in a CTE",
			`WITH lt AS (SELECT order_id, SUM(amount) AS line_total FROM order_lines GROUP BY order_id)
			 SELECT o.customer_id, SUM(o.total), SUM(lt.line_total) FROM orders o JOIN lt ON lt.order_id = o.id GROUP BY o.customer_id`, false},
		{"aggregate-before-join: the many side grouped by the key in a subquery",
			`SELECT SUM(o.total) FROM orders o JOIN (SELECT order_id, COUNT(*) AS n FROM order_lines GROUP BY 1) lc ON lc.order_id = o.id`, false},
		{"aggregate-before-join: the many side as SELECT DISTINCT of the key",
			`SELECT SUM(o.total) FROM orders o JOIN (SELECT DISTINCT order_id FROM order_lines WHERE sku = 'X') d ON d.order_id = o.id`, false},
		{"aggregate-before-join: the one side summed in a CTE, joined later",
			`WITH rev AS (SELECT customer_id, SUM(total) AS revenue FROM orders GROUP BY customer_id),
			 lines AS (SELECT o.id FROM orders o JOIN order_lines l ON l.order_id = o.id)
			 SELECT r.revenue, COUNT(*) FROM rev r CROSS JOIN lines GROUP BY r.revenue`, false},
		{"a many-side column aggregated at its own grain",
			`SELECT o.id, SUM(l.amount) FROM orders o JOIN order_lines l ON l.order_id = o.id GROUP BY o.id`, false},
		{"count distinct of the one side's key",
			`SELECT COUNT(DISTINCT o.id) FROM orders o JOIN order_lines l ON l.order_id = o.id`, false},
		{"max is not multiplied",
			`SELECT MAX(o.total) FROM orders o JOIN order_lines l ON l.order_id = o.id`, false},
	}
	s, err := NewScorer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(sqlTrace("f", tt.sql, `[{"n":1}]`, "1")))
			if lerr != nil {
				t.Fatal(lerr)
			}
			ts := s.Score(tr, nil)
			if len(ts.UnparsedSQL) > 0 {
				t.Fatalf("unparsed: %+v", ts.UnparsedSQL)
			}
			if got := hasKind(ts, "structural", "counts once per"); got != tt.want {
				t.Errorf("fan-out = %v, want %v; classes %s", got, tt.want, mustJSON(t, ts.Classes))
			}
		})
	}
}
