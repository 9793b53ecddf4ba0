package importers_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/importers"
)

// writeNativeCorpus writes n traces of 10 steps each (a realistic mix of
// SQL calls, results, reasoning and answers) and returns the path.
func writeNativeCorpus(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "corpus.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, `{"trace_id":"trace_%06x","server":"generic-warehouse","run_id":"r1","user_role":"finance_analyst","as_user":"fin.analyst.%02d","question":"How many active customers did we have in region %d last quarter?","started_at":"2026-07-03T09:12:00Z","outcome":"pass","tools":[{"name":"run_sql","description":"Run a read-only SQL query against the warehouse","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}}],"steps":[`, i, i%50, i%7)
		fmt.Fprintf(w, `{"kind":"user","text":"How many active customers did we have in region %d last quarter?"},`, i%7)
		fmt.Fprint(w, `{"kind":"tool_call","id":"c1","tool":"list_tables","args":{}},{"kind":"tool_result","call_id":"c1","result":{"tables":["customers","subscriptions","orders"]}},`)
		fmt.Fprint(w, `{"kind":"tool_call","id":"c2","tool":"describe_table","args":{"table":"customers"}},{"kind":"tool_result","call_id":"c2","result":{"table":"customers","columns":[{"name":"id","type":"bigint"},{"name":"is_active","type":"boolean"},{"name":"region_code","type":"text"}]}},`)
		fmt.Fprint(w, `{"kind":"reasoning","text":"is_active sounds like the right flag. region_code probably starts with EU for EMEA."},`)
		fmt.Fprintf(w, `{"kind":"tool_call","id":"c3","tool":"run_sql","args":{"sql":"SELECT COUNT(*) FROM customers WHERE is_active = true AND region_code LIKE 'EU%%' AND created_at < '2026-07-01' AND id > %d"},"credential":"svc-warehouse"},`, i)
		fmt.Fprintf(w, `{"kind":"tool_result","call_id":"c3","result":{"columns":["count"],"rows":[[%d]]},"as_of":"2026-07-03T08:00:00Z"},`, 1000+i%500)
		fmt.Fprint(w, `{"kind":"reasoning","text":"The count looks right."},`)
		fmt.Fprintf(w, `{"kind":"answer","text":"%d"}],"usage":{"input_tokens":41210,"output_tokens":1880,"usd":0.0912}}`+"\n", 1000+i%500)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path
}

// BenchmarkImportParse measures the native parser alone.
func BenchmarkImportParse(b *testing.B) {
	path := writeNativeCorpus(b, 10000)
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	b.ResetTimer()
	steps := 0
	for i := 0; i < b.N; i++ {
		f, _ := os.Open(path)
		_, err := importers.Parse(context.Background(), f, path, "", func(r importers.Record) error {
			if r.Trace != nil {
				steps += len(r.Trace.Steps)
			}
			return nil
		})
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkImport measures a whole import into a fresh SQLite store:
// 10,000 traces / 100,000 steps in one transaction.
func BenchmarkImport(b *testing.B) {
	path := writeNativeCorpus(b, 10000)
	steps := 0
	var peak uint64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		eng, err := app.Open(context.Background(), filepath.Join(b.TempDir(), fmt.Sprintf("b%d.db", i)), app.Files{})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()
		stop := sampleHeap(&peak)
		res, err := eng.Imports.File(context.Background(), path, app.ImportOptions{})
		stop()
		if err != nil {
			b.Fatal(err)
		}
		steps += res.Steps
		b.StopTimer()
		eng.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// sampleHeap records the peak HeapInuse until the returned stop is called.
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > *peak {
				*peak = ms.HeapInuse
			}
			select {
			case <-done:
				return
			default:
			}
			runtime.Gosched()
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return func() { close(done); <-finished }
}
