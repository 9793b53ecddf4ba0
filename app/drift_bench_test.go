package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/store"
)

// benchDriftStore generates n traces of two servers over three runs, each
// given ten tools; in run r3 two tools change (one gains a required input,
// one a description). Every fifth trace has a confirmed case.
func benchDriftStore(b *testing.B, n int) *store.Store {
	b.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	tool := func(i int, run string) string {
		req, desc := `["id"]`, fmt.Sprintf("Tool %d", i)
		if run == "r3" && i == 0 {
			req = `["id","region"]`
		}
		if run == "r3" && i == 1 {
			desc += ", now stricter"
		}
		return fmt.Sprintf(`{"name":"tool_%d","description":%q,"inputSchema":{"type":"object","properties":{"id":{"type":"string"},"region":{"type":"string"}},"required":%s}}`, i, desc, req)
	}
	var traces, cases strings.Builder
	start := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		server := []string{"alpha", "beta"}[i%2]
		run := []string{"r1", "r2", "r3"}[i*3/n]
		tools := make([]string, 10)
		for k := range tools {
			tools[k] = tool(k, run)
		}
		fmt.Fprintf(&traces, `{"trace_id":"t%06d","server":%q,"run_id":%q,"question":"q%d","started_at":%q,"tools":[%s],"steps":[{"kind":"tool_call","id":"c1","tool":"tool_%d","args":{"id":"X%d"}},{"kind":"tool_result","call_id":"c1","result":{"ok":true}},{"kind":"answer","text":"a"}]}`+"\n",
			i, server, run, i, start.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), strings.Join(tools, ","), i%10, i)
		if i%5 == 0 {
			fmt.Fprintf(&cases, `{"case_id":"k%06d","source_trace":"t%06d","user_role":"r","as_user":"u","question":"q%d","gold":{"answer":1,"tolerance":null,"required_fields":[],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":true,"grounded":true,"failure_class":null,"note":""},"cost":{"input_tokens":0,"output_tokens":0,"tool_calls":0,"turns":0,"usd":0}}`+"\n", i, i, i)
		}
	}
	for name, body := range map[string]string{"traces.jsonl": traces.String(), "cases.jsonl": cases.String()} {
		if _, err := importInto(ctx, st, nil, strings.NewReader(body), name, ImportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := fillSemantic(ctx, st); err != nil {
		b.Fatal(err)
	}
	return st
}

func BenchmarkDriftAcrossRuns(b *testing.B) {
	for _, n := range []int{3000, 30000} {
		b.Run(fmt.Sprintf("traces=%d", n), func(b *testing.B) {
			st := benchDriftStore(b, n)
			ctx := context.Background()
			b.ResetTimer()
			var changes, cases int
			for b.Loop() {
				ov, err := driftAcrossRuns(ctx, st)
				if err != nil {
					b.Fatal(err)
				}
				changes, cases = len(ov.Changes), 0
				for _, c := range ov.Changes {
					cases += len(c.Cases)
				}
			}
			b.ReportMetric(float64(changes), "changes")
			b.ReportMetric(float64(cases), "affected")
		})
	}
}

func BenchmarkVerifyAndHistory(b *testing.B) {
	st := benchDriftStore(b, 30000)
	ctx := context.Background()
	r1, err := loadRun(ctx, st, DBSource{Server: "alpha", Run: "r1"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := approveListing(ctx, st, "", "bench", "bench", r1.Tools); err != nil {
		b.Fatal(err)
	}
	b.Run("verify", func(b *testing.B) {
		var traces int
		for b.Loop() {
			un, err := verify(ctx, st, "")
			if err != nil {
				b.Fatal(err)
			}
			traces = 0
			for _, u := range un {
				traces += len(u.Traces)
			}
		}
		b.ReportMetric(float64(traces), "unapproved-uses")
	})
	b.Run("history", func(b *testing.B) {
		var rows int
		for b.Loop() {
			h, err := st.ContractHistory(ctx, "")
			if err != nil {
				b.Fatal(err)
			}
			rows = len(h)
		}
		b.ReportMetric(float64(rows), "contracts")
	})
}
