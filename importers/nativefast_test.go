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

// nativeFastCases are lines the fast decoder must read as json.Unmarshal
// does, or leave to it (fast says which).
var nativeFastCases = []struct {
	line string
	fast bool
}{
	{benchNativeLine, true},
	{`{"trace_id":"t","question":"q","steps":[]}`, true},
	{`{"trace_id":"t","question":"q"}`, true},
	{` { "trace_id" : "t" , "steps" : [ { "kind" : "user" , "text" : "a\nb\u00e9\ud83d\ude00\"\\\/\t" } ] , "usage" : { "input_tokens" : -0 , "usd" : 1.5e-3 , "estimated" : true } } `, true},
	{`{"trace_id":"t\ud800x","steps":[{"kind":"answer","text":"bad ` + "\xff" + ` utf-8"}]}`, true},
	{`{"trace_id":"t","tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b"}],"steps":[{"kind":"tool_call","id":"c","tool":"a","args":{ "x" : [1, 2.5e3, "s", true, false, null, {}] },"is_error":false,"has_more":true}]}`, true},
	{`{"trace_id":"t","tools":[],"metadata":{"case_id":"c1","n":1e2,"k":[null,{"a":"b"}],"case_id":"c2"},"steps":[]}`, true},
	{`{"trace_id":"t","steps":[{"kind":"tool_result","call_id":"c","result":"just text"},{"kind":"tool_result","result":12},{"kind":"x","result":[]}]}`, true},
	{`{"trace_id":"t","steps":null}`, false},
	{`{"trace_id":null,"steps":[]}`, false},
	{`{"Trace_ID":"t","steps":[]}`, false},
	{`{"trace_id":"t","trace_id":"u","steps":[]}`, false},
	{`{"trace_id":"t","unknown":1,"steps":[]}`, false},
	{`{"trace_id":"t","steps":[{"kind":"tool_call","args":null}]}`, false},
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
	{`{"trace_id":"t","metadata":null}`, false},
	{`{"trace_id":"t","metadata":[1]}`, false},
	{`{"trace_id":"t","steps":[{"kind":"tool_call","args":` + strings.Repeat("[", maxRawDepth+1) + strings.Repeat("]", maxRawDepth+1) + `}]}`, false},
	{`{"trace_id":"t","steps":[{"kind":"tool_call","args":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}]}`, true},
}

// TestDecodeNativeFastAsUnmarshal: what the fast decoder reads, it reads
// as json.Unmarshal does, on the cases above and on every line of the
// native test files; it takes the lines it should.
func TestDecodeNativeFastAsUnmarshal(t *testing.T) {
	for _, c := range nativeFastCases {
		if ok := assertFastAsUnmarshal(t, []byte(c.line)); ok != c.fast {
			t.Errorf("%.120s: read fast %v, want %v", c.line, ok, c.fast)
		}
	}
	var files []string
	for _, pat := range []string{"../testdata/*/*.jsonl", "testdata/formats/native/*"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	n, fast := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			if len(l) > 0 && l[0] == '{' {
				n++
				if assertFastAsUnmarshal(t, l) {
					fast++
				}
			}
		}
	}
	t.Logf("%d of %d test lines read fast", fast, n)
	if n < 20 || fast*2 < n {
		t.Errorf("%d of %d test lines read fast", fast, n)
	}
	// Any JSON line of the real-world samples: what is read fast is read
	// as json.Unmarshal reads it.
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
				assertFastAsUnmarshal(t, l)
			}
		}
		return nil
	})
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skipf("real-world samples not found at %s: %v", samplesDir, err)
	}
	t.Logf("%d sample lines compared", lines)
}

// assertFastAsUnmarshal fails when the fast decoder reads data otherwise
// than json.Unmarshal, and says whether it read it.
func assertFastAsUnmarshal(t testing.TB, data []byte) bool {
	t.Helper()
	got, ok := decodeNativeFast(data)
	if !ok {
		return false
	}
	var want nativeTrace
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("%.120s: read fast, but json.Unmarshal fails: %v", data, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%.120s: read fast as\n%#v\njson.Unmarshal reads\n%#v", data, got, want)
	}
	return true
}

// FuzzDecodeNativeFast: whatever the fast decoder reads, json.Unmarshal
// reads alike.
func FuzzDecodeNativeFast(f *testing.F) {
	for _, c := range nativeFastCases {
		f.Add([]byte(c.line))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		assertFastAsUnmarshal(t, data)
	})
}

// BenchmarkDecodeNative: the fast decoder against json.Unmarshal, the way
// it replaces, on a bench trace.
func BenchmarkDecodeNative(b *testing.B) {
	line := []byte(benchNativeLine)
	b.Run("json.Unmarshal", func(b *testing.B) {
		for range b.N {
			var nt nativeTrace
			if err := json.Unmarshal(line, &nt); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decodeNativeFast", func(b *testing.B) {
		for range b.N {
			if _, ok := decodeNativeFast(line); !ok {
				b.Fatal("not read fast")
			}
		}
	})
}

// benchNativeLine is the first trace `bench gen` writes.
const benchNativeLine = `{"trace_id":"trace_0100000","server":"billing-tools","run_id":"r0","user_role":"finance_analyst","as_user":"fin.analyst.00","question":"How many active customers did we have in region 5 segment 333 last quarter?","started_at":"2026-07-03T09:12:00Z","outcome":"pass","tools":[{"name":"run_sql","description":"Run a read-only SQL query against the warehouse","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}}],"steps":[{"kind":"user","text":"How many active customers did we have in region 5 segment 333 last quarter?"},{"kind":"tool_call","id":"c1","tool":"list_tables","args":{}},{"kind":"tool_result","call_id":"c1","result":{"tables":["customers","subscriptions","orders"]}},{"kind":"tool_call","id":"c2","tool":"describe_table","args":{"table":"customers"}},{"kind":"tool_result","call_id":"c2","result":{"table":"customers","columns":[{"name":"id","type":"bigint"},{"name":"is_active","type":"boolean"},{"name":"region_code","type":"text"},{"name":"subscription_status","type":"text"}]}},{"kind":"reasoning","text":"is_active sounds like the right flag. region_code probably starts with EU for EMEA."},{"kind":"tool_call","id":"c3","tool":"run_sql","args":{"sql":"SELECT COUNT(*) FROM customers c JOIN subscriptions s ON s.customer_id = c.id WHERE subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.region_code LIKE 'EU%' AND s.created_at < '2026-07-01' AND c.id > 0"},"credential":"svc-warehouse"},{"kind":"tool_result","call_id":"c3","result":{"columns":["count"],"rows":[[1000]]},"as_of":"2026-07-03T08:00:00Z"},{"kind":"reasoning","text":"The count looks right."},{"kind":"answer","text":"1000"}],"usage":{"input_tokens":41210,"output_tokens":1880,"usd":0.0912}}`
