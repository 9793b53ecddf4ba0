package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/suite"
)

// benchCheckSQL are the statements the generated warehouse traces run;
// literals vary per trace, as they do in a real run.
var benchCheckSQL = []string{
	"SELECT COUNT(DISTINCT customers.customer_id) AS n FROM customers JOIN subscriptions ON subscriptions.customer_id = customers.customer_id WHERE customers.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND customers.sales_region = '%s' AND subscriptions.period_start <= '2026-06-%02d' AND subscriptions.period_end >= '2026-04-01'",
	"SELECT COUNT(*) FROM customers WHERE customers.is_active = true AND customers.region_code LIKE '%s%%' AND customers.created_at < '2026-07-%02d'",
	"SELECT tickets.ticket_id, tickets.status FROM tickets JOIN customers ON customers.cust_id_v2 = tickets.cust_id_v2 WHERE customers.name = '%s' AND tickets.status IN ('open', 'pending') AND tickets.created_at > '2026-08-%02d'",
}

var benchCheckRegions = []string{"EMEA", "NA", "APAC", "LATAM"}

const benchCheckTools = `[{"name":"describe_table","description":"Columns of a table.","inputSchema":{"type":"object","properties":{"table":{"type":"string"}}}},{"name":"run_sql","description":"Run read-only SQL.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}},{"name":"active_customer_count","description":"active means subscription_status in (ACTIVE, PAUSED_BILLING) at any point in the period.","inputSchema":{"type":"object","properties":{"region":{"type":"string"},"period":{"type":"string"}}},"_meta":{"lineage":{"region":["customers.sales_region"],"period":["subscriptions.period_start","subscriptions.period_end"],"$tool":["customers.subscription_status"]}}}]`

// writeCheckCorpus writes a suite of n cases and n new traces, one per
// case: half name their case in metadata.case_id, half are matched by
// question and as_user; three traces in four are warehouse SQL traces
// (describe, reasoning, run_sql, result), one in four a governed tool call.
func writeCheckCorpus(tb testing.TB, dir string, n int) (suitePath, tracesPath, policyPath string) {
	tb.Helper()
	var tools []model.ToolContract
	if err := json.Unmarshal([]byte(benchCheckTools), &tools); err != nil {
		tb.Fatal(err)
	}
	suitePath, tracesPath, policyPath = filepath.Join(dir, "cases.jsonl"), filepath.Join(dir, "new.jsonl"), filepath.Join(dir, "policy.json")
	sf, _ := os.Create(suitePath)
	tf, _ := os.Create(tracesPath)
	sw, tw := bufio.NewWriter(sf), bufio.NewWriter(tf)
	tol, fresh := 0.0, 24.0
	yes, no := true, false
	users := map[string]string{}
	for i := 0; i < n; i++ {
		region := benchCheckRegions[i%len(benchCheckRegions)]
		id := fmt.Sprintf("bench-%05d", i)
		user := fmt.Sprintf("analyst.%05d", i)
		users[user] = "all_regions"
		q := fmt.Sprintf("How many active customers did we have in %s last quarter (cohort %d)?", region, i)
		c := model.Case{CaseID: id, SourceTrace: "old_" + id, UserRole: "finance_analyst", AsUser: user, Question: q,
			Gold: model.Gold{Answer: json.RawMessage(fmt.Sprint(1000 + i%500)), Tolerance: &tol,
				RequiredFields:      []string{"customers.subscription_status", "customers.sales_region", "subscriptions.period_start", "subscriptions.period_end"},
				ForbiddenFields:     []string{"customers.is_active", "customers.region_code", "customers.created_at"},
				Definition:          "active = subscription_status in (ACTIVE, PAUSED_BILLING) at any point in the fiscal quarter",
				FreshnessBoundHours: &fresh, PolicyScope: "all_regions"},
			Label: model.Label{Correct: &yes, Grounded: &yes}}
		if i%5 == 0 {
			c.Label.Grounded = &no
		}
		line, _ := model.MarshalLine(&c)
		sw.Write(line)

		start := time.Date(2026, 7, 3, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
		tr := model.Trace{TraceID: "new_" + id, Server: "generic-warehouse", RunID: "r3", UserRole: "finance_analyst",
			AsUser: user, Question: q, StartedAt: start.Format(time.RFC3339), Outcome: model.OutcomePass,
			Usage: model.Usage{InputTokens: 40000 + int64(i%1000), OutputTokens: 1800, USD: 0.09}}
		if i%2 == 0 {
			tr.Metadata = map[string]any{"case_id": id}
		}
		asOf := start.Add(-3 * time.Hour).Format(time.RFC3339)
		answer := fmt.Sprint(1000 + i%500)
		if i%4 == 3 {
			tr.Server = "task-specific"
			tr.Tools = tools[2:]
			tr.Steps = []model.Step{
				{Kind: model.KindUser, Text: q},
				{Kind: model.KindToolCall, ID: "c1", Tool: "active_customer_count", Args: json.RawMessage(fmt.Sprintf(`{"region":%q,"period":"2026-Q2"}`, region)), Credential: user},
				{Kind: model.KindToolResult, CallID: "c1", Result: json.RawMessage(fmt.Sprintf(`{"active_customers":%s,"as_of":%q}`, answer, asOf)), AsOf: asOf},
				{Kind: model.KindAnswer, Text: answer},
			}
		} else {
			sql := fmt.Sprintf(benchCheckSQL[i%len(benchCheckSQL)], region, 1+i%28)
			args, _ := json.Marshal(map[string]string{"sql": sql})
			tr.Tools = tools[:2]
			tr.Steps = []model.Step{
				{Kind: model.KindUser, Text: q},
				{Kind: model.KindToolCall, ID: "c1", Tool: "describe_table", Args: json.RawMessage(`{"table":"customers"}`), Credential: user},
				{Kind: model.KindToolResult, CallID: "c1", Result: json.RawMessage(`{"table":"customers","columns":[{"name":"customer_id","type":"bigint"},{"name":"subscription_status","type":"text"},{"name":"sales_region","type":"text"},{"name":"is_active","type":"boolean"}]}`), AsOf: asOf},
				{Kind: model.KindReasoning, Text: "Finance defines active by subscription_status; EMEA is the governed sales_region."},
				{Kind: model.KindToolCall, ID: "c2", Tool: "run_sql", Args: args, Credential: user},
				{Kind: model.KindToolResult, CallID: "c2", Result: json.RawMessage(fmt.Sprintf(`{"columns":["n","region"],"rows":[[%s,%q]],"row_count":1}`, answer, region)), AsOf: asOf},
				{Kind: model.KindAnswer, Text: answer},
			}
		}
		line, err := model.MarshalLine(&tr)
		if err != nil {
			tb.Fatal(err)
		}
		tw.Write(line)
	}
	sw.Flush()
	tw.Flush()
	sf.Close()
	tf.Close()
	pol, _ := json.Marshal(map[string]any{"scopes": map[string]any{"all_regions": map[string]any{}}, "users": users})
	os.WriteFile(policyPath, pol, 0o644)
	return suitePath, tracesPath, policyPath
}

// BenchmarkCheck10k runs the whole check (read the suite, import the new
// traces into a scratch database, score, judge) on 10,000 cases against
// 10,000 new traces, and reports cases per second and seconds per check.
func BenchmarkCheck10k(b *testing.B) { benchmarkCheck(b, nil) }

// benchmarkCheck is BenchmarkCheck10k with prepare applied to the suite
// file first (nil: as writeCheckCorpus writes it).
func benchmarkCheck(b *testing.B, prepare func(testing.TB, string)) {
	const n = 10000
	dir := b.TempDir()
	suitePath, tracesPath, policyPath := writeCheckCorpus(b, dir, n)
	if prepare != nil {
		prepare(b, suitePath)
	}
	in := CheckInput{Suite: suitePath, Traces: []string{tracesPath}, Files: Files{Policy: policyPath}, TempDir: dir}
	ctx := context.Background()
	b.ResetTimer()
	start, cpu0 := time.Now(), benchCPUSeconds()
	var rep CheckReport
	for i := 0; i < b.N; i++ {
		var err error
		if rep, err = RunCheck(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	el := time.Since(start).Seconds() / float64(b.N)
	cpu := (benchCPUSeconds() - cpu0) / float64(b.N)
	b.ReportMetric(n/el, "cases/s")
	b.ReportMetric(el, "s/check")
	// On a shared machine CPU time is steadier than wall time.
	b.ReportMetric(cpu, "cpu-s/check")
	b.ReportMetric(float64(rep.Summary.Regressed), "regressed")
	b.ReportMetric(float64(rep.Summary.Pass), "pass")
	b.ReportMetric(float64(rep.Summary.ContractsChanged), "contracts-changed")
}

// benchCPUSeconds is the user+system CPU time of the process so far.
func benchCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// TestCheckCorpusVerdicts keeps the benchmark honest: on a small corpus
// every case is matched, the ones labeled grounded pass or regress by
// the SQL they ran, and nothing is missing.
func TestCheckCorpusVerdicts(t *testing.T) {
	dir := t.TempDir()
	suitePath, tracesPath, policyPath := writeCheckCorpus(t, dir, 40)
	rep, err := RunCheck(context.Background(), CheckInput{Suite: suitePath, Traces: []string{tracesPath}, Files: Files{Policy: policyPath}, TempDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary
	if s.Cases != 40 || s.Missing != 0 || s.Unmatched != 0 || s.Pass == 0 || s.Regressed == 0 || s.Fixed == 0 {
		t.Fatalf("summary %+v", s)
	}
	for _, c := range rep.Cases {
		if c.Verdict == suite.VerdictRegressed && c.Reason == "" {
			t.Errorf("%s regressed without a reason", c.CaseID)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "tracelab-check-*"))
	if len(left) != 0 {
		t.Errorf("scratch database left behind: %v", left)
	}
}
