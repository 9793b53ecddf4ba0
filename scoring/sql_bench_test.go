package scoring

import (
	"fmt"
	"strings"
	"testing"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// benchStatements are typical agent queries: joins, CTEs, windows,
// subqueries, dialect rewrites.
var benchStatements = []string{
	"SELECT count(*) FROM customers WHERE is_active = true AND region_code LIKE 'EU%'",
	`SELECT count(DISTINCT c.id) FROM customers c JOIN subscriptions s ON s.customer_id = c.id
	 WHERE s.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.sales_region = 'EMEA'
	 AND s.period_start <= '2026-06-30' AND s.period_end >= '2026-04-01'`,
	`WITH paid AS (SELECT customer_id, sum(amount) AS total FROM orders WHERE status = 'paid' GROUP BY customer_id)
	 SELECT c.name, p.total, rank() OVER (PARTITION BY c.region ORDER BY p.total DESC)
	 FROM paid p JOIN customers c ON c.id = p.customer_id WHERE p.total > 100 ORDER BY 2 DESC LIMIT 10`,
	"SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE amount > (SELECT avg(amount) FROM orders))",
	"SELECT T1.name, T2.`qty` FROM products AS T1 INNER JOIN order_items AS T2 ON T1.id = T2.product_id WHERE T2.price > 5 LIMIT 3, 5",
	"SELECT d.dept_name, avg(e.salary) FROM employees e JOIN depts d USING (dept_id) GROUP BY d.dept_name HAVING count(*) > 3",
}

// BenchmarkAnalyzeSQL reports statements per second, cold (every call
// parses: dialect rewrite, pg_query parse and fingerprint, resolution) and
// cached (a warm analyzer serving repeated statements).
func BenchmarkAnalyzeSQL(b *testing.B) {
	idx := indexSchema(shopSchema)
	b.Run("cold", func(b *testing.B) {
		start := time.Now()
		n := 0
		for i := 0; i < b.N; i++ {
			analyzeUncached(benchStatements[i%len(benchStatements)], idx)
			n++
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "stmts/s")
	})
	b.Run("cached", func(b *testing.B) {
		an := NewSQLAnalyzer(shopSchema)
		for _, s := range benchStatements {
			an.Analyze(s)
		}
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			an.Analyze(benchStatements[i%len(benchStatements)])
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "stmts/s")
	})
	// New statements that differ from earlier ones only in literals, as
	// an agent's are: a kept tree gets each one's literals
	// (sql_template.go) instead of a parse.
	b.Run("literals", func(b *testing.B) {
		an := NewSQLAnalyzer(shopSchema)
		texts := make([]string, 4096)
		for i := range texts {
			texts[i] = strings.NewReplacer("'EMEA'", fmt.Sprintf("'R%d'", i), "100", fmt.Sprint(i), "> 5", fmt.Sprintf("> %d", i), "> 3", fmt.Sprintf("> %d", i)).
				Replace(benchStatements[i%len(benchStatements)])
		}
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			if i%len(texts) == 0 {
				an = NewSQLAnalyzer(shopSchema) // every text is new to the exact-text cache
			}
			an.Analyze(texts[i%len(texts)])
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "stmts/s")
	})
	b.Run("cached-parallel", func(b *testing.B) {
		an := NewSQLAnalyzer(shopSchema)
		for _, s := range benchStatements {
			an.Analyze(s)
		}
		b.ResetTimer()
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				an.Analyze(benchStatements[i%len(benchStatements)])
				i++
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "stmts/s")
	})
}

// BenchmarkAnalyzeSQLCorpus runs cold over the real Spider dev queries.
func BenchmarkAnalyzeSQLCorpus(b *testing.B) {
	cs := loadCorpora(b)
	for _, c := range cs {
		idx := map[string]*schemaIndex{}
		for db, s := range c.schemas {
			idx[db] = indexSchema(s)
		}
		b.Run(c.name, func(b *testing.B) {
			start := time.Now()
			for i := 0; i < b.N; i++ {
				q := c.queries[i%len(c.queries)]
				if a := analyzeUncached(q.sql, idx[q.db]); a.Err != "" {
					b.Fatal(fmt.Sprint(q.sql, ": ", a.Err))
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "stmts/s")
		})
	}
}

// BenchmarkParseSQL compares parseSQL with pg.Parse, its floor and the
// way it replaces, on the typical agent queries.
func BenchmarkParseSQL(b *testing.B) {
	for _, p := range []struct {
		name  string
		parse func(string) (*pg.ParseResult, error)
	}{{"pg.Parse", pg.Parse}, {"parseSQL", parseSQL}} {
		b.Run(p.name, func(b *testing.B) {
			sqls := make([]string, len(benchStatements))
			for i, s := range benchStatements {
				sqls[i] = normalizeDialect(s).sql // as analyzeUncached hands it on
			}
			for i := 0; i < b.N; i++ {
				if _, err := p.parse(sqls[i%len(sqls)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
