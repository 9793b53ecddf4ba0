package scoring

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// TestTooLargeIsUnscorable: a reasoning step of "probably " past the
// scorer's budget is not read (it cost about 6x its size, and 63 MiB of it
// killed score); the trace is unscorable, says why, and needs a person.
func TestTooLargeIsUnscorable(t *testing.T) {
	s, err := NewScorer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		size int
		want string
	}{
		{MaxScoredBytes + 1<<20, "unscorable, because it holds 33.0 MiB of text, over the 32 MiB the scorer reads"},
		{1 << 20, ""},
	} {
		tr := &model.Trace{TraceID: "t", Server: "s", Question: "how many?", Steps: []model.Step{
			{Kind: model.KindReasoning, Text: strings.Repeat("probably ", tt.size/9)},
			{Kind: model.KindAnswer, Text: "1"},
		}}
		ts := s.Score(tr, nil)
		if ts.Unscorable != tt.want {
			t.Errorf("%d bytes: unscorable %q, want %q", tt.size, ts.Unscorable, tt.want)
		}
		if tt.want != "" && (!ts.NeedsHumanReview || len(ts.ReviewReasons) != 1 || ts.ReviewReasons[0] != tt.want || len(ts.Markers) != 0) {
			t.Errorf("%d bytes: review %v %q markers %d", tt.size, ts.NeedsHumanReview, ts.ReviewReasons, len(ts.Markers))
		}
		if tt.want == "" && len(ts.Markers) == 0 {
			t.Errorf("%d bytes: scored with no guess marker", tt.size)
		}
	}
}

// TestDetailIsBounded: every detail list of a score keeps at most
// MaxDetail entries and DetailMore counts the rest.
func TestDetailIsBounded(t *testing.T) {
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint("reason ", i)
		}
		return out
	}
	ts := TraceScore{
		ReviewReasons: many(MaxDetail + 500),
		Classes:       []ClassSuggestion{{Class: model.ClassSemantic, Evidence: make([]Evidence, MaxDetail+200)}},
		FieldsUsed:    make([]FieldStatus, MaxDetail+1),
		UnparsedSQL:   make([]Evidence, 3),
		Violations:    []CallViolation{{Violations: make([]Violation, MaxDetail+10)}},
		CallGrounding: make([]CallGrounding, MaxDetail),
	}
	boundDetail(&ts)
	for name, n := range map[string]int{"review_reasons": len(ts.ReviewReasons), "evidence": len(ts.Classes[0].Evidence),
		"fields_used": len(ts.FieldsUsed), "violations": len(ts.Violations[0].Violations), "call_grounding": len(ts.CallGrounding)} {
		if n != MaxDetail {
			t.Errorf("%s: %d kept, want %d", name, n, MaxDetail)
		}
	}
	if len(ts.UnparsedSQL) != 3 || ts.DetailMore != 500+200+1+10 {
		t.Errorf("unparsed %d, detail_more %d", len(ts.UnparsedSQL), ts.DetailMore)
	}
	if ts.ReviewReasons[MaxDetail-1] != fmt.Sprint("reason ", MaxDetail-1) {
		t.Errorf("the first entries are not the ones kept: %q", ts.ReviewReasons[MaxDetail-1])
	}
}
