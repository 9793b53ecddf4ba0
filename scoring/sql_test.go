package scoring

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

// shopSchema is the schema most shapes below resolve against; shapes that
// test the "only table in scope" rule pass no schema.
var shopSchema = Schema{
	"customers":     {"id", "name", "region", "sales_region", "region_code", "is_active", "created_at", "manager_id", "email"},
	"orders":        {"id", "customer_id", "status", "amount", "created_at", "product_id"},
	"order_items":   {"order_id", "product_id", "qty", "price"},
	"products":      {"id", "name", "category", "price", "attrs"},
	"subscriptions": {"id", "customer_id", "subscription_status", "period_start", "period_end"},
	"employees":     {"id", "name", "manager_id", "salary", "dept_id"},
	"depts":         {"dept_id", "dept_name"},
}

// fieldList renders fields as "table.column:role,role" for comparison.
func fieldList(fs []FieldUse) []string {
	out := []string{}
	for _, f := range fs {
		roles := make([]string, len(f.Roles))
		for i, r := range f.Roles {
			roles[i] = string(r)
		}
		out = append(out, f.Field+":"+strings.Join(roles, ","))
	}
	return out
}

func TestAnalyzeSQLShapes(t *testing.T) {
	tests := []struct {
		name   string
		sql    string
		schema Schema // shopSchema unless noSchema
		noSch  bool
		fields []string
		amb    []string
	}{
		{name: "single table unqualified, no schema", noSch: true,
			sql:    "SELECT name, age FROM singer WHERE country = 'France'",
			fields: []string{"singer.age:select", "singer.country:where", "singer.name:select"}},
		{name: "alias", sql: "SELECT c.name FROM customers c WHERE c.region = 'EMEA'",
			fields: []string{"customers.name:select", "customers.region:where"}},
		{name: "alias with AS and upper case", sql: "SELECT T1.Name FROM Customers AS T1 WHERE T1.Is_Active",
			fields: []string{"customers.is_active:where", "customers.name:select"}},
		{name: "inner join on", sql: "SELECT c.name, o.amount FROM customers c JOIN orders o ON o.customer_id = c.id",
			fields: []string{"customers.id:join", "customers.name:select", "orders.amount:select", "orders.customer_id:join"}},
		{name: "unqualified resolved by schema across a join",
			sql:    "SELECT name, amount FROM customers c JOIN orders o ON o.customer_id = c.id WHERE status = 'paid'",
			fields: []string{"customers.id:join", "customers.name:select", "orders.amount:select", "orders.customer_id:join", "orders.status:where"}},
		{name: "unqualified column in two tables is ambiguous",
			sql:    "SELECT created_at FROM customers c JOIN orders o ON o.customer_id = c.id",
			fields: []string{"?.created_at:select", "customers.id:join", "orders.customer_id:join"}, amb: []string{"?.created_at"}},
		{name: "no schema, two tables: unqualified is ambiguous", noSch: true,
			sql:    "SELECT name FROM a JOIN b ON a.id = b.a_id",
			fields: []string{"?.name:select", "a.id:join", "b.a_id:join"}, amb: []string{"?.name"}},
		{name: "left join and where", sql: "SELECT c.name FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE o.id IS NULL",
			fields: []string{"customers.id:join", "customers.name:select", "orders.customer_id:join", "orders.id:where"}},
		{name: "self join", sql: "SELECT e.name, m.name FROM employees e JOIN employees m ON e.manager_id = m.id",
			fields: []string{"employees.id:join", "employees.manager_id:join", "employees.name:select"}},
		{name: "join using", sql: "SELECT d.dept_name, e.name FROM employees e JOIN depts d USING (dept_id)",
			fields: []string{"depts.dept_id:join", "depts.dept_name:select", "employees.dept_id:join", "employees.name:select"}},
		{name: "using column unqualified resolves to the left table",
			sql:    "SELECT dept_id, dept_name FROM employees JOIN depts USING (dept_id)",
			fields: []string{"depts.dept_id:join", "depts.dept_name:select", "employees.dept_id:select,join"}},
		{name: "chained USING without schema follows the merge", noSch: true,
			sql:    "SELECT film_id FROM category JOIN film_category USING (category_id) JOIN film USING (film_id) JOIN inventory USING (film_id)",
			fields: []string{"?.film_id:join", "category.category_id:join", "film.film_id:select,join", "film_category.category_id:join", "inventory.film_id:join"},
			amb:    []string{"?.film_id"}},
		{name: "chained USING with schema", schema: Schema{"a": {"id", "x"}, "b": {"id", "y"}, "c": {"id", "z"}},
			sql:    "SELECT id, z FROM a JOIN b USING (id) JOIN c USING (id)",
			fields: []string{"a.id:select,join", "b.id:join", "c.id:join", "c.z:select"}},
		{name: "natural join merges common columns", sql: "SELECT dept_name FROM employees NATURAL JOIN depts",
			fields: []string{"depts.dept_id:join", "depts.dept_name:select", "employees.dept_id:join"}},
		{name: "natural join with no schema is ambiguous for shared names", noSch: true,
			sql:    "SELECT x FROM a NATURAL JOIN b",
			fields: []string{"?.x:select"}, amb: []string{"?.x"}},
		{name: "comma join with where equality", sql: "SELECT c.name FROM customers c, orders o WHERE c.id = o.customer_id AND o.status = 'paid'",
			fields: []string{"customers.id:where,join", "customers.name:select", "orders.customer_id:where,join", "orders.status:where"}},
		{name: "cte", sql: "WITH paid AS (SELECT customer_id, amount FROM orders WHERE status = 'paid') SELECT customer_id, sum(amount) FROM paid GROUP BY customer_id",
			fields: []string{"orders.amount:select,aggregate", "orders.customer_id:select,group", "orders.status:where"}},
		{name: "cte with column list", sql: "WITH t(cid, total) AS (SELECT customer_id, amount FROM orders) SELECT cid FROM t WHERE total > 10",
			fields: []string{"orders.amount:select,where", "orders.customer_id:select"}},
		{name: "cte alias of computed column is not a table column",
			sql:    "WITH t AS (SELECT customer_id, count(*) AS n FROM orders GROUP BY customer_id) SELECT customer_id FROM t WHERE n > 2",
			fields: []string{"orders.customer_id:select,group"}},
		{name: "two ctes chained", sql: "WITH a AS (SELECT id, region FROM customers), b AS (SELECT id FROM a WHERE region = 'EU') SELECT count(*) FROM b",
			fields: []string{"customers.id:select", "customers.region:select,where"}},
		{name: "recursive cte", sql: `WITH RECURSIVE chain AS (
				SELECT id, manager_id, 1 AS depth FROM employees WHERE id = 7
				UNION ALL
				SELECT e.id, e.manager_id, c.depth + 1 FROM employees e JOIN chain c ON e.id = c.manager_id)
			SELECT id, depth FROM chain`,
			fields: []string{"employees.id:select,where,join", "employees.manager_id:select,join"}},
		{name: "subquery in from", sql: "SELECT s.total FROM (SELECT customer_id, sum(amount) AS total FROM orders GROUP BY customer_id) s WHERE s.customer_id = 3",
			fields: []string{"orders.amount:select,aggregate", "orders.customer_id:select,where,group"}},
		{name: "subquery in from without alias (SQLite)", noSch: true,
			sql:    "SELECT date FROM (SELECT t2.date, t2.crossing FROM player t2 ORDER BY t2.crossing DESC) ORDER BY date DESC LIMIT 1",
			fields: []string{"player.crossing:select,order", "player.date:select,order"}},
		{name: "nested subqueries in from", sql: "SELECT x.n FROM (SELECT y.name AS n FROM (SELECT name FROM products WHERE price > 5) y) x",
			fields: []string{"products.name:select", "products.price:where"}},
		{name: "in subquery in where", sql: "SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE status = 'paid')",
			fields: []string{"customers.id:where", "customers.name:select", "orders.customer_id:select", "orders.status:where"}},
		{name: "not in subquery", noSch: true, sql: "SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM singer_in_concert)",
			fields: []string{"singer.name:select", "singer.singer_id:where", "singer_in_concert.singer_id:select"}},
		{name: "scalar subquery in select", sql: "SELECT c.name, (SELECT count(*) FROM orders o WHERE o.customer_id = c.id) AS n FROM customers c",
			fields: []string{"customers.id:where,join", "customers.name:select", "orders.customer_id:where,join"}},
		{name: "correlated exists", sql: "SELECT c.name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.amount > 100)",
			fields: []string{"customers.id:where,join", "customers.name:select", "orders.amount:where", "orders.customer_id:where,join"}},
		{name: "correlated unqualified resolves outward by schema",
			sql:    "SELECT name FROM customers WHERE EXISTS (SELECT 1 FROM subscriptions WHERE customer_id = id AND subscription_status = 'ACTIVE')",
			fields: []string{"customers.name:select", "subscriptions.customer_id:where", "subscriptions.id:where", "subscriptions.subscription_status:where"}},
		{name: "scalar subquery compared in where", noSch: true, sql: "SELECT name FROM products WHERE price > (SELECT avg(price) FROM products)",
			fields: []string{"products.name:select", "products.price:where,aggregate"}},
		{name: "window partition and order", sql: "SELECT name, rank() OVER (PARTITION BY dept_id ORDER BY salary DESC) FROM employees",
			fields: []string{"employees.dept_id:group", "employees.name:select", "employees.salary:order"}},
		{name: "window aggregate", sql: "SELECT id, sum(amount) OVER (PARTITION BY customer_id ORDER BY created_at) FROM orders",
			fields: []string{"orders.amount:aggregate", "orders.created_at:order", "orders.customer_id:group", "orders.id:select"}},
		{name: "named window", sql: "SELECT id, row_number() OVER w FROM orders WINDOW w AS (PARTITION BY customer_id ORDER BY id)",
			fields: []string{"orders.customer_id:group", "orders.id:select,order"}},
		{name: "quoted identifiers", sql: `SELECT "c"."Name" FROM "Customers" AS "c" WHERE "c"."Region" = 'EU'`,
			fields: []string{"customers.name:select", "customers.region:where"}},
		{name: "backtick identifiers with spaces", noSch: true, sql: "SELECT T2.`School Name` FROM frpm AS T2 WHERE T2.`Enrollment (K-12)` > 500",
			fields: []string{"frpm.enrollment (k-12):where", "frpm.school name:select"}},
		{name: "bracket identifiers", noSch: true, sql: "SELECT [Order Id], t.[Total Due] FROM [Sales Orders] AS t",
			fields: []string{"sales orders.order id:select", "sales orders.total due:select"}},
		{name: "schema-qualified table and column", sql: "SELECT public.orders.amount FROM public.orders WHERE public.orders.status = 'paid'",
			fields: []string{"orders.amount:select", "orders.status:where"}},
		{name: "db.schema.table (Snowflake)", noSch: true, sql: `SELECT t."tree_count" FROM "USFS_FIA"."PUBLIC"."TREES" t WHERE t."state" = 'CA'`,
			fields: []string{"trees.state:where", "trees.tree_count:select"}},
		{name: "distinct on", sql: "SELECT DISTINCT ON (customer_id) customer_id, amount FROM orders ORDER BY customer_id, created_at DESC",
			fields: []string{"orders.amount:select", "orders.created_at:order", "orders.customer_id:select,group,order"}},
		{name: "lateral join", sql: "SELECT c.name, o.amount FROM customers c CROSS JOIN LATERAL (SELECT amount FROM orders WHERE orders.customer_id = c.id ORDER BY created_at DESC LIMIT 1) o",
			fields: []string{"customers.id:where,join", "customers.name:select", "orders.amount:select", "orders.created_at:order", "orders.customer_id:where,join"}},
		{name: "union", sql: "SELECT name FROM customers WHERE region = 'EU' UNION SELECT name FROM products ORDER BY name",
			fields: []string{"customers.name:select,order", "customers.region:where", "products.name:select,order"}},
		{name: "intersect and except", noSch: true, sql: "SELECT a FROM t1 INTERSECT SELECT b FROM t2 EXCEPT SELECT c FROM t3",
			fields: []string{"t1.a:select", "t2.b:select", "t3.c:select"}},
		{name: "group by ordinal", sql: "SELECT region, count(*) FROM customers GROUP BY 1 ORDER BY 2 DESC",
			fields: []string{"customers.region:select,group"}},
		{name: "order by select alias", sql: "SELECT region AS r, count(*) AS n FROM customers GROUP BY r ORDER BY n DESC",
			fields: []string{"customers.region:select,group"}},
		{name: "having", sql: "SELECT customer_id FROM orders GROUP BY customer_id HAVING sum(amount) > 100",
			fields: []string{"orders.amount:where,aggregate", "orders.customer_id:select,group"}},
		{name: "order by expression reads input columns before aliases", sql: "SELECT amount AS id, id AS amount FROM orders ORDER BY id + 0",
			fields: []string{"orders.amount:select", "orders.id:select,order"}},
		{name: "group by alias without schema", noSch: true, sql: "SELECT name AS n, count(*) FROM singer GROUP BY n",
			fields: []string{"singer.name:select,group"}},
		{name: "having on select alias (SQLite)", sql: "SELECT customer_id, count(*) AS cnt FROM orders GROUP BY customer_id HAVING cnt > 1",
			fields: []string{"orders.customer_id:select,group"}},
		{name: "case", sql: "SELECT CASE WHEN amount > 100 THEN 'big' ELSE status END FROM orders",
			fields: []string{"orders.amount:select", "orders.status:select"}},
		{name: "sum of case (BIRD)", sql: "SELECT SUM(CASE WHEN o.status = 'paid' THEN o.amount ELSE 0 END) FROM orders o",
			fields: []string{"orders.amount:aggregate", "orders.status:aggregate"}},
		{name: "iif and strftime (SQLite functions)", sql: "SELECT SUM(IIF(region = 'EU', 1, 0)) FROM customers WHERE STRFTIME('%Y', created_at) = '2024'",
			fields: []string{"customers.created_at:where", "customers.region:aggregate"}},
		{name: "casts", sql: "SELECT CAST(amount AS REAL) / 100, id::text FROM orders WHERE created_at::date = '2024-01-01'",
			fields: []string{"orders.amount:select", "orders.created_at:where", "orders.id:select"}},
		{name: "json operators", sql: "SELECT attrs->>'color' FROM products WHERE attrs @> '{\"size\":\"L\"}' AND (attrs->'dims'->>'w')::int > 3",
			fields: []string{"products.attrs:select,where"}},
		{name: "count star is no field", sql: "SELECT count(*) FROM orders",
			fields: []string{}},
		{name: "star is no field", sql: "SELECT * FROM orders WHERE status = 'paid'",
			fields: []string{"orders.status:where"}},
		{name: "qualified star is no field", sql: "SELECT o.*, c.name FROM orders o JOIN customers c ON c.id = o.customer_id",
			fields: []string{"customers.id:join", "customers.name:select", "orders.customer_id:join"}},
		{name: "star through subquery keeps lineage", sql: "SELECT s.amount FROM (SELECT * FROM orders) s WHERE s.status = 'x'",
			fields: []string{"orders.amount:select", "orders.status:where"}},
		{name: "count distinct", sql: "SELECT count(DISTINCT customer_id) FROM orders",
			fields: []string{"orders.customer_id:aggregate"}},
		{name: "aggregate in order by", sql: "SELECT customer_id FROM orders GROUP BY customer_id ORDER BY sum(amount) DESC LIMIT 1",
			fields: []string{"orders.amount:order,aggregate", "orders.customer_id:select,group"}},
		{name: "aggregate filter", sql: "SELECT count(*) FILTER (WHERE status = 'paid') FROM orders",
			fields: []string{"orders.status:where"}},
		{name: "between, like, in, is null", sql: "SELECT id FROM orders WHERE amount BETWEEN 1 AND 5 AND status LIKE 'p%' AND customer_id IN (1,2) AND product_id IS NOT NULL",
			fields: []string{"orders.amount:where", "orders.customer_id:where", "orders.id:select", "orders.product_id:where", "orders.status:where"}},
		{name: "insert select", sql: "INSERT INTO archive (id, amount) SELECT id, amount FROM orders WHERE status = 'old'",
			fields: []string{"archive.amount:select", "archive.id:select", "orders.amount:select", "orders.id:select", "orders.status:where"}},
		{name: "insert values", sql: "INSERT INTO orders (id, status) VALUES (1, 'new')",
			fields: []string{"orders.id:select", "orders.status:select"}},
		{name: "update with where", sql: "UPDATE orders SET status = 'void' WHERE amount < 0",
			fields: []string{"orders.amount:where", "orders.status:select"}},
		{name: "update from", sql: "UPDATE orders o SET amount = p.price FROM products p WHERE p.id = o.product_id",
			fields: []string{"orders.amount:select", "orders.product_id:where,join", "products.id:where,join", "products.price:select"}},
		{name: "delete with where", sql: "DELETE FROM customers WHERE is_active = false AND created_at < '2020-01-01'",
			fields: []string{"customers.created_at:where", "customers.is_active:where"}},
		{name: "delete using", sql: "DELETE FROM orders o USING customers c WHERE o.customer_id = c.id AND c.region = 'X'",
			fields: []string{"customers.id:where,join", "customers.region:where", "orders.customer_id:where,join"}},
		{name: "join without on (SQLite cross join)", noSch: true,
			sql:    "SELECT DISTINCT T1.first_name FROM Professionals AS T1 JOIN Treatments AS T2 WHERE T2.cost > 5",
			fields: []string{"professionals.first_name:select", "treatments.cost:where"}},
		{name: "limit offset comma (MySQL)", sql: "SELECT name FROM customers ORDER BY created_at DESC LIMIT 9, 2",
			fields: []string{"customers.created_at:order", "customers.name:select"}},
		{name: "string alias (SQLite)", sql: "SELECT count(*) AS 'number of orders', status FROM orders GROUP BY status",
			fields: []string{"orders.status:select,group"}},
		{name: "double-quoted string that names no column (SQLite)",
			sql:    `SELECT CASE WHEN amount > 5 THEN "Big" END AS size FROM orders WHERE status = "paid"`,
			fields: []string{"orders.amount:select", "orders.status:where"}},
		{name: "double-quoted column still a column", sql: `SELECT "status" FROM orders`,
			fields: []string{"orders.status:select"}},
		{name: "unknown column of a described table is ambiguous", sql: "SELECT colour FROM products",
			fields: []string{"?.colour:select"}, amb: []string{"?.colour"}},
		{name: "function in from", noSch: true, sql: "SELECT g, t.x FROM generate_series(1, 3) AS g, t",
			fields: []string{"t.x:select"}},
		{name: "join alias column list", sql: "SELECT s.a FROM (SELECT id, name FROM customers) AS s(a, b)",
			fields: []string{"customers.id:select", "customers.name:select"}},
		{name: "coalesce and nullif", sql: "SELECT coalesce(nullif(email, ''), name) FROM customers",
			fields: []string{"customers.email:select", "customers.name:select"}},
		{name: "two statements merged", sql: "SELECT name FROM customers; SELECT amount FROM orders;",
			fields: []string{"customers.name:select", "orders.amount:select"}},
		{name: "BigQuery backtick path", noSch: true, sql: "SELECT t.word FROM `bigquery-public-data.samples.shakespeare` AS t WHERE t.corpus = 'hamlet'",
			fields: []string{"shakespeare.corpus:where", "shakespeare.word:select"}},
		{name: "SQL Server TOP", sql: "SELECT TOP 5 name FROM customers ORDER BY created_at",
			fields: []string{"customers.created_at:order", "customers.name:select"}},
		{name: "MySQL interval and regexp", sql: "SELECT id FROM orders WHERE created_at > DATE_SUB(NOW(), INTERVAL 30 DAY) AND status REGEXP '^pa'",
			fields: []string{"orders.created_at:where", "orders.id:select", "orders.status:where"}},
		{name: "Snowflake QUALIFY and DATEADD", noSch: true,
			sql:    "SELECT id, ROW_NUMBER() OVER (PARTITION BY cust ORDER BY ts DESC) AS rn FROM events WHERE ts > DATEADD(day, -7, CURRENT_DATE) QUALIFY rn = 1",
			fields: []string{"events.cust:group", "events.id:select", "events.ts:where,order"}},
		{name: "markdown fence", sql: "```sql\nSELECT name FROM customers\n```",
			fields: []string{"customers.name:select"}},
		{name: "explain", sql: "EXPLAIN SELECT name FROM customers WHERE id = 1",
			fields: []string{"customers.id:where", "customers.name:select"}},
		{name: "multiple join chain with aliases T1..T3", sql: "SELECT T3.name FROM customers AS T1 JOIN orders AS T2 ON T1.id = T2.customer_id JOIN products AS T3 ON T2.product_id = T3.id WHERE T1.region = 'EU'",
			fields: []string{"customers.id:join", "customers.region:where", "orders.customer_id:join", "orders.product_id:join", "products.id:join", "products.name:select"}},
	}
	if len(tests) < 60 {
		t.Fatalf("only %d shapes", len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := shopSchema
			if tc.noSch {
				schema = nil
			} else if tc.schema != nil {
				schema = tc.schema
			}
			a := AnalyzeSQL(tc.sql, schema)
			if a.Err != "" {
				t.Fatalf("unparsed: %s", a.Err)
			}
			if got := fieldList(a.Fields); !reflect.DeepEqual(got, tc.fields) {
				t.Errorf("fields\n got %q\nwant %q", got, tc.fields)
			}
			amb := a.Ambiguous
			if amb == nil {
				amb = []string{}
			}
			want := tc.amb
			if want == nil {
				want = []string{}
			}
			if !reflect.DeepEqual(amb, want) {
				t.Errorf("ambiguous: got %q, want %q", amb, want)
			}
		})
	}
}

func TestAnalyzeSQLDetails(t *testing.T) {
	tests := []struct {
		name  string
		sql   string
		check func(t *testing.T, a *SQLAnalysis)
	}{
		{"tables are real tables only, sorted", "WITH x AS (SELECT id FROM orders) SELECT * FROM x JOIN public.customers c ON c.id = x.id",
			func(t *testing.T, a *SQLAnalysis) {
				if want := []string{"customers", "orders"}; !reflect.DeepEqual(a.Tables, want) {
					t.Errorf("tables %q, want %q", a.Tables, want)
				}
			}},
		{"joins from on, using and where, normalized", `SELECT 1 FROM customers c JOIN orders o ON o.customer_id = c.id
			JOIN order_items USING (product_id), products p WHERE p.id = order_items.product_id`,
			func(t *testing.T, a *SQLAnalysis) {
				want := []Join{
					{"customers.id", "orders.customer_id"},
					{"order_items.product_id", "orders.product_id"},
					{"order_items.product_id", "products.id"},
				}
				if !reflect.DeepEqual(a.Joins, want) {
					t.Errorf("joins %v, want %v", a.Joins, want)
				}
			}},
		{"aggregates", "SELECT count(*), count(id), sum(amount * 2), avg(amount), max(1) FROM orders",
			func(t *testing.T, a *SQLAnalysis) {
				want := []Aggregate{{"avg", "orders.amount"}, {"count", ""}, {"count", "orders.id"}, {"max", ""}, {"sum", "orders.amount"}}
				if !reflect.DeepEqual(a.Aggregates, want) {
					t.Errorf("aggregates %v, want %v", a.Aggregates, want)
				}
			}},
		{"sqlite two-argument max is scalar", "SELECT max(amount, 0) FROM orders",
			func(t *testing.T, a *SQLAnalysis) {
				if len(a.Aggregates) != 0 {
					t.Errorf("aggregates %v, want none", a.Aggregates)
				}
			}},
		{"where predicates normalized", `SELECT 1 FROM customers c JOIN subscriptions s ON s.customer_id = c.id
			WHERE s.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.is_active AND NOT c.email IS NULL
			AND 5 < s.id AND s.period_start >= DATE '2026-04-01' AND c.name LIKE 'A%' AND c.region NOT IN ('X')
			AND s.period_end BETWEEN '2026-01-01' AND '2026-03-31' AND lower(c.region) = 'eu' AND c.id = s.customer_id
			AND (c.region = 'A' OR c.region = 'B') AND NOT c.is_active AND c.region == 'EU' AND c.id IN (SELECT customer_id FROM orders)
			AND c.region = ANY(ARRAY['EU', 'US']) AND c.name <> ALL(ARRAY['x'])
			AND c.email = ANY('{x}'::text[] || ARRAY['y'])`,
			func(t *testing.T, a *SQLAnalysis) {
				want := []Predicate{
					{"subscriptions.subscription_status", "in", []string{"ACTIVE", "PAUSED_BILLING"}},
					{"customers.is_active", "=", []string{"true"}},
					{"customers.email", "is not null", nil},
					{"subscriptions.id", ">", []string{"5"}},
					{"subscriptions.period_start", ">=", []string{"2026-04-01"}},
					{"customers.name", "like", []string{"A%"}},
					{"customers.region", "not in", []string{"X"}},
					{"subscriptions.period_end", "between", []string{"2026-01-01", "2026-03-31"}},
					{"customers.region", "other", nil},
					{"customers.id", "=", []string{"subscriptions.customer_id"}},
					{"customers.region", "in", []string{"A", "B"}},
					{"customers.is_active", "=", []string{"false"}},
					{"customers.region", "=", []string{"EU"}},
					{"customers.id", "in", nil},
					{"customers.region", "in", []string{"EU", "US"}},
					{"customers.name", "not in", []string{"x"}},
					{"customers.email", "other", nil},
				}
				if !reflect.DeepEqual(a.Where, want) {
					t.Errorf("where\n got %v\nwant %v", a.Where, want)
				}
			}},
		{"predicate through a cte column", "WITH x AS (SELECT subscription_status AS st FROM subscriptions) SELECT count(*) FROM x WHERE st = 'ACTIVE'",
			func(t *testing.T, a *SQLAnalysis) {
				want := []Predicate{{"subscriptions.subscription_status", "=", []string{"ACTIVE"}}}
				if !reflect.DeepEqual(a.Where, want) {
					t.Errorf("where %v, want %v", a.Where, want)
				}
			}},
		{"unparsed reports the parser message and no fields", "SELECT FROM WHERE oops(",
			func(t *testing.T, a *SQLAnalysis) {
				if !strings.Contains(a.Err, "syntax error") || len(a.Fields) != 0 {
					t.Errorf("got err %q fields %v", a.Err, a.Fields)
				}
			}},
		{"empty text is an error", "  -- nothing\n",
			func(t *testing.T, a *SQLAnalysis) {
				if a.Err == "" {
					t.Error("want an error for a statement-less text")
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, AnalyzeSQL(tc.sql, shopSchema)) })
	}
}

// Statements with one fingerprint but different constants must not share
// a cached analysis: their predicates and ordinal fields differ.
func TestAnalyzeSQLCacheKeepsConstants(t *testing.T) {
	qa, qb := "SELECT region, name FROM customers WHERE region = 'A' ORDER BY 1", "SELECT region, name FROM customers WHERE region = 'B' ORDER BY 2"
	fa, errA := pg.Fingerprint(qa)
	fb, errB := pg.Fingerprint(qb)
	if errA != nil || errB != nil || fa != fb {
		t.Fatalf("expected one fingerprint, got %s (%v) and %s (%v)", fa, errA, fb, errB)
	}
	a, b := AnalyzeSQL(qa, shopSchema), AnalyzeSQL(qb, shopSchema)
	if a.Where[0].Values[0] != "A" || b.Where[0].Values[0] != "B" {
		t.Errorf("predicates shared across constants: %v / %v", a.Where, b.Where)
	}
	if got := fieldList(b.Fields); !reflect.DeepEqual(got, []string{"customers.name:select,order", "customers.region:select,where"}) {
		t.Errorf("ordinal fields: %q", got)
	}
	// The same text against another schema is another analysis.
	c := AnalyzeSQL("SELECT name FROM customers c JOIN orders o ON o.customer_id = c.id", shopSchema)
	d := AnalyzeSQL("SELECT name FROM customers c JOIN orders o ON o.customer_id = c.id", nil)
	if fieldList(c.Fields)[1] != "customers.name:select" || len(d.Ambiguous) != 1 {
		t.Errorf("schema not part of the cache key: %q / %q", fieldList(c.Fields), d.Ambiguous)
	}
}

func TestAnalyzeSQLConcurrent(t *testing.T) {
	an := NewSQLAnalyzer(shopSchema)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				sql := fmt.Sprintf("SELECT name FROM customers WHERE id = %d", i%7)
				a := an.Analyze(sql)
				if len(a.Fields) != 2 || a.Where[0].Values[0] != fmt.Sprint(i%7) {
					errs <- fmt.Sprintf("goroutine %d: %v", g, a)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestNormalizeDialect(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SELECT `a b` FROM `t`", `SELECT "a b" FROM "t"`},
		{"SELECT [a b] FROM [dbo].[t]", `SELECT "a b" FROM "dbo"."t"`},
		{"SELECT arr[1], ARRAY[1,2] FROM t", "SELECT arr[1], ARRAY[1,2] FROM t"},
		{"SELECT '`x`', \"q\" FROM t -- `c`", "SELECT '`x`', \"q\" FROM t -- `c`"},
		{"SELECT a FROM t LIMIT 9, 2", "SELECT a FROM t LIMIT 2 OFFSET 9"},
		{"SELECT a AS 'x y' FROM t", `SELECT a AS "x y" FROM t`},
		{"SELECT 1 FROM a JOIN b AS T2 WHERE x", "SELECT 1 FROM a JOIN b AS T2 ON TRUE WHERE x"},
		{"SELECT 1 FROM a JOIN b ON a.x = b.x", "SELECT 1 FROM a JOIN b ON a.x = b.x"},
		{"SELECT 1 FROM a CROSS JOIN b WHERE x", "SELECT 1 FROM a CROSS JOIN b WHERE x"},
		{"SELECT 1 FROM a JOIN b", "SELECT 1 FROM a JOIN b ON TRUE"},
		{"SELECT $$it's `x`$$", "SELECT $$it's `x`$$"},
		{"SELECT w FROM `proj.ds.tbl`", `SELECT w FROM "proj"."ds"."tbl"`},
		{"SELECT TOP 10 a FROM t", "SELECT  a FROM t"},
		{"SELECT DISTINCT TOP (5) PERCENT a FROM t", "SELECT DISTINCT  a FROM t"},
		{"SELECT top FROM t", "SELECT top FROM t"},
		{"SELECT DATE_SUB(NOW(), INTERVAL 7 DAY)", "SELECT DATE_SUB(NOW(), INTERVAL '7 DAY')"},
		{"SELECT a FROM t WHERE a REGEXP '^x' AND b NOT RLIKE 'y' AND c GLOB 'z*'", "SELECT a FROM t WHERE a ~ '^x' AND b  !~ 'y' AND c ~ 'z*'"},
		{"SELECT glob, regexp FROM t", "SELECT glob, regexp FROM t"},
		{"SELECT a FROM t QUALIFY rn = 1", "SELECT a FROM t HAVING rn = 1"},
		{"SELECT a FROM t GROUP BY a HAVING count(*) > 1 QUALIFY r = 1", "SELECT a FROM t GROUP BY a HAVING count(*) > 1 AND r = 1"},
		{"SELECT qualify FROM t", "SELECT qualify FROM t"},
		{"SELECT DATEADD(day, -7, d), DATEDIFF(month, a, b), date_part(year, x), DATE_TRUNC(d, MONTH)",
			"SELECT DATEADD('day', -7, d), DATEDIFF('month', a, b), date_part('year', x), DATE_TRUNC(d, 'MONTH')"},
		{"SELECT DATEDIFF(day, other), date_trunc('month', x)", "SELECT DATEDIFF(day, other), date_trunc('month', x)"},
	}
	for _, tc := range tests {
		if got := normalizeDialect(tc.in).sql; got != tc.want {
			t.Errorf("normalizeDialect(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// Text the parser stops at must not pass for a shorter statement.
func TestSQLParserStopsAreUnparsed(t *testing.T) {
	for _, tc := range []struct {
		sql       string
		unparsed  bool
		wantInErr string
	}{
		{"SELECT a, b FROM t WHERE c = 1\x00 AND secret = 2", true, "NUL byte at offset 30"},
		{"SELECT a FROM t; \x00 SELECT secret FROM u", true, "NUL byte"},
		{"SELECT a FROM t WHERE x = 'a\x00b'", true, "NUL byte"},
		{"SELECT a FROM t; -- trailing comment\n;", false, ""},
		{"SELECT a FROM t;\n\n", false, ""},
	} {
		a := AnalyzeSQL(tc.sql, nil)
		if (a.Err != "") != tc.unparsed || !strings.Contains(a.Err, tc.wantInErr) {
			t.Errorf("AnalyzeSQL(%q).Err = %q, want unparsed=%v containing %q", tc.sql, a.Err, tc.unparsed, tc.wantInErr)
		}
		if tc.unparsed && len(a.Fields) > 0 {
			t.Errorf("AnalyzeSQL(%q) reports fields %v from a statement it did not read whole", tc.sql, a.Fields)
		}
	}
	s, _ := NewScorer(Config{})
	args, _ := json.Marshal(map[string]string{"sql": "SELECT sales_region FROM customers\x00 WHERE is_active"})
	tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(classTrace("nul", "u",
		`{"name":"run_sql","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`,
		`{"kind":"tool_call","id":"c1","tool":"run_sql","args":`+string(args)+`},{"kind":"tool_result","call_id":"c1","result":[[1]]},{"kind":"answer","text":"1"}`)))
	if lerr != nil {
		t.Fatal(lerr)
	}
	ts := s.Score(tr, &model.Gold{Answer: json.RawMessage(`1`), RequiredFields: []string{"customers.sales_region"}})
	if !ts.NeedsHumanReview || len(ts.UnparsedSQL) != 1 || len(ts.FieldsUsed) != 0 {
		t.Errorf("NUL SQL: review %v, unparsed %v, fields %v", ts.NeedsHumanReview, ts.UnparsedSQL, ts.FieldsUsed)
	}
}
