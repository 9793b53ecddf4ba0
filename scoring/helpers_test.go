package scoring

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

// readTraces parses a native JSONL file with the importer the CLI uses.
func readTraces(t testing.TB, path string) []*model.Trace {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []*model.Trace
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	n := 0
	for sc.Scan() {
		n++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		tr, lerr := importers.ParseNativeTrace(path, n, append([]byte(nil), sc.Bytes()...))
		if lerr != nil {
			t.Fatal(lerr)
		}
		out = append(out, tr)
	}
	return out
}

func readCases(t testing.TB, path string) []*model.Case {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []*model.Case
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		c, lerr := importers.ParseCase(path, i+1, line)
		if lerr != nil {
			t.Fatal(lerr)
		}
		out = append(out, c)
	}
	return out
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func f64(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func bptr(p *bool) any {
	if p == nil {
		return nil
	}
	return *p
}
