package scoring

import (
	"os"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
)

// pgJSONCases are texts where pg_query's JSON differs from its protobuf
// or where the reader has to be careful; fast says whether the JSON way
// takes them (false: it hands them to pg.Parse).
var pgJSONCases = []struct {
	sql  string
	fast bool
}{
	{"SELECT 1", true},
	{"SELECT 0", true},
	{"SELECT -3", true},
	{"SELECT - 3, -  0x1F, -0o17, -0b101, -1_000, -010", true},
	{"SELECT x FROM t WHERE y > -2147483647 AND z = -1.5 AND w = 0 AND v IN (0, -1, 2)", true},
	{"SELECT -2147483648, 2147483648, -9223372036854775808", true},
	{"SELECT -0", false}, // zero written with a sign: not told from a lost negative
	{"SELECT -/* c */3", false},
	{"SELECT a::int[] FROM t", false}, // an array bound is Integer -1, without a location
	{"SELECT a::int[3] FROM t", true},
	{"SELECT true, false, NULL, b'101', x'1F', 1.5e3, 'it''s', E'tab\\there\\n', 'a<b>c\"d\\\\e'", true},
	{"SELECT 'caf\u00e9 \u6f22\u5b57 \U0001F600' AS \"Col Name\"", true},
	{"SELECT E'\\x01\\x1f ctl' FROM t", true},
	{"SELECT 'bad \xff byte'", false},
	{"SELECT c.name, count(*) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.status = 'paid' GROUP BY 1 HAVING count(*) > 0 ORDER BY 2 DESC NULLS LAST LIMIT 10 OFFSET 0", true},
	{"WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r", true},
	{"SELECT rank() OVER (PARTITION BY a ORDER BY b ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), attrs->>'k' FROM t WINDOW w AS (ORDER BY c)", true},
	{"SELECT * FROM (SELECT * FROM a NATURAL JOIN b) s, LATERAL (SELECT s.x) l WHERE s.y IS NOT NULL AND s.z BETWEEN -5 AND 5", true},
	{"UPDATE t SET a = b - 1 FROM u WHERE u.id = t.id RETURNING *", true},
	{"INSERT INTO t (a) SELECT x FROM y ON CONFLICT (a) DO UPDATE SET a = excluded.a", true},
	{"DELETE FROM t WHERE a = -1; SELECT 1;", true},
	{"CREATE TABLE t (id bigint PRIMARY KEY, n integer DEFAULT -1, ok boolean DEFAULT false, s text NOT NULL)", true},
	{"CREATE SEQUENCE s INCREMENT BY -1", false},
	{"SELECT FROM WHERE (", true},
	{"SELECT 'unclosed", true},
	{"", true},
}

// TestParseSQLAsParse: parseSQL gives pg.Parse's tree, or its error, for
// every text, and takes the JSON way where it can.
func TestParseSQLAsParse(t *testing.T) {
	for _, c := range pgJSONCases {
		assertParsesAsParse(t, c.sql)
		if _, ok, _ := parseFromJSON(c.sql); ok != c.fast {
			t.Errorf("%q: read from JSON %v, want %v", c.sql, ok, c.fast)
		}
	}
	for _, s := range fuzzSeeds {
		assertParsesAsParse(t, s)
	}
}

// TestParseSQLAgentQueries: the agents' SQL of testdata parses as with
// pg.Parse, nearly all of it the fast way.
func TestParseSQLAgentQueries(t *testing.T) {
	data, err := os.ReadFile("testdata/sql/agent_queries.sql")
	if err != nil {
		t.Fatal(err)
	}
	n, fast := 0, 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "--") {
			continue
		}
		s := normalizeDialect(line).sql
		assertParsesAsParse(t, s)
		n++
		if _, ok, _ := parseFromJSON(s); ok {
			fast++
		}
	}
	if n < 5 || fast*10 < n*9 {
		t.Errorf("%d of %d texts read from JSON; want 90%%", fast, n)
	}
}

// TestParseSQLCorpora: the real text-to-SQL corpora parse as with
// pg.Parse.
func TestParseSQLCorpora(t *testing.T) {
	needSamples(t)
	n, fast := 0, 0
	for _, c := range loadCorpora(t) {
		for _, q := range c.queries {
			s := normalizeDialect(q.sql).sql
			assertParsesAsParse(t, s)
			n++
			if _, ok, _ := parseFromJSON(s); ok {
				fast++
			}
		}
	}
	t.Logf("%d of %d texts read from JSON", fast, n)
	if fast*10 < n*9 {
		t.Errorf("%d of %d texts read from JSON; want 90%%", fast, n)
	}
}

func assertParsesAsParse(t testing.TB, sql string) {
	t.Helper()
	got, gerr := parseSQL(sql)
	want, werr := pg.Parse(sql)
	if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Fatalf("%q: error %v, pg.Parse's %v", sql, gerr, werr)
	}
	if !proto.Equal(got, want) {
		t.Fatalf("%q: tree differs from pg.Parse's:\n got %v\nwant %v", sql, got, want)
	}
}

// FuzzParseSQL: parseSQL and pg.Parse agree on every text.
func FuzzParseSQL(f *testing.F) {
	for _, c := range pgJSONCases {
		f.Add(c.sql)
	}
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		if strings.IndexByte(sql, 0) >= 0 {
			return // pg_query reads a C string; analyzeUncached refuses NUL first
		}
		assertParsesAsParse(t, sql)
	})
}

// TestParseSQLLarge: a statement far larger than any the buffers keep
// parses as with pg.Parse, and so does a deeply nested one or one too deep
// for the parser.
func TestParseSQLLarge(t *testing.T) {
	var in strings.Builder
	in.WriteString("SELECT a FROM t WHERE b IN (0")
	for i := range 100000 {
		in.WriteString(", -")
		in.WriteString(strings.Repeat("7", 1+i%9))
	}
	in.WriteString(")")
	for _, sql := range []string{
		in.String(),
		"SELECT " + strings.Repeat("(", 500) + "1" + strings.Repeat(")", 500),
		"SELECT " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000),
	} {
		assertParsesAsParse(t, sql)
	}
}
