package scoring

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// analyzeAllWays analyzes each text through tc and checks every analysis
// equals analyzeUncached's of the same text, unexported fields included.
func analyzeAllWays(t testing.TB, tc *templateCache, idx *schemaIndex, texts ...string) {
	t.Helper()
	for _, s := range texts {
		got, want := analyzeText(s, idx, tc), analyzeUncached(s, idx)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n from a kept tree %+v\n parsed           %+v", s, got, want)
		}
	}
}

// TestTemplateReuse: statements that differ only in literals are analyzed
// from the tree kept for the first two, and each gets what parsing it
// gives: the literals the analysis reads are the statement's own.
func TestTemplateReuse(t *testing.T) {
	idx := indexSchema(shopSchema)
	cases := []struct {
		name   string
		first  string   // met twice: its tree is kept
		others []string // each compared with its own parse
		reused bool     // whether the others are served by the kept tree
	}{
		{"predicate values", "SELECT count(*) FROM customers WHERE sales_region = 'EMEA' AND id > 10",
			[]string{"SELECT count(*) FROM customers WHERE sales_region = 'APAC' AND id > 0", "SELECT count(*) FROM customers WHERE sales_region = '' AND id > 2147483647"}, true},
		{"IN list and dates", "SELECT count(*) FROM subscriptions WHERE subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND period_start <= '2026-06-30'",
			[]string{"SELECT count(*) FROM subscriptions WHERE subscription_status IN ('it''s', 'X') AND period_start <= '1999-01-01'"}, true},
		{"ORDER BY and GROUP BY ordinals name other columns", "SELECT sales_region, name, count(*) FROM customers GROUP BY 1, 2 ORDER BY 1",
			[]string{"SELECT sales_region, name, count(*) FROM customers GROUP BY 2, 1 ORDER BY 2", "SELECT sales_region, name, count(*) FROM customers GROUP BY 9, 0 ORDER BY 3"}, true},
		{"NOT of a string that reads as a boolean", "SELECT id FROM customers WHERE NOT (is_active = 'true')",
			[]string{"SELECT id FROM customers WHERE NOT (is_active = 'false')", "SELECT id FROM customers WHERE NOT (is_active = 'maybe')"}, true},
		{"LIMIT, and MySQL's LIMIT offset, count", "SELECT name FROM customers ORDER BY name LIMIT 3, 5",
			[]string{"SELECT name FROM customers ORDER BY name LIMIT 0, 100"}, true},
		{"a minus sign folded into the constant", "SELECT id FROM orders WHERE amount > -5 AND amount < - 2.5",
			[]string{"SELECT id FROM orders WHERE amount > -0 AND amount < - 7.25", "SELECT id FROM orders WHERE amount > -2147483647 AND amount < - 1.0"}, true},
		{"typed literals, intervals and the clock", "SELECT id FROM orders WHERE created_at > DATE '2026-01-01' AND created_at < now() - INTERVAL 7 DAY",
			[]string{"SELECT id FROM orders WHERE created_at > DATE '2025-12-31' AND created_at < now() - INTERVAL 30 DAY"}, true},
		{"a typmod", "SELECT CAST(name AS varchar(10)) FROM customers WHERE id = 1",
			[]string{"SELECT CAST(name AS varchar(200)) FROM customers WHERE id = 2"}, true},
		{"float(p) picks the type: never shared", "SELECT CAST(amount AS float(10)) FROM orders",
			[]string{"SELECT CAST(amount AS float(40)) FROM orders"}, false},
		{"a string continued on the next line: never shared", "SELECT id FROM customers WHERE name = 'a'\n'b'",
			[]string{"SELECT id FROM customers WHERE name = 'c'\n''"}, false},
		{"-(5) is folded at the sign: never shared", "SELECT id FROM orders WHERE amount > -(5)",
			[]string{"SELECT id FROM orders WHERE amount > -(6)"}, false},
		{"E'…' strings: not templated", "SELECT id FROM customers WHERE name = E'a\\'b'",
			[]string{"SELECT id FROM customers WHERE name = E'c\\'d'"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tc := newTemplateCache(8, 8)
			analyzeAllWays(t, tc, idx, c.first, c.first)
			before := tc.reused.Load()
			analyzeAllWays(t, tc, idx, c.others...)
			analyzeAllWays(t, tc, idx, c.first) // the kept tree, rewritten, still gives the first its own analysis
			if got := tc.reused.Load() - before; c.reused && got != int64(len(c.others)+1) || !c.reused && got != 0 {
				t.Errorf("%d of %d statements analyzed from the kept tree, want reused=%v", got, len(c.others)+1, c.reused)
			}
		})
	}
}

// TestTemplateConcurrent: goroutines analyzing one template at once each
// get their own statement's analysis; a template keeps a tree per busy
// goroutine, up to treesPerTemplate.
func TestTemplateConcurrent(t *testing.T) {
	idx := indexSchema(shopSchema)
	tc := newTemplateCache(8, 8)
	const workers, each = 6, 150
	texts := make([][]string, workers)
	want := make([][]*SQLAnalysis, workers)
	for w := range texts {
		for i := range each {
			s := fmt.Sprintf("SELECT sales_region, name FROM customers WHERE id > %d AND name <> 'n%d' ORDER BY %d", w*each+i, i, 1+i%2)
			texts[w] = append(texts[w], s)
			want[w] = append(want[w], analyzeUncached(s, idx))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := range texts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, s := range texts[w] {
				if got := analyzeText(s, idx, tc); !reflect.DeepEqual(got, want[w][i]) {
					errs <- fmt.Sprintf("%q: got %+v, want %+v", s, got, want[w][i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for key, ps := range tc.trees {
		if len(ps) == 0 || len(ps) > treesPerTemplate {
			t.Errorf("template %q keeps %d trees, want 1..%d", key, len(ps), treesPerTemplate)
		}
	}
	if tc.reused.Load() == 0 {
		t.Error("no statement was analyzed from a kept tree")
	}
}

// TestTemplateKeepsQuotedIdentifiersApart: an identifier the author
// double-quoted (which SQLite may read as a string) and one rewritten from
// backticks normalize to the same text, but are analyzed differently, so
// they never share a tree.
func TestTemplateKeepsQuotedIdentifiersApart(t *testing.T) {
	idx := indexSchema(shopSchema)
	tc := newTemplateCache(8, 8)
	dq := `SELECT id FROM customers WHERE name = "nobody" AND id > 1`
	bt := "SELECT id FROM customers WHERE name = `nobody` AND id > 2"
	analyzeAllWays(t, tc, idx, dq, dq, bt, bt, dq)
	a, b := templateKey(t, dq), templateKey(t, bt)
	if a == b {
		t.Fatalf("one template for %q and %q", dq, bt)
	}
}

func templateKey(t *testing.T, s string) string {
	t.Helper()
	norm, toks := normalizeDialectTokens(s)
	tmpl, ok := templateOf(norm.sql, toks)
	if !ok {
		t.Fatalf("%q has no template", s)
	}
	return tmpl.key
}

// TestTemplateOf: which tokens are literals, and which texts have no
// template.
func TestTemplateOf(t *testing.T) {
	for _, c := range []struct {
		sql  string
		key  string // "" when there is no template
		lits []string
	}{
		{"SELECT a FROM t WHERE b = 'x' AND c > 10", "SELECT a FROM t WHERE b = \x00s AND c > \x00i", []string{"'x'", "10"}},
		{"SELECT 1.5, .5, 5., 2147483648, 007", "SELECT \x00f, \x00f, \x00f, \x00f, \x00i", []string{"1.5", ".5", "5.", "2147483648", "007"}},
		{"SELECT 1e5, 0x1F, 1_000, $1, t.5, x5", "", nil},                                     // no literal a tree could share
		{"SELECT 1e5 FROM t WHERE a = 2", "SELECT 1e5 FROM t WHERE a = \x00i", []string{"2"}}, // 1e5 is kept as text
		{"SELECT a FROM t WHERE b = $$x$$ AND c = 1", "", nil},
		{"SELECT a FROM t WHERE b = B'101'", "", nil},
		{"SELECT a FROM t WHERE b = 'it''s'", "SELECT a FROM t WHERE b = \x00s", []string{"'it''s'"}},
		{"SELECT a FROM t WHERE b = 'open", "", nil},
		{"SELECT a FROM t WHERE b = 'a\\'", "", nil},
		{"SELECT \"a\" FROM t WHERE b = 1", "SELECT \x00d\"a\" FROM t WHERE b = \x00i", []string{"1"}},
		{"SELECT a FROM t LIMIT 2, 3", "SELECT a FROM t LIMIT \x00i OFFSET \x00i", []string{"3", "2"}},
	} {
		norm, toks := normalizeDialectTokens(c.sql)
		tmpl, ok := templateOf(norm.sql, toks)
		if c.key == "" {
			if ok {
				t.Errorf("%q: template %q, want none", c.sql, tmpl.key)
			}
			continue
		}
		var lits []string
		for _, l := range tmpl.lits {
			lits = append(lits, l.text)
		}
		if !ok || tmpl.key != c.key || !reflect.DeepEqual(lits, c.lits) {
			t.Errorf("%q: template %q %q (ok %v), want %q %q", c.sql, tmpl.key, lits, ok, c.key, c.lits)
		}
	}
}

// literalVariants rewrites a statement's literals three ways: numbers and
// strings changed, zero and empty, and values that read as other things
// ('true', a date). Tokens are read with the package's lexer, so not every
// variant keeps its original's template; each is checked all the same.
func literalVariants(s string) []string {
	out := make([]string, 3)
	for v := range out {
		var b strings.Builder
		for i, tok := range lexSQL(s) {
			switch {
			case tok.kind == tkNumber && strings.Trim(tok.text, "0123456789") == "":
				n, _ := strconv.Atoi(tok.text)
				b.WriteString([]string{strconv.Itoa(n + 1 + i), "0", "2147483647"}[v])
			case tok.kind == tkString && strings.HasPrefix(tok.text, "'") && strings.HasSuffix(tok.text, "'") && len(tok.text) >= 2:
				b.WriteString([]string{tok.text[:len(tok.text)-1] + "x'", "''", "'true'"}[v])
			default:
				b.WriteString(tok.text)
			}
		}
		out[v] = b.String()
	}
	return out
}

// TestTemplateMatchesParsing runs every statement of the SQL golden file,
// the benchmark and fuzz seeds and, when the samples are there, the real
// text-to-SQL corpora, each with its literal variants, through one
// template cache: each analysis must equal the statement's own parse.
func TestTemplateMatchesParsing(t *testing.T) {
	type stmt struct {
		sql string
		idx *schemaIndex
	}
	shop := indexSchema(shopSchema)
	var stmts []stmt
	f, err := os.Open(filepath.Join("testdata", "sql", "agent_queries.sql"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "--") {
			stmts = append(stmts, stmt{line, shop})
		}
	}
	f.Close()
	for _, s := range append(append([]string{}, benchStatements...), fuzzSeeds...) {
		stmts = append(stmts, stmt{s, shop})
	}
	if _, err := os.Stat(samplesDir); err != nil {
		t.Logf("real-world samples not found at %s: the corpora are left out (%v)", samplesDir, err)
	} else {
		for _, c := range loadCorpora(t) {
			idx := map[string]*schemaIndex{}
			for _, q := range c.queries {
				if idx[q.db] == nil {
					idx[q.db] = indexSchema(c.schemas[q.db])
				}
				stmts = append(stmts, stmt{q.sql, idx[q.db]})
			}
		}
	}
	tc := newTemplateCache(templateTrees, templateSeen)
	for _, s := range stmts {
		v := literalVariants(s.sql)
		analyzeAllWays(t, tc, s.idx, s.sql, v[0], v[1], s.sql, v[2])
	}
	if tc.reused.Load() == 0 {
		t.Fatal("no statement was analyzed from a kept tree")
	}
	t.Logf("%d statements, %d analyses from a kept tree", len(stmts)*5, tc.reused.Load())
}

// FuzzTemplateReuse: a statement and its literal variants, analyzed
// through one template cache, each equal their own parse.
func FuzzTemplateReuse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Add("SELECT a FROM t WHERE b = -5 AND c IN ('x', 'y') ORDER BY 2 LIMIT 7")
	f.Add("SELECT CAST(a AS numeric(10, 2)) FROM t WHERE d > DATE '2026-01-01' - INTERVAL 3 DAY")
	idx := indexSchema(shopSchema)
	f.Fuzz(func(t *testing.T, s string) {
		tc := newTemplateCache(4, 4)
		v := literalVariants(s)
		analyzeAllWays(t, tc, idx, s, v[0], v[1], s, v[2])
	})
}
