package scoring

import (
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// TestTraceMarkersCapped: a step that is one hedge repeated a million
// times keeps MaxStepMarkers markers and counts the rest; a trace keeps at
// most MaxTraceMarkers, with the byte matcher and the regular expression
// alike (a non-ASCII phrase forces the latter).
func TestTraceMarkersCapped(t *testing.T) {
	const reps = 1 << 20
	for _, tt := range []struct {
		name    string
		phrases []string
	}{
		{"ascii", DefaultLexicon},
		{"regexp", append([]string{"vermutlich ähnlich"}, DefaultLexicon...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lx, err := NewLexicon(tt.phrases)
			if err != nil {
				t.Fatal(err)
			}
			if lx.ascii != nil && tt.name == "regexp" {
				t.Fatal("the non-ASCII phrase should force the regexp path")
			}
			big := strings.Repeat("probably ", reps)
			tr := &model.Trace{Steps: []model.Step{{Kind: model.KindReasoning, Text: big}}}
			ms, more := lx.TraceMarkers(tr)
			if len(ms) != MaxStepMarkers || more != reps-MaxStepMarkers {
				t.Fatalf("one step: kept %d, more %d; want %d, %d", len(ms), more, MaxStepMarkers, reps-MaxStepMarkers)
			}
			if ms[MaxStepMarkers-1].Start != 9*(MaxStepMarkers-1) {
				t.Errorf("last kept marker at %d, want the %dth occurrence", ms[MaxStepMarkers-1].Start, MaxStepMarkers)
			}
			steps := make([]model.Step, 30)
			for i := range steps {
				steps[i] = model.Step{Kind: model.KindReasoning, Text: strings.Repeat("probably ", 200)}
			}
			ms, more = lx.TraceMarkers(&model.Trace{Steps: steps})
			if len(ms) != MaxTraceMarkers || more != 30*200-MaxTraceMarkers {
				t.Fatalf("30 steps: kept %d, more %d; want %d, %d", len(ms), more, MaxTraceMarkers, 30*200-MaxTraceMarkers)
			}
		})
	}
}
