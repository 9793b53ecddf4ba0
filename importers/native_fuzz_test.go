package importers

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// FuzzNative feeds arbitrary bytes to the native parser: it must never
// panic, every record is either a valid trace or a precise error, and line
// numbers stay within the input.
func FuzzNative(f *testing.F) {
	f.Add([]byte(`{"trace_id":"t","question":"q","steps":[{"kind":"answer","text":"1"}]}`))
	f.Add([]byte(`{"trace_id":"t","question":"q","steps":[{"kind":"tool_call","id":"c","tool":"x","args":{"a":1}},{"kind":"tool_result","call_id":"c","result":[1]}]}` + "\n\n{}"))
	f.Add([]byte(`{"trace_id":"t","steps":[{"kind":"tool-call"}]}`))
	f.Add([]byte("\xef\xbb\xbf{\"trace_id\":1}\n[\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		maxLine := bytes.Count(data, []byte("\n")) + 1
		err := parseNative(context.Background(), bytes.NewReader(data), "f.jsonl", func(r Record) error {
			if r.Line < 1 || r.Line > maxLine {
				t.Fatalf("line %d outside 1..%d", r.Line, maxLine)
			}
			switch {
			case r.Err != nil:
				if !strings.HasPrefix(r.Err.Error(), "f.jsonl:") {
					t.Fatalf("error without file: %v", r.Err)
				}
			case r.Trace != nil:
				if r.Trace.TraceID == "" || r.Trace.Question == "" {
					t.Fatalf("invalid trace accepted: %+v", r.Trace)
				}
				for _, s := range r.Trace.Steps {
					if !validKind(s.Kind) {
						t.Fatalf("bad kind accepted: %q", s.Kind)
					}
				}
			default:
				t.Fatal("empty record")
			}
			return nil
		})
		if err != nil {
			t.Fatalf("parse error: %v", err)
		}
	})
}

func validKind(k model.StepKind) bool {
	for _, v := range model.StepKinds {
		if v == k {
			return true
		}
	}
	return false
}
