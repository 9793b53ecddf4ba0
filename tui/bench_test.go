package tui

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/store"
)

// The benchmarks run on a generated database of 100,000 traces and
// 1,000,000 steps, built once with direct inserts and cached under
// os.TempDir() (delete tracelab-bench-*.db to rebuild). Figures are
// reported with b.ReportMetric; nothing here asserts a duration.
//
//	go test ./tui -run '^$' -bench . -benchtime 1x

const (
	benchTraces        = 100_000
	benchStepsPerTrace = 10
	benchVersion       = 4 // bump when the generated content changes
)

var benchDB string

func benchStore(b *testing.B) *app.Engine {
	b.Helper()
	if benchDB == "" {
		benchDB = filepath.Join(os.TempDir(), fmt.Sprintf("tracelab-bench-%dk-v%d.db", benchTraces/1000, benchVersion))
		if _, err := os.Stat(benchDB); err != nil {
			start := time.Now()
			if err := generateBenchDB(benchDB + ".tmp"); err != nil {
				b.Fatal(err)
			}
			for _, suffix := range []string{"-wal", "-shm"} {
				os.Remove(benchDB + ".tmp" + suffix)
			}
			if err := os.Rename(benchDB+".tmp", benchDB); err != nil {
				b.Fatal(err)
			}
			b.Logf("generated %s in %s", benchDB, time.Since(start).Round(time.Second))
		}
	}
	return openBenchEngine(b, benchDB)
}

// openBenchEngine opens an engine on a benchmark database file.
func openBenchEngine(b *testing.B, path string) *app.Engine {
	b.Helper()
	eng, err := app.Open(context.Background(), path, app.Files{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() })
	return eng
}

// generateBenchDB writes traces shaped like the sample data: a question,
// reasoning with a guess marker now and then, SQL calls and results; one
// in ten traces has a confirmed case, every trace a score.
func generateBenchDB(path string) error {
	ctx := context.Background()
	os.Remove(path)
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	// Rows go in directly, beside the store (which has migrated the file).
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	servers := []string{"generic-warehouse", "task-specific", "support-crm"}
	roles := []string{"finance_analyst", "revops_analyst", "support_agent", "sales_manager"}
	outcomes := []string{"pass", "pass", "pass", "retry", "clarification", "failure"}
	questions := []string{
		"How many active customers did we have in %s last quarter?",
		"What was revenue in %s in Q%d?",
		"Which deals are closing this month in %s?",
		"What are the open tickets for account %d?",
	}
	regions := []string{"EMEA", "North America", "APAC", "LATAM"}
	const batch = 5000
	for lo := 0; lo < benchTraces; lo += batch {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		insT, _ := tx.PrepareContext(ctx, `INSERT INTO traces (id, trace_id, server, run_id, user_role, as_user, question,
			started_at, outcome, answer, input_tokens, output_tokens, usd, step_count, tool_calls, turns, content_sha,
			source_file, source_format, source_line, imported_at, question_key) VALUES (?, ?, ?, 'r1', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?,
			'bench.jsonl', 'native', ?, '2026-08-20T09:00:00Z', ?)`)
		insS, _ := tx.PrepareContext(ctx, `INSERT INTO steps (trace_pk, idx, kind, tool) VALUES (?, ?, ?, ?)`)
		// A step body as store/stepbody.go reads it, written with encoding/json.
		insB, _ := tx.PrepareContext(ctx, `INSERT INTO step_bodies (trace_pk, body) VALUES (?, ?)`)
		insC, _ := tx.PrepareContext(ctx, `INSERT INTO cases (case_id, trace_pk, source_trace, user_role, as_user, question,
			gold, label, cost, status, gold_origin, content_sha, updated_by, updated_at, confirmed_by, confirmed_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, '{}', 'confirmed', 'human', '', 'bench', '2026-08-20T09:00:00Z', 'bench', '2026-08-20T09:00:00Z')`)
		insSc, _ := tx.PrepareContext(ctx, `INSERT INTO scores (trace_pk, suggested_class, markers, needs_review, detail)
			VALUES (?, ?, ?, ?, ?)`)
		insSs, _ := tx.PrepareContext(ctx, `INSERT INTO score_state (trace_pk, scored_at) VALUES (?, '2026-08-20T09:00:00Z')`)
		for i := lo; i < lo+batch; i++ {
			pk := int64(i + 1)
			id := fmt.Sprintf("trace_%06x", i*2654435761%(1<<24))
			id += "_" + strconv.Itoa(i)
			region := regions[i%len(regions)]
			q := fmt.Sprintf(questions[i%len(questions)], region, i%4+1)
			if strings.Contains(questions[i%len(questions)], "account %d") {
				q = fmt.Sprintf(questions[i%len(questions)], i)
			}
			user := fmt.Sprintf("user.%03d", i%500)
			role := roles[i%len(roles)]
			if _, err := insT.ExecContext(ctx, pk, id, servers[i%len(servers)], role, user, q,
				time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*time.Minute).Format(time.RFC3339),
				outcomes[i%len(outcomes)], "1,284", 40000+i%1000, 1800, 0.09, benchStepsPerTrace, 4, fmt.Sprintf("%064x", i), i+1,
				store.QuestionKey(q)); err != nil {
				return err
			}
			var markers []map[string]any
			var body [][]any
			for s := 0; s < benchStepsPerTrace; s++ {
				var kind, text, tool, callID, stepID, args, result, asOf string
				switch {
				case s == 0:
					kind, text = "user", q
				case s%4 == 1:
					kind, text = "reasoning", "The status column sounds like the right flag; region_code probably starts with EU. I will filter on both and count."
					if i%3 == 0 {
						markers = append(markers, map[string]any{"step": s, "start": 22, "end": 33, "text": "sounds like"})
					}
				case s%4 == 2:
					kind, tool, stepID = "tool_call", "run_sql", fmt.Sprintf("c%d", s)
					args = fmt.Sprintf(`{"sql":"SELECT COUNT(*) FROM customers c WHERE c.is_active = true AND c.region_code LIKE 'EU%%' AND c.id > %d"}`, i)
				case s%4 == 3:
					kind, callID = "tool_result", fmt.Sprintf("c%d", s-1)
					result, asOf = `{"columns":["count"],"rows":[[1284]],"row_count":1}`, "2026-07-03T08:00:00Z"
				default:
					kind, text = "answer", "We had 1,284 active customers."
				}
				var a, r any
				if args != "" {
					a = args
				}
				if result != "" {
					r = result
				}
				if _, err := insS.ExecContext(ctx, pk, s, kind, tool); err != nil {
					return err
				}
				body = append(body, []any{kind, stepID, callID, text, tool, a, r, asOf, 0, user, "", 0})
			}
			b, _ := json.Marshal(body)
			if _, err := insB.ExecContext(ctx, pk, string(b)); err != nil {
				return err
			}
			class := []string{"", "semantic", "", "temporal", "entity", "", "structural", "policy"}[i%8]
			detail, _ := json.Marshal(map[string]any{"trace_id": id, "markers": markers, "suggested_class": nilIfEmpty(class),
				"fields_used": []map[string]any{{"field": "customers.is_active", "status": "forbidden", "steps": []int{2}}}})
			if _, err := insSc.ExecContext(ctx, pk, class, len(markers), i%7 == 0, string(detail)); err != nil {
				return err
			}
			if _, err := insSs.ExecContext(ctx, pk); err != nil {
				return err
			}
			if i%10 == 0 {
				label := `{"correct":true,"grounded":false,"failure_class":"semantic","note":""}`
				if _, err := insC.ExecContext(ctx, "case-"+id, pk, id, role, user, q, `{"required_fields":[],"forbidden_fields":[]}`, label); err != nil {
					return err
				}
			}
		}
		insT.Close()
		insS.Close()
		insB.Close()
		insC.Close()
		insSc.Close()
		insSs.Close()
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	_, err = db.ExecContext(ctx, "ANALYZE")
	return err
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// benchDriver is the synchronous driver without a testing.T (commands run
// outside the timed part).
func newBenchDriver(b *testing.B, st *app.Engine, w, h int) *driver {
	b.Helper()
	return newDriver(b, st, w, h)
}

// timeKeys sends keys and returns the Update+View time of each; the
// commands a key returns (store reads) run afterwards, untimed, as they
// would on Bubble Tea's command goroutines.
func timeKeys(d *driver, keys []string) []time.Duration {
	out := make([]time.Duration, 0, len(keys))
	for _, k := range keys {
		msg := keyMsg(k)
		start := time.Now()
		nm, cmd := d.m.Update(msg)
		d.m = nm.(*Model)
		_ = d.m.View()
		out = append(out, time.Since(start))
		d.run(cmd)
	}
	return out
}

func reportPercentiles(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	pct := func(p float64) float64 {
		i := int(float64(len(ds)-1) * p)
		return float64(ds[i].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
	b.ReportMetric(float64(len(ds)), "keys")
}

// BenchmarkFirstFrame: from New to a drawn queue with its first page, and
// to the full header (counts per class and status over every trace).
func BenchmarkFirstFrame(b *testing.B) {
	st := benchStore(b)
	b.ResetTimer()
	var page, full time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		m := New(st, Options{Labeler: "bench", Theme: "dark"})
		nm, _ := m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
		m = nm.(*Model)
		q := m.queue
		msg := q.loadPage(q.query(nil), q.seq, false, "")()
		nm, _ = m.Update(msg)
		m = nm.(*Model)
		v := m.View().Content
		page += time.Since(start)
		if !strings.Contains(v, "trace_") {
			b.Fatalf("first frame has no rows:\n%s", v)
		}
		nm, _ = m.Update(q.loadCounts()())
		m = nm.(*Model)
		v = m.View().Content
		full += time.Since(start)
		if !strings.Contains(stripStyles(v), "100,000 traces") {
			b.Fatalf("header without counts:\n%s", stripStyles(v))
		}
	}
	b.ReportMetric(float64(page.Microseconds())/1000/float64(b.N), "ms-first-page-frame")
	b.ReportMetric(float64(full.Microseconds())/1000/float64(b.N), "ms-full-header-frame")
}

// BenchmarkQueueKeys: Update+View per navigation key in the queue while
// scrolling 5,000 rows down (pages load as it goes) and back up.
func BenchmarkQueueKeys(b *testing.B) {
	for _, size := range []string{"fixture", "100k"} {
		b.Run(size, func(b *testing.B) {
			var st *app.Engine
			if size == "100k" {
				st = benchStore(b)
			} else {
				st, _ = openFixtureStore(b)
			}
			var all []time.Duration
			for i := 0; i < b.N; i++ {
				d := newBenchDriver(b, st, 160, 48)
				keys := slices.Repeat([]string{"j"}, 5000)
				keys = append(keys, slices.Repeat([]string{"pgdown"}, 50)...)
				keys = append(keys, slices.Repeat([]string{"k"}, 2000)...)
				all = append(all, timeKeys(d, keys)...)
			}
			reportPercentiles(b, all)
		})
	}
}

// BenchmarkTraceKeys: Update+View per key on the trace screen: step
// moves (each new step drawn once, then cached), marker jumps, pane focus.
func BenchmarkTraceKeys(b *testing.B) {
	for _, size := range []string{"fixture", "100k"} {
		b.Run(size, func(b *testing.B) {
			var st *app.Engine
			if size == "100k" {
				st = benchStore(b)
			} else {
				st, _ = openFixtureStore(b)
			}
			var all []time.Duration
			for i := 0; i < b.N; i++ {
				d := newBenchDriver(b, st, 160, 48)
				d.key("enter")
				var keys []string
				for r := 0; r < 50; r++ {
					keys = append(keys, "j", "j", "j", "]", "]", "[", "tab", "j", "tab", "tab", "k", "k", "k", "k", "k", "k")
				}
				all = append(all, timeKeys(d, keys)...)
			}
			reportPercentiles(b, all)
		})
	}
}

// BenchmarkBrowseMemory: resident memory after browsing the 100k database
// (20,000 rows scrolled, 200 traces opened).
func BenchmarkBrowseMemory(b *testing.B) {
	st := benchStore(b)
	for i := 0; i < b.N; i++ {
		d := newBenchDriver(b, st, 160, 48)
		for r := 0; r < 200; r++ {
			d.keys("enter", "j", "]", "esc")
			for j := 0; j < 100; j++ {
				d.key("j")
			}
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
		b.ReportMetric(float64(len(d.m.queue.rows)), "rows-loaded")
	}
	b.ReportMetric(rssMB(), "rss-MB")
}

// rssMB is this process's resident set size (Linux), 0 elsewhere.
func rssMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				kb, _ := strconv.ParseFloat(f[1], 64)
				return kb / 1024
			}
		}
	}
	return 0
}
