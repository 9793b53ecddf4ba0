package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

// TestTraceSHAIsContentSHA: hashing large arguments and results in place
// gives the hash json.Marshal of the whole trace gives, whatever their
// JSON holds (white space, characters the encoder escapes, invalid
// UTF-8), so databases written before keep matching on re-import.
func TestTraceSHAIsContentSHA(t *testing.T) {
	pad := strings.Repeat("x", 64<<10) // values the hand-written hash once hashed in place
	tests := []struct {
		name         string
		args, result string
	}{
		{"small", `{"a":1}`, `"ok"`},
		{"big compact result", `{}`, `"` + pad + `"`},
		{"big args and result", `{"q":"` + pad + `"}`, `{"out":["` + pad + `",1,null]}`},
		{"white space outside strings", `{ "q" : "` + pad + `" }`, "[\n  \"" + pad + "\"\n]"},
		{"white space inside strings", `{"q":"a b\t` + pad + `"}`, `"line\n` + pad + `"`},
		{"escaped html", `{"q":"<b>&` + pad + `"}`, `"` + pad + `</script>"`},
		{"line separators", `{"q":"` + pad + "\u2028\u2029" + `"}`, `"` + pad + `"`},
		{"escaped quotes", `{"q":"say \"hi\" \\` + pad + `"}`, `"\\\\\"` + pad + `"`},
		{"invalid utf-8", `{"q":"` + pad + "\xff" + `"}`, `"` + pad + `"`},
		{"a placeholder look-alike", `{"q":"tracelab-sha-` + pad + `"}`, `"tracelab-sha-0"`},
	}
	for _, tt := range tests {
		tr := &model.Trace{TraceID: "t1", Question: "q?", Metadata: map[string]any{"k": "v"}, Steps: []model.Step{
			{Kind: model.KindToolCall, ID: "c1", Tool: "t", Args: json.RawMessage(tt.args)},
			{Kind: model.KindToolResult, CallID: "c1", Result: json.RawMessage(tt.result)},
			{Kind: model.KindAnswer, Text: "a"},
		}}
		want := contentSHA(tr)
		if got := traceSHA(tr); got != want {
			t.Errorf("%s: traceSHA %s, contentSHA %s", tt.name, got, want)
		}
		if string(tr.Steps[0].Args) != tt.args || string(tr.Steps[1].Result) != tt.result {
			t.Errorf("%s: traceSHA changed the trace", tt.name)
		}
	}
}

// TestPutTraceHeapPerRecord: writing a trace with a 32 MiB tool result
// costs the Go heap one copy of the result: its trace's step body, made
// in one allocation of its exact size. The hash reads the result in place
// (model/hashraw.go); the JSON library's encoder had copied it into its
// buffer, a second copy (issue 27 item 10). Copying the result to a
// string and growing a buffer for the body cost more.
func TestPutTraceHeapPerRecord(t *testing.T) {
	st := sqliteStore(t)
	ctx := context.Background()
	const size = 32 << 20
	result := json.RawMessage(`"` + strings.Repeat("x", size) + `"`)
	im, err := st.BeginImport(ctx, "big.jsonl", false)
	if err != nil {
		t.Fatal(err)
	}
	defer im.Rollback()
	tr := &model.Trace{TraceID: "big", Question: "q?", Steps: []model.Step{
		{Kind: model.KindToolCall, ID: "c1", Tool: "t", Args: json.RawMessage(`{}`)},
		{Kind: model.KindToolResult, CallID: "c1", Result: result},
	}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if rerr, err := im.PutTrace(tr); rerr != nil || err != nil {
		t.Fatal(rerr, err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > size+size/2 {
		t.Errorf("PutTrace allocated %d MiB of Go heap for a %d MiB result, want under %d MiB", n>>20, size>>20, (size+size/2)>>20)
	}
}

// TestTraceSHAOnSamples: every trace the importers read from the test
// data and the real-world samples hashes as json.Marshal of it does, so
// the databases written before keep matching on re-import.
func TestTraceSHAOnSamples(t *testing.T) {
	const samples = "../../shared/samples"
	files, traces := 0, 0
	for _, root := range []string{"../testdata", "../importers/testdata", samples} {
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			f, err := os.Open(path)
			if err != nil {
				return nil
			}
			defer f.Close()
			files++
			importers.Parse(context.Background(), f, path, "", func(r importers.Record) error {
				if r.Trace == nil {
					return nil
				}
				traces++
				if got, want := traceSHA(r.Trace), contentSHA(r.Trace); got != want {
					t.Errorf("%s:%d: traceSHA %s, contentSHA %s", path, r.Line, got, want)
				}
				return nil
			})
			return nil
		})
	}
	if traces < 100 {
		t.Errorf("only %d traces in %d files", traces, files)
	}
	if _, err := os.Stat(samples); err != nil {
		t.Skipf("compared %d traces of %d test files; real-world samples not found at %s: %v", traces, files, samples, err)
	}
	t.Logf("%d traces of %d files", traces, files)
}

// FuzzTraceSHA: any trace JSON can decode into hashes as json.Marshal of
// it does.
func FuzzTraceSHA(f *testing.F) {
	for _, s := range []string{
		`{"trace_id":"t","server":"s","question":"q?","steps":[{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":"SELECT 1"}},{"kind":"tool_result","call_id":"c1","result":{"rows":[[1,2.5,true,null]]},"as_of":"2026-01-01","is_error":true,"has_more":true}],"usage":{"input_tokens":3,"output_tokens":-1,"usd":1e-7,"estimated":true}}`,
		`{"trace_id":"<&>","tools":[{"name":"n","title":"T","description":"d\u2028","inputSchema":{"type":"object"},"outputSchema":[ 1 ],"annotations":null}],"metadata":{"b":1,"a":["x",{"c":null}]},"outcome":"pass","model":"m","answer":"\u00e9\ud800"}`,
		`{"steps":null,"usage":{"usd":123456789012345678901234}}`,
		`{"steps":[{"kind":"answer","text":"a\tb\u0001","credential":"c","next_cursor":"n"}],"run_id":"r","user_role":"u","as_user":"a","started_at":"s"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var tr model.Trace
		if json.Unmarshal(b, &tr) != nil {
			return
		}
		want, err := json.Marshal(&tr)
		if err != nil {
			return // contentSHA panics on it too; no decoded trace gets here
		}
		sum := sha256.Sum256(want)
		if got := traceSHA(&tr); got != hex.EncodeToString(sum[:]) {
			t.Fatalf("traceSHA %s, json.Marshal's %x (%s)", got, sum, want)
		}
	})
}

// BenchmarkTraceSHA: the hand encoding against json.Marshal's (contentSHA,
// the way it replaces) on a generated bench trace.
func BenchmarkTraceSHA(b *testing.B) {
	var tr model.Trace
	if err := json.Unmarshal([]byte(benchTraceJSON), &tr); err != nil {
		b.Fatal(err)
	}
	b.Run("contentSHA", func(b *testing.B) {
		for range b.N {
			contentSHA(&tr)
		}
	})
	b.Run("traceSHA", func(b *testing.B) {
		for range b.N {
			traceSHA(&tr)
		}
	})
}

// benchTraceJSON is the first trace `bench gen` writes.
const benchTraceJSON = `{"trace_id":"trace_0100000","server":"billing-tools","run_id":"r0","user_role":"finance_analyst","as_user":"fin.analyst.00","question":"How many active customers did we have in region 5 segment 333 last quarter?","started_at":"2026-07-03T09:12:00Z","outcome":"pass","tools":[{"name":"run_sql","description":"Run a read-only SQL query against the warehouse","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}}],"steps":[{"kind":"user","text":"How many active customers did we have in region 5 segment 333 last quarter?"},{"kind":"tool_call","id":"c1","tool":"list_tables","args":{}},{"kind":"tool_result","call_id":"c1","result":{"tables":["customers","subscriptions","orders"]}},{"kind":"tool_call","id":"c2","tool":"describe_table","args":{"table":"customers"}},{"kind":"tool_result","call_id":"c2","result":{"table":"customers","columns":[{"name":"id","type":"bigint"},{"name":"is_active","type":"boolean"},{"name":"region_code","type":"text"},{"name":"subscription_status","type":"text"}]}},{"kind":"reasoning","text":"is_active sounds like the right flag. region_code probably starts with EU for EMEA."},{"kind":"tool_call","id":"c3","tool":"run_sql","args":{"sql":"SELECT COUNT(*) FROM customers c JOIN subscriptions s ON s.customer_id = c.id WHERE subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.region_code LIKE 'EU%' AND s.created_at < '2026-07-01' AND c.id > 0"},"credential":"svc-warehouse"},{"kind":"tool_result","call_id":"c3","result":{"columns":["count"],"rows":[[1000]]},"as_of":"2026-07-03T08:00:00Z"},{"kind":"reasoning","text":"The count looks right."},{"kind":"answer","text":"1000"}],"usage":{"input_tokens":41210,"output_tokens":1880,"usd":0.0912}}`
