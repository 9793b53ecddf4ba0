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

// A wide table puts the columns the evidence names first and scrolls.
func TestResultTableEvidenceFirstAndScroll(t *testing.T) {
	sty := newTestStyles()
	raw := json.RawMessage(`{"columns":["customer_id","name","segment","owner","region"],"rows":[["C2-000001","Acme Corporation","enterprise","ana@example","NA"],["C2-000002","Beta","smb","bo@example","EMEA"]]}`)
	first := evidenceColumns(raw, []string{"row 1 has region = NA, outside the scope's EMEA"})
	if len(first) != 1 || first[0] != "region" {
		t.Fatalf("evidence columns %v, want [region]", first)
	}
	got := resultTable(&sty, raw, 24, 0, first)
	if h := stripStyles(got[0]); !strings.HasPrefix(h, "row  region") {
		t.Errorf("header %q: region not first", h)
	}
	if note := stripStyles(got[len(got)-1]); !strings.Contains(note, "h/l scroll") {
		t.Errorf("a table wider than the pane does not say it scrolls: %q", note)
	}
	if strings.Contains(stripStyles(got[0]), "owner") {
		t.Fatalf("owner visible before scrolling: %q", got[0])
	}
	scrolled := resultTable(&sty, raw, 24, 40, first)
	if !strings.Contains(stripStyles(scrolled[0]), "owner") {
		t.Errorf("scrolling right did not reveal owner: %q", stripStyles(scrolled[0]))
	}
	for _, l := range scrolled[:len(scrolled)-1] {
		if w := ansiWidth(l); w > 24 {
			t.Errorf("line %q is %d wide, pane 24", stripStyles(l), w)
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
			[]string{"row  region  count", "0    EMEA    1284 ", "1    APAC         ", "2 row(s)"}},
		{"hostile cell", `{"columns":["n"],"rows":[["\u001b]0;owned\u0007x"]]}`, []string{"row  n", "0    x", "1 row(s)"}},
		{"objects", `{"columns":["a"],"rows":[{"a":1}]}`, nil},
		{"other shape", `{"count":1}`, nil},
		{"not json", `oops`, nil},
	}
	for _, c := range cases {
		got := resultTable(&sty, json.RawMessage(c.raw), 80, 0, nil)
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
