package importers

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// nativeDecodeCases are lines go-json-experiment/json must read as
// encoding/json's Unmarshal does, or leave to it (lib says which: it reads
// every line encoding/json reads, and leaves the others to it for its
// error).
var nativeDecodeCases = []struct {
	line string
	lib  bool
}{
	{benchNativeLine, true},
	{`{"trace_id":"t","question":"q","steps":[]}`, true},
	{`{"trace_id":"t","question":"q"}`, true},
	{` { "trace_id" : "t" , "steps" : [ { "kind" : "user" , "text" : "a\nb\u00e9\ud83d\ude00\"\\\/\t" } ] , "usage" : { "input_tokens" : -0 , "usd" : 1.5e-3 , "estimated" : true } } `, true},
	{`{"trace_id":"t\ud800x","steps":[{"kind":"answer","text":"bad ` + "\xff" + ` utf-8"}]}`, true},
	{`{"trace_id":"t","tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b"}],"steps":[{"kind":"tool_call","id":"c","tool":"a","args":{ "x" : [1, 2.5e3, "s", true, false, null, {}] },"is_error":false,"has_more":true}]}`, true},
	{`{"trace_id":"t","tools":[],"metadata":{"case_id":"c1","n":1e2,"k":[null,{"a":"b"}],"case_id":"c2"},"steps":[]}`, true},
	{`{"trace_id":"t","steps":[{"kind":"tool_result","call_id":"c","result":"just text"},{"kind":"tool_result","result":12},{"kind":"x","result":[]}]}`, true},
	{`{"trace_id":"t","steps":null}`, true},
	{`{"trace_id":null,"steps":[]}`, true},
	{`{"Trace_ID":"t","steps":[]}`, true},
	{`{"trace_id":"t","trace_id":"u","steps":[]}`, true},
	{`{"trace_id":"t","unknown":1,"steps":[]}`, true},
	{`{"trace_id":"t","steps":[{"kind":"tool_call","args":null}]}`, true},
	{`{"trace_id":"t","usage":{"input_tokens":1.0}}`, false},
	{`{"trace_id":"t","usage":{"input_tokens":1e2}}`, false},
	{`{"trace_id":"t","usage":{"input_tokens":99999999999999999999}}`, false},
	{`{"trace_id":"t","usage":{"usd":1e400}}`, false},
	{`{"trace_id":5,"steps":[]}`, false},
	{`{"trace_id":"t","steps":[]} x`, false},
	{`{"trace_id":"t","steps":[],}`, false},
	{`{"trace_id":"t","steps":[{"kind":"user","text":"a` + "\x01" + `"}]}`, false},
	{`{"trace_id":"t","steps":[{"kind":"tool_call","args":{"a":01}}]}`, false},
	{`{"trace_id":"t","steps":[{"kind":"tool_call","args":{"a":tru}}]}`, false},
	{`{"trace_id":"t","steps":[{"kind":"tool_call","args":{"a":"\x"}}]}`, false},
	{`{"trace_id":"t","steps":[{"kind":"tool_call","args":{"a" 1}}]}`, false},
	{`{"trace_id":"t","metadata":null}`, true},
	{`{"trace_id":"t","metadata":[1]}`, false},
	{`{"trace_id":"t","steps":[{"kind":"tool_call","args":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}]}`, true},
	{`{"trace_id":"t","steps":[{"kind":"tool_call","args":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}]}`, true},
}

// TestDecodeNativeAsUnmarshal: what go-json-experiment/json reads, it
// reads as encoding/json's Unmarshal does, on the cases above, on every
// line of the native test files and of the real-world samples; and it
// reads every line encoding/json reads.
func TestDecodeNativeAsUnmarshal(t *testing.T) {
	for _, c := range nativeDecodeCases {
		if ok := assertDecodeAsUnmarshal(t, []byte(c.line)); ok != c.lib {
			t.Errorf("%.120s: read %v, want %v", c.line, ok, c.lib)
		}
	}
	var files []string
	for _, pat := range []string{"../testdata/*/*.jsonl", "testdata/formats/native/*"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			if len(l) > 0 && l[0] == '{' {
				n++
				assertDecodeAsUnmarshal(t, l)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d test lines", n)
	}
	lines := 0
	filepath.WalkDir(samplesDir, func(path string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			if l = bytes.TrimSpace(l); len(l) > 0 && l[0] == '{' {
				lines++
				assertDecodeAsUnmarshal(t, l)
			}
		}
		return nil
	})
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skipf("real-world samples not found at %s: %v", samplesDir, err)
	}
	t.Logf("%d test lines and %d sample lines compared", n, lines)
}

// assertDecodeAsUnmarshal fails when decodeNative reads data otherwise
// than encoding/json, or fails where encoding/json reads it; it says
// whether decodeNative read it.
func assertDecodeAsUnmarshal(t testing.TB, data []byte) bool {
	t.Helper()
	got, ok := decodeNative(data)
	var want nativeTrace
	err := json.Unmarshal(data, &want)
	switch {
	case ok && err != nil:
		t.Fatalf("%.120s: read, but json.Unmarshal fails: %v", data, err)
	case !ok && err == nil:
		t.Fatalf("%.120s: not read, but json.Unmarshal reads it", data)
	case ok && !reflect.DeepEqual(got, want):
		t.Fatalf("%.120s: read as\n%#v\njson.Unmarshal reads\n%#v", data, got, want)
	}
	// Kept in its line, a raw value is the same (decodeNativeInPlace).
	if inPlace, ok2 := decodeNativeFrom(data, 0); ok2 != ok || ok && !reflect.DeepEqual(inPlace, want) {
		t.Fatalf("%.120s: in place read %v as\n%#v\njson.Unmarshal reads\n%#v", data, ok2, inPlace, want)
	}
	return ok
}

// FuzzDecodeNative: decodeNative reads what json.Unmarshal reads, alike.
func FuzzDecodeNative(f *testing.F) {
	for _, c := range nativeDecodeCases {
		f.Add([]byte(c.line))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		assertDecodeAsUnmarshal(t, data)
	})
}

// BenchmarkDecodeNative: go-json-experiment/json against encoding/json on
// a bench trace.
func BenchmarkDecodeNative(b *testing.B) {
	line := []byte(benchNativeLine)
	b.Run("encoding/json", func(b *testing.B) {
		for range b.N {
			var nt nativeTrace
			if err := json.Unmarshal(line, &nt); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decodeNative", func(b *testing.B) {
		for range b.N {
			if _, ok := decodeNative(line); !ok {
				b.Fatal("not read")
			}
		}
	})
}

// benchNativeLine is the first trace `bench gen` writes.
const benchNativeLine = `{"trace_id":"trace_0100000","server":"billing-tools","run_id":"r0","user_role":"finance_analyst","as_user":"fin.analyst.00","question":"How many active customers did we have in region 5 segment 333 last quarter?","started_at":"2026-07-03T09:12:00Z","outcome":"pass","tools":[{"name":"run_sql","description":"Run a read-only SQL query against the warehouse","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}}],"steps":[{"kind":"user","text":"How many active customers did we have in region 5 segment 333 last quarter?"},{"kind":"tool_call","id":"c1","tool":"list_tables","args":{}},{"kind":"tool_result","call_id":"c1","result":{"tables":["customers","subscriptions","orders"]}},{"kind":"tool_call","id":"c2","tool":"describe_table","args":{"table":"customers"}},{"kind":"tool_result","call_id":"c2","result":{"table":"customers","columns":[{"name":"id","type":"bigint"},{"name":"is_active","type":"boolean"},{"name":"region_code","type":"text"},{"name":"subscription_status","type":"text"}]}},{"kind":"reasoning","text":"is_active sounds like the right flag. region_code probably starts with EU for EMEA."},{"kind":"tool_call","id":"c3","tool":"run_sql","args":{"sql":"SELECT COUNT(*) FROM customers c JOIN subscriptions s ON s.customer_id = c.id WHERE subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.region_code LIKE 'EU%' AND s.created_at < '2026-07-01' AND c.id > 0"},"credential":"svc-warehouse"},{"kind":"tool_result","call_id":"c3","result":{"columns":["count"],"rows":[[1000]]},"as_of":"2026-07-03T08:00:00Z"},{"kind":"reasoning","text":"The count looks right."},{"kind":"answer","text":"1000"}],"usage":{"input_tokens":41210,"output_tokens":1880,"usd":0.0912}}`
