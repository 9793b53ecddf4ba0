package scoring

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

// FuzzScore: any trace the native importer accepts scores without a panic,
// with offsets and steps that point inside the trace.
func FuzzScore(f *testing.F) {
	data, err := os.ReadFile("testdata/seed_opening.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f.Add(line)
	}
	f.Add(`{"trace_id":"x","question":"q","steps":[{"kind":"tool_result","result":[{"region":"AMER","email":"a"}],"next_cursor":"n"},{"kind":"tool_call","tool":"t","args":{"sql":"SELECT SUM(o.total) FROM orders o JOIN order_lines l ON l.order_id = o.id WHERE o.closed_at BETWEEN '2026-01-01' AND 'x'"}}]}`)
	f.Add(`{"trace_id":"y","question":"q","as_user":"u","steps":[{"kind":"tool_call","id":"a","tool":"t","args":{"customer_id":"ACC-1"},"credential":"svc"},{"kind":"tool_result","call_id":"a","result":{"rows":[]}},{"kind":"answer","text":"none, I’ll assume"}],"tools":[{"name":"t","inputSchema":{"properties":{"customer_id":{"pattern":"^C2-[0-9]{6}$","examples":[1,"C2-000001"]}}},"_meta":{"lineage":{"x":"notalist"}}}]}`)
	policy, err := ParsePolicy([]byte(policyJSON))
	if err != nil {
		f.Fatal(err)
	}
	gold := &readCases(f, "testdata/seed_case.json")[0].Gold
	s, err := NewScorer(Config{Policy: policy})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		tr, lerr := importers.ParseNativeTrace("fuzz", 1, []byte(line))
		if lerr != nil {
			return
		}
		for _, g := range []*model.Gold{nil, gold} {
			ts := s.Score(tr, g)
			for _, m := range ts.Markers {
				if m.Step < 0 || m.Step >= len(tr.Steps) || m.End > len(tr.Steps[m.Step].Text) || tr.Steps[m.Step].Text[m.Start:m.End] != m.Text {
					t.Fatalf("marker %+v outside its step", m)
				}
			}
			for _, c := range ts.Classes {
				if c.Confidence <= 0 || c.Confidence > 1 || len(c.Evidence) == 0 {
					t.Fatalf("class %+v", c)
				}
				for _, e := range c.Evidence {
					if e.Step < 0 || e.Step >= len(tr.Steps) {
						t.Fatalf("evidence step %d of %d", e.Step, len(tr.Steps))
					}
				}
			}
			for _, c := range ts.CallGrounding {
				if c.Precision < 0 || c.Precision > 1 || c.Required > c.Used || c.Used == 0 {
					t.Fatalf("call grounding %+v", c)
				}
			}
			if (ts.GroundingPrecision == nil) != (len(ts.CallGrounding) == 0) {
				t.Fatalf("task precision %v with %d field-using calls", f64(ts.GroundingPrecision), len(ts.CallGrounding))
			}
			if _, err := json.Marshal(ts); err != nil {
				t.Fatalf("score does not encode: %v", err)
			}
		}
	})
}
