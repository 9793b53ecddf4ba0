package store

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"tracelab/model"
)

// TestTraceSHAIsContentSHA: hashing large arguments and results in place
// gives the hash json.Marshal of the whole trace gives, whatever their
// JSON holds (white space, characters the encoder escapes, invalid
// UTF-8), so databases written before keep matching on re-import.
func TestTraceSHAIsContentSHA(t *testing.T) {
	pad := strings.Repeat("x", bigRaw)
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
// costs the Go heap one copy of the result, its trace's step body made in
// one allocation of its exact size (the hash reads the result in place);
// encoding the trace to hash it, copying the result to a string and
// growing a buffer for the body cost three times its size or more.
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
