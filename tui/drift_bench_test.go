package tui

import (
	"context"
	"fmt"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/scoring"
)

// BenchmarkDriftScreenView draws the drift screen for a change that
// affects many cases (as a tool listed on every trace of a large run
// does), at 160x48.
func BenchmarkDriftScreenView(b *testing.B) {
	for _, n := range []int{100, 5000} {
		b.Run(fmt.Sprintf("cases=%d", n), func(b *testing.B) {
			ch := app.ToolChange{Server: "alpha", Tool: "tool_0", OldRun: "r2", NewRun: "r3", Lane: scoring.LaneBreaking,
				Findings: []scoring.DriftFinding{{ID: "input-property-added-required", Path: "inputSchema.properties.region", Lane: scoring.LaneBreaking, Message: "new required field added: region"}}}
			for i := 0; i < n; i++ {
				tier := scoring.TierListed
				if i%10 == 0 {
					tier = scoring.TierInputFails
				}
				ch.Cases = append(ch.Cases, scoring.AffectedCase{CaseID: fmt.Sprintf("k%06d", i), Tool: "tool_0", Tier: tier,
					Evidence: "call 1: recorded args fail the new input schema: at /: missing property 'region'"})
			}
			ov := app.DriftOverview{Changes: []app.ToolChange{ch, ch}}
			d := newToolDriftScreen(context.Background(), func(context.Context) (app.DriftOverview, error) { return ov, nil })
			d.handle(d.refresh()())
			sty := newTestStyles()
			for b.Loop() {
				_ = d.view(&sty, 160, 48)
			}
		})
	}
}
