package scoring

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

var fuzzSeeds = []string{
	"SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.status = 'paid'",
	"WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r",
	"SELECT T2.`School Name` FROM frpm AS T2 WHERE T2.`Enrollment (K-12)` > 500 LIMIT 9, 2",
	"SELECT [a b] FROM [t] JOIN u AS x WHERE x.y = \"lit\"",
	"SELECT region, count(*) FROM customers GROUP BY 1 HAVING cnt > 1 ORDER BY 2",
	"SELECT * FROM (SELECT * FROM a NATURAL JOIN b) s, LATERAL (SELECT s.x) l",
	"UPDATE t SET a = b FROM u WHERE u.id = t.id RETURNING *",
	"INSERT INTO t (a) SELECT x FROM y ON CONFLICT (a) DO UPDATE SET a = excluded.a",
	"SELECT rank() OVER (PARTITION BY a ORDER BY b), attrs->>'k' FROM t WINDOW w AS (ORDER BY c)",
	"```sql\nSELECT 1\n```",
	"SELECT FROM WHERE (",
	"",
	"SELECT a FROM t WHERE b = 1\x00 AND secret = 2",
	"SELECT a FROM t WHERE (s = 'A' OR s = 'B') AND NOT (s IN ('C')) AND d BETWEEN 1 AND 2",
}

// FuzzAnalyzeSQL: never panic; every field is table.column (or ?.column),
// roles are non-empty, sorted in Role order and unique; an unparsed
// statement has no fields.
func FuzzAnalyzeSQL(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	order := map[Role]int{}
	for i, r := range roleOrder {
		order[r] = i
	}
	withSchema, noSchema := indexSchema(shopSchema), indexSchema(nil)
	f.Fuzz(func(t *testing.T, sql string) {
		idx := withSchema
		if len(sql)%2 == 1 { // both resolution paths: by schema and by scope
			idx = noSchema
		}
		a := analyzeUncached(sql, idx)
		if strings.IndexByte(sql, 0) >= 0 && a.Err == "" {
			t.Fatalf("SQL with a NUL byte passed as parsed: %+v", a)
		}
		if a.Err != "" && (len(a.Fields) > 0 || len(a.Tables) > 0) {
			t.Fatalf("unparsed statement has fields: %+v", a)
		}
		for i, f := range a.Fields {
			tbl, col, ok := strings.Cut(f.Field, ".")
			if !ok || tbl == "" || col == "" {
				t.Fatalf("field %q is not table.column", f.Field)
			}
			if i > 0 && a.Fields[i-1].Field >= f.Field {
				t.Fatalf("fields not sorted/unique: %q then %q", a.Fields[i-1].Field, f.Field)
			}
			if len(f.Roles) == 0 {
				t.Fatalf("field %q has no role", f.Field)
			}
			for j := 1; j < len(f.Roles); j++ {
				if order[f.Roles[j-1]] >= order[f.Roles[j]] {
					t.Fatalf("roles of %q not sorted or not unique: %v", f.Field, f.Roles)
				}
			}
		}
		for _, m := range a.Ambiguous {
			if !strings.HasPrefix(m, "?.") || len(m) < 3 {
				t.Fatalf("ambiguous %q is not ?.column", m)
			}
		}
	})
}

func FuzzParseDefinition(f *testing.F) {
	for _, s := range []string{
		"active = subscription_status in (ACTIVE, PAUSED_BILLING) at any point in the fiscal quarter",
		"churned: status = 'CHURNED' and cancelled_at is not null",
		"q1 = d between 1 and 2", "x in (", "= = =", "a means b <> -1",
		"open = status = a or status = b or status in (c, d)", "mid-market = segment = mid-market", "x = a or",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, preds, err := ParseDefinition(text)
		if err == nil && len(preds) == 0 {
			t.Fatalf("no error and no predicate for %q", text)
		}
		for _, p := range preds {
			if p.Field == "" || p.Op == "" {
				t.Fatalf("incomplete predicate %+v from %q", p, text)
			}
		}
	})
}

func FuzzParseSchema(f *testing.F) {
	for _, s := range []string{
		`{"t":["a","b"]}`, `{"t":`, "CREATE TABLE t (a int, b);", "CREATE TABLE `x y` (`c d` TEXT", "SELEC 1",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSchema(data)
		if err == nil && len(s) == 0 {
			t.Fatalf("no error and no table for %q", data)
		}
	})
}

func FuzzFindSQL(f *testing.F) {
	for _, s := range []string{
		`{"sql":"SELECT 1"}`, `{"q":["UPDATE t SET a=1",{"query":"with x"}]}`, `[1,"SELECT a FROM b"]`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, a := range FindSQL(json.RawMessage(data)) {
			if a.SQL == "" {
				t.Fatalf("empty SQL found in %q", data)
			}
		}
	})
}

// A call's SQL is read from the arguments traceCalls decoded once: it
// must be what FindSQL finds in their text, and the arguments map what
// decoding the text into a map gives, for any bytes (not JSON, a number
// out of range, text after the value, an array, null).
func FuzzCallArgs(f *testing.F) {
	for _, s := range []string{
		`{"sql":"SELECT a FROM b"}`, `{"q":["UPDATE t SET a=1",{"query":"with x"}]}`, `[1,"SELECT a FROM b"]`, `{`,
		`{"sql":"SELECT a FROM b"} {"x":1}`, `{"n":1e400,"sql":"SELECT a FROM b"}`, `null`, `"SELECT a FROM b"`, ` `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := &model.Trace{Steps: []model.Step{{Kind: model.KindToolCall, Tool: "run", Args: json.RawMessage(data)}}}
		c := traceCalls(tr)[0]
		if got, want := c.argSQL(json.RawMessage(data)), FindSQL(json.RawMessage(data)); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: argSQL %v, FindSQL %v", data, got, want)
		}
		var want map[string]any
		if len(data) > 0 {
			_ = json.Unmarshal(data, &want)
		}
		if !reflect.DeepEqual(c.args, want) {
			t.Fatalf("%q: args %v, decoded into a map %v", data, c.args, want)
		}
	})
}

// firstWord reads past spaces and parentheses by hand; the lexer is the
// reference it must agree with.
func FuzzFirstWord(f *testing.F) {
	for _, s := range []string{"SELECT 1", "  (( select x", "-- c\nSELECT", "/* c */ WITH", "```sql\nSELECT 1\n```",
		"- 1", "/x", "$1", "'s'", "\"q\"", "_x$1 y", "é", strings.Repeat(" ", 510) + "select"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := firstWord(s), firstWordLexed(prefix(stripFence(s), 512)); got != want {
			t.Errorf("firstWord(%q) = %q, the lexer says %q", s, got, want)
		}
	})
}
