package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// Helpers shared by the otel, openinference, mcp and langfuse tests.

// parseAll runs a parser over data and collects the records.
func parseAll(t testing.TB, parse func(context.Context, *bytes.Reader, string, Emit) error, file string, data []byte) []Record {
	t.Helper()
	var recs []Record
	err := parse(context.Background(), bytes.NewReader(data), file, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: parse: %v", file, err)
	}
	return recs
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q", i+1, w, g)
		}
	}
	return "(same lines)"
}

// validTrace round-trips a trace through the native validator, which
// checks step kinds, tool names, argument objects, call pairing and the
// question. An MCP log or a recorded response stream with no request has no
// question, so a placeholder stands in.
func validTrace(tr *model.Trace) *LineError {
	cp := *tr
	if cp.Question == "" {
		cp.Question = "(mcp log)"
	}
	b, err := json.Marshal(cp)
	if err != nil {
		return &LineError{Msg: err.Error()}
	}
	_, lerr := ParseNativeTrace("trace", 1, b)
	return lerr
}

// checkSamples walks a samples folder: every file detected as one of
// formats imports (no error, at least one trace with steps) unless listed
// in refused with a substring of the error it must give. Files of no
// supported format must be listed too.
func checkSamples(t *testing.T, dir string, formats []string, refused map[string]string) {
	t.Helper()
	root := filepath.Join("..", "..", "shared", "samples", dir)
	if _, err := os.Stat(root); err != nil {
		t.Skipf("real-world samples not present at %s (they live beside the repo in /work/shared/samples): %v", root, err)
	}
	imported, refusedN := map[string]int{}, 0
	seen := map[string]bool{}
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if strings.HasSuffix(rel, ".md") {
			return nil
		}
		reason, isRefused := refused[rel]
		seen[rel] = true
		fh, err := os.Open(path)
		if err != nil {
			return err
		}
		defer fh.Close()
		var traces, steps int
		var errs []string
		f, perr := Parse(context.Background(), fh, rel, "", func(r Record) error {
			if r.Err != nil {
				errs = append(errs, r.Err.Error())
			}
			if r.Trace != nil {
				traces++
				steps += len(r.Trace.Steps)
				if lerr := validTrace(r.Trace); lerr != nil {
					t.Errorf("%s: trace %s invalid: %v", rel, r.Trace.TraceID, lerr)
				}
			}
			return nil
		})
		if perr != nil {
			errs = append(errs, perr.Error())
		}
		all := strings.Join(errs, "; ")
		switch {
		case isRefused:
			refusedN++
			if len(errs) == 0 || !strings.Contains(all, reason) {
				t.Errorf("%s: listed as refused (%q) but got format %q, %d traces, errors %q", rel, reason, f.Name, traces, all)
			}
		case perr != nil || !contains(formats, f.Name):
			t.Errorf("%s: not imported by %v: format %q, %v", rel, formats, f.Name, perr)
		case len(errs) > 0 || traces == 0 || steps == 0:
			t.Errorf("%s: %d traces, %d steps, errors: %s", rel, traces, steps, all)
		default:
			imported[f.Name]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range refused {
		if !seen[rel] {
			t.Errorf("refused list names %s, which is not in %s", rel, root)
		}
	}
	t.Logf("samples/%s: imported %v, refused %d", dir, imported, refusedN)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkFuzzRecord is the fuzz invariant: a record is either a valid trace
// or an error, never both or neither.
func checkFuzzRecord(t *testing.T, r Record) {
	if (r.Trace == nil) == (r.Err == nil) {
		t.Fatalf("record must be a trace or an error: %+v", r)
	}
	if r.Trace != nil {
		if lerr := validTrace(r.Trace); lerr != nil {
			t.Fatalf("invalid trace %s: %v", r.Trace.TraceID, lerr)
		}
	}
}

// benchImportFormat parses data b.N times and reports steps per second and, sampled
// every 256 records above the level before the parse, the peak heap in use
// (HeapInuse: live data plus garbage not yet collected) and the peak live
// heap (as marked by the last GC), which is what must stay flat.
// cpuTime is the user+system CPU time this process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchImportFormat(b *testing.B, data []byte, parse func(context.Context, *bytes.Reader, string, Emit) error) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var steps int64
	var peak, peakLive uint64
	cpu0 := cpuTime()
	var ms runtime.MemStats
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base := ms.HeapInuse
		metrics.Read(live)
		baseLive := live[0].Value.Uint64()
		b.StartTimer()
		n := 0
		err := parse(context.Background(), bytes.NewReader(data), "bench", func(r Record) error {
			if r.Err != nil {
				return r.Err
			}
			steps += int64(len(r.Trace.Steps))
			n++
			if n%256 == 0 {
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > base && ms.HeapInuse-base > peak {
					peak = ms.HeapInuse - base
				}
				metrics.Read(live)
				if l := live[0].Value.Uint64(); l > baseLive && l-baseLive > peakLive {
					peakLive = l - baseLive
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	elapsed := b.Elapsed()
	b.ReportMetric(float64(steps)/elapsed.Seconds(), "steps/s")
	// On a shared machine wall time says more about the neighbours than
	// about the parser; steps per CPU second of this process (GC included,
	// the untimed memory sampling too) does not.
	b.ReportMetric(float64(steps)/(cpuTime()-cpu0).Seconds(), "steps/cpu-s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(peakLive)/(1<<20), "peak-live-MB")
	b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
}

func TestGenRecords(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // line:record
	}{
		{"jsonl", "{\"a\":1}\n\n{\"b\":2}\n", []string{`1:{"a":1}`, `3:{"b":2}`}},
		{"pretty documents", "{\n  \"a\": 1\n}\n{\n \"b\": [\n 2]}\n", []string{"1:{\n  \"a\": 1\n}", "4:{\n \"b\": [\n 2]}"}},
		{"bad second document", "{\n \"a\": 1\n}\n\n  {\"b\": \n", []string{"1:{\n \"a\": 1\n}", "5:{\"b\": \n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			err := genRecords(context.Background(), strings.NewReader(tt.in), func(n int, raw []byte) error {
				got = append(got, fmt.Sprintf("%d:%s", n, raw))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGenArgsAndResult(t *testing.T) {
	tests := []struct {
		name    string
		in      any
		args    string
		result  string
		isError bool
	}{
		{"object", map[string]any{"b": json.Number("1"), "a": "x"}, `{"a":"x","b":1}`, `{"a":"x","b":1}`, false},
		{"JSON string", `{"sql":"SELECT 1"}`, `{"sql":"SELECT 1"}`, `{"sql":"SELECT 1"}`, false},
		{"plain text", "rainy, 57°F", `{"input":"rainy, 57°F"}`, `"rainy, 57°F"`, false},
		{"JSON array text", "[1,2]", `{"input":"[1,2]"}`, `[1,2]`, false},
		{"empty", "", `{}`, `""`, false},
		{"MCP result", map[string]any{"content": []any{map[string]any{"type": "text", "text": `{"n":1}`}}, "isError": true},
			`{"content":[{"text":"{\"n\":1}","type":"text"}],"isError":true}`, `{"n":1}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(genArgs(tt.in)); got != tt.args {
				t.Errorf("genArgs = %s, want %s", got, tt.args)
			}
			r, isErr := genResult(tt.in)
			if string(r) != tt.result || isErr != tt.isError {
				t.Errorf("genResult = %s %v, want %s %v", r, isErr, tt.result, tt.isError)
			}
		})
	}
}

func TestGenFlattened(t *testing.T) {
	tests := []struct{ in, want string }{
		{"system: be brief\nuser: what is 2+2?", "system=be brief|user=what is 2+2?"},
		{"user: hi\nassistant: None\ntool: [1]", "user=hi|tool=[1]"},
		{`role='user' content='it\'s 3\nok' name=None tool_calls=None`, "user=it's 3\nok"},
		{`role='assistant' content=None name=None`, ""},
		{"What is the user: count?", "nil"},
	}
	for _, tt := range tests {
		msgs := genFlattened(tt.in)
		got := "nil"
		if msgs != nil {
			var parts []string
			for _, m := range msgs {
				parts = append(parts, fmt.Sprint(m["role"], "=", m["content"]))
			}
			got = strings.Join(parts, "|")
		}
		if got != tt.want {
			t.Errorf("genFlattened(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
