package scoring

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

// TestYearOneStartIsNotMissing: a trace that started (as written) at
// 0001-01-01T00:00:00Z was reported as having no started_at, because the
// zero time.Time stood for "missing". It is a time: the data it read
// (as_of 2026) is far ahead of it, which is clock skew for review.
func TestYearOneStartIsNotMissing(t *testing.T) {
	s, err := NewScorer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	h := 24.0
	for _, tt := range []struct {
		started, want, notWant string
	}{
		{"0001-01-01T00:00:00Z", "clock skew", "no started_at"},
		{"", "no started_at", "clock skew"},
	} {
		tr, lerr := importers.ParseNativeTrace("fixture", 1, []byte(classTrace("k", "fin.analyst.02", dealsTool,
			`{"kind":"tool_call","id":"c1","tool":"list_deals","args":{"month":"2026-08"}},
			 {"kind":"tool_result","call_id":"c1","result":[{"id":"d1"}],"as_of":"2026-08-04T08:30:00Z"},
			 {"kind":"answer","text":"1 deal"}`)))
		if lerr != nil {
			t.Fatal(lerr)
		}
		tr.StartedAt = tt.started
		ts := s.Score(tr, &model.Gold{Answer: json.RawMessage(`1`), FreshnessBoundHours: &h})
		review := strings.Join(ts.ReviewReasons, "; ")
		if !strings.Contains(review, tt.want) || strings.Contains(review, tt.notWant) {
			t.Errorf("started_at %q: review %q, want %q and not %q", tt.started, review, tt.want, tt.notWant)
		}
	}
}
