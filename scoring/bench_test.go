package scoring

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// benchSQL are statement shapes agents write against a warehouse: joins,
// CTEs, subqueries, windows, date ranges; literals vary per trace so the
// SQL cache does not see the same text twice.
var benchSQL = []string{
	"SELECT COUNT(*) FROM customers WHERE is_active = true AND region_code LIKE '%s%%' AND created_at < '2026-0%d-01'",
	"SELECT COUNT(DISTINCT c.customer_id) AS n FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id WHERE c.subscription_status IN ('ACTIVE','PAUSED_BILLING') AND c.sales_region = '%s' AND s.period_start <= '2026-0%d-30' AND s.period_end >= '2026-04-01'",
	"SELECT customers.name, SUM(orders.total) AS revenue FROM orders JOIN order_lines ON order_lines.order_id = orders.id JOIN customers ON customers.customer_id = orders.customer_id WHERE orders.status = '%s' AND orders.closed_at >= '2026-0%d-01' GROUP BY customers.name ORDER BY revenue DESC LIMIT 10",
	"WITH won AS (SELECT opportunity_id, amount_usd, region, closed_at FROM opportunities WHERE stage = 'closed_won' AND region = '%s') SELECT region, AVG(amount_usd) AS avg_deal, COUNT(*) FROM won WHERE closed_at >= '2026-0%d-01' GROUP BY region",
	"SELECT t.ticket_id, t.subject, t.priority FROM tickets t WHERE t.cust_id_v2 IN (SELECT cust_id_v2 FROM customers WHERE name = '%s') AND t.status IN ('open','pending') AND t.created_at > '2026-0%d-01' ORDER BY t.created_at DESC",
	"SELECT region, stage, SUM(amount_usd) OVER (PARTITION BY region ORDER BY close_date) AS running FROM opportunity_snapshots WHERE snapshot_date = '2026-0%[2]d-01' AND risk_flag AND region = '%[1]s'",
	"SELECT i.invoice_id, SUM(i.amount_cents) / 100.0 AS usd FROM invoices i JOIN customers c ON c.customer_id = i.customer_id WHERE c.sales_region = '%s' AND i.issued_at BETWEEN '2026-0%d-01' AND '2026-08-31' GROUP BY i.invoice_id",
}

var benchRegions = []string{"EMEA", "NA", "APAC", "LATAM", "EU", "Acme Corp", "paid"}

const benchWarehouseTools = `[{"name":"list_tables","description":"List tables.","inputSchema":{"type":"object","properties":{}}},{"name":"describe_table","description":"Columns of a table.","inputSchema":{"type":"object","properties":{"table":{"type":"string"}}}},{"name":"run_sql","description":"Run read-only SQL.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}]`

const benchTaskTools = `[{"name":"active_customer_count","description":"active means subscription_status in (ACTIVE, PAUSED_BILLING) at any point in the period.","inputSchema":{"type":"object","properties":{"region":{"type":"string"},"period":{"type":"string","pattern":"^(FY)?[0-9]{4}-Q[1-4]$"}}},"_meta":{"lineage":{"region":["customers.sales_region"],"period":["subscriptions.period_start","subscriptions.period_end"],"$tool":["customers.subscription_status"]}}},{"name":"list_open_tickets","description":"Open tickets.","inputSchema":{"type":"object","properties":{"customer_id":{"type":"string","pattern":"^C2-[0-9]{6}$"}}}}]`

// benchCorpus builds n traces: two thirds generic SQL traces (list,
// describe, reason, run_sql with a result), one third task-specific tool
// traces, with gold on every other trace.
func benchCorpus(n int) []Job { return benchCorpusTagged(n, "") }

// benchCorpusTagged makes every SQL text unique to tag as well, so a new
// tag means statements the SQL cache has never seen.
func benchCorpusTagged(n int, tag string) []Job {
	r := rand.New(rand.NewPCG(1, 2))
	describe := `{"table":"customers","columns":[{"name":"customer_id"},{"name":"name"},{"name":"status"},{"name":"is_active"},{"name":"region_code"},{"name":"sales_region"},{"name":"subscription_status"},{"name":"created_at"}]}`
	tol, fresh := 0.0, 24.0
	gold := &model.Gold{Answer: json.RawMessage(`1284`), Tolerance: &tol,
		RequiredFields:  []string{"customers.subscription_status", "customers.sales_region", "subscriptions.period_start", "subscriptions.period_end"},
		ForbiddenFields: []string{"customers.is_active", "customers.region_code", "customers.created_at"},
		Definition:      "active = subscription_status in (ACTIVE, PAUSED_BILLING) at any point in the fiscal quarter",
		Window:          &model.Window{Start: "2026-04-01", End: "2026-06-30", Calendar: "fiscal"}, FreshnessBoundHours: &fresh, PolicyScope: "all_regions"}
	jobs := make([]Job, n)
	for i := range jobs {
		var line string
		if i%3 != 2 {
			sql := fmt.Sprintf(benchSQL[r.IntN(len(benchSQL))], benchRegions[r.IntN(len(benchRegions))], 1+r.IntN(9))
			args, _ := json.Marshal(map[string]string{"sql": sql + fmt.Sprintf(" -- t%d%s", i, tag)})
			line = fmt.Sprintf(`{"trace_id":"b%06d","server":"generic-warehouse","run_id":"r1","as_user":"fin.analyst.02","question":"How many active customers did we have in EMEA last quarter?","started_at":"2026-07-03T09:12:00Z","tools":%s,"steps":[`+
				`{"kind":"user","text":"How many active customers did we have in EMEA last quarter?"},`+
				`{"kind":"tool_call","id":"c1","tool":"describe_table","args":{"table":"customers"},"credential":"fin.analyst.02"},`+
				`{"kind":"tool_result","call_id":"c1","result":%s,"as_of":"2026-07-03T08:00:00Z"},`+
				`{"kind":"reasoning","text":"is_active sounds like the right flag. region_code probably starts with EU for EMEA. I will filter on both."},`+
				`{"kind":"tool_call","id":"c2","tool":"run_sql","args":%s,"credential":"fin.analyst.02"},`+
				`{"kind":"tool_result","call_id":"c2","result":{"columns":["region","n"],"rows":[["EMEA",%d],["NA",12]],"row_count":2},"as_of":"2026-07-03T08:00:00Z"},`+
				`{"kind":"answer","text":"1,284 active customers"}],"usage":{"input_tokens":41210,"output_tokens":1880,"usd":0.0912}}`,
				i, benchWarehouseTools, describe, args, r.IntN(5000))
		} else {
			line = fmt.Sprintf(`{"trace_id":"b%06d","server":"task-specific","run_id":"r1","as_user":"fin.analyst.02","question":"How many active customers did we have in EMEA last quarter?","started_at":"2026-07-03T09:14:00Z","tools":%s,"steps":[`+
				`{"kind":"tool_call","id":"c1","tool":"active_customer_count","args":{"region":"EMEA","period":"2026-Q%d"},"credential":"fin.analyst.02"},`+
				`{"kind":"tool_result","call_id":"c1","result":{"count":1284,"region":"EMEA"},"as_of":"2026-07-03T09:00:00Z"},`+
				`{"kind":"tool_call","id":"c2","tool":"list_open_tickets","args":{"customer_id":"ACC-%05d"},"credential":"fin.analyst.02"},`+
				`{"kind":"tool_result","call_id":"c2","result":{"columns":["ticket_id"],"rows":[],"next_cursor":"","has_more":false},"as_of":"2026-07-03T09:00:00Z"},`+
				`{"kind":"answer","text":"1,284"}],"usage":{"input_tokens":2210,"output_tokens":240,"usd":0.0061}}`,
				i, benchTaskTools, 1+r.IntN(4), r.IntN(99999))
		}
		var tr model.Trace
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			panic(err)
		}
		// Contracts keep their raw bytes as the importer does, so the
		// _meta lineage is read.
		var raws []json.RawMessage
		var wrap struct {
			Tools []json.RawMessage `json:"tools"`
		}
		_ = json.Unmarshal([]byte(line), &wrap)
		raws = wrap.Tools
		for k := range tr.Tools {
			tr.Tools[k].Raw = raws[k]
		}
		jobs[i].Trace = &tr
		if i%2 == 0 {
			jobs[i].Gold = gold
		}
	}
	return jobs
}

// BenchmarkScore scores a generated corpus of 4,000 traces on a worker pool
// (GOMAXPROCS workers) and prints traces/s and traces per CPU-second.
// Every trace has distinct SQL text; the first pass parses it all, later
// passes find it in the SQL cache (rescoring after a gold edit).
func BenchmarkScore(b *testing.B) {
	const n = 4000
	jobs := benchCorpus(n)
	s, err := NewScorer(Config{})
	if err != nil {
		b.Fatal(err)
	}
	cpu0 := cpuSeconds()
	for b.Loop() {
		out := s.ScoreAll(jobs, 0)
		if len(out) != n {
			b.Fatalf("%d scores", len(out))
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "traces/s")
	b.ReportMetric(float64(n*b.N)/(cpuSeconds()-cpu0), "traces/cpu-s")
}

// BenchmarkScoreCold scores a fresh corpus of the same shapes for every
// iteration, with SQL texts no iteration has seen: every statement is
// parsed by pg_query, none is served from the cache.
func BenchmarkScoreCold(b *testing.B) {
	const n = 2000
	s, err := NewScorer(Config{})
	if err != nil {
		b.Fatal(err)
	}
	var scored int
	var cpu float64
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		jobs := benchCorpusTagged(n, fmt.Sprintf(" cold%d", i))
		b.StartTimer()
		cpu0 := cpuSeconds()
		s.ScoreAll(jobs, 0)
		cpu += cpuSeconds() - cpu0
		scored += n
	}
	b.ReportMetric(float64(scored)/b.Elapsed().Seconds(), "traces/s")
	b.ReportMetric(float64(scored)/cpu, "traces/cpu-s")
}

// cpuSeconds is the user+system CPU time of the process so far: on a
// shared machine, traces per CPU-second is steadier than wall-clock rate.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func TestBenchCorpusScores(t *testing.T) {
	jobs := benchCorpus(30)
	s, _ := NewScorer(Config{})
	out := s.ScoreAll(jobs, 3)
	for i, ts := range out {
		if ts.TraceID != jobs[i].Trace.TraceID {
			t.Fatalf("ScoreAll out of order at %d", i)
		}
		if len(ts.UnparsedSQL) > 0 {
			t.Errorf("%s: generated SQL did not parse: %v", ts.TraceID, ts.UnparsedSQL)
		}
	}
}
