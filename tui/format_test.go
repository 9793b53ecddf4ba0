package tui

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLayoutSQL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT count(*) FROM customers c WHERE c.a = 1 AND c.b LIKE 'EU%'",
			"SELECT count(*)\nFROM customers c\nWHERE c.a = 1\n  AND c.b LIKE 'EU%'"},
		{"select a from t left join u on u.id = t.id group by a order by a limit 5",
			"select a\nfrom t\nleft join u on u.id = t.id\ngroup by a\norder by a\nlimit 5"},
		// Quotes and parentheses are left alone; a word merely starting
		// with a keyword is not one.
		{"SELECT 'a FROM b' FROM t WHERE x IN (SELECT y FROM z WHERE q AND r) OR fromage = 1",
			"SELECT 'a FROM b'\nFROM t\nWHERE x IN (SELECT y FROM z WHERE q AND r)\n  OR fromage = 1"},
		{"SELECT a\nFROM t", "SELECT a\nFROM t"},
		{"", ""},
	}
	for _, c := range cases {
		if got := layoutSQL(c.in); got != c.want {
			t.Errorf("layoutSQL(%q) =\n%s\nwant\n%s", c.in, got, c.want)
		}
	}
}

func TestResultTable(t *testing.T) {
	sty := newTestStyles()
	cases := []struct {
		name, raw string
		want      []string // plain lines; nil: not drawn as a table
	}{
		{"tabular", `{"columns":["region","count"],"rows":[["EMEA",1284],["APAC",null]],"row_count":2}`,
			[]string{"region  count", "EMEA    1284 ", "APAC         ", "2 row(s)"}},
		{"hostile cell", `{"columns":["n"],"rows":[["\u001b]0;owned\u0007x"]]}`, []string{"n", "x", "1 row(s)"}},
		{"objects", `{"columns":["a"],"rows":[{"a":1}]}`, nil},
		{"other shape", `{"count":1}`, nil},
		{"not json", `oops`, nil},
	}
	for _, c := range cases {
		got := resultTable(&sty, json.RawMessage(c.raw), 80)
		if c.want == nil {
			if got != nil {
				t.Errorf("%s: drawn as a table: %q", c.name, got)
			}
			continue
		}
		var plain []string
		for _, l := range got {
			plain = append(plain, stripStyles(l))
		}
		if strings.Join(plain, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: %q, want %q", c.name, plain, c.want)
		}
	}
}
