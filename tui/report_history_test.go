package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

func f64(x float64) *float64 { return &x }

func TestSparkline(t *testing.T) {
	prec := model.Metrics[0]
	cost := model.Metrics[len(model.Metrics)-1]
	hist := func(vals ...*float64) []app.HistoryEntry {
		var out []app.HistoryEntry
		for _, v := range vals {
			out = append(out, app.HistoryEntry{Reports: []model.Report{{Server: "a", GroundingPrecision: v, CostPerCorrectAnswerUSD: v}}})
		}
		return out
	}
	for _, tt := range []struct {
		name string
		hist []app.HistoryEntry
		m    model.Metric
		w    int
		want string
	}{
		{"rates on 0..1", hist(f64(0), f64(0.5), f64(1)), prec, 8, "▁▄█"},
		{"a missing value is a gap", hist(f64(1), nil, f64(1)), prec, 8, "█ █"},
		{"the newest w", hist(f64(0), f64(0), f64(1), f64(1)), prec, 2, "██"},
		{"dollars on 0..largest", hist(f64(0.01), f64(0.02)), cost, 8, "▄█"},
		{"all zero dollars", hist(f64(0), f64(0)), cost, 8, "▁▁"},
		{"another server's history", []app.HistoryEntry{{Reports: []model.Report{{Server: "b", GroundingPrecision: f64(1)}}}}, prec, 8, " "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := sparkline(tt.hist, "a", tt.m, tt.w); got != tt.want {
				t.Errorf("sparkline = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestGoldenReportHistory: with reports recorded by exports, the Report
// screen draws each metric's history beside it. Three real exports of the
// fixture: the confirmed cases, the ones that expose grounding, and every
// case with the machine-suggested ones.
func TestGoldenReportHistory(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			eng, _ := openFixtureStore(t)
			ctx := context.Background()
			at := time.Date(2026, 8, 20, 9, 0, 0, 0, time.UTC)
			for i, opts := range []app.ExportOptions{{}, {ExposeOnly: true}, {All: true}} {
				eng.SetClock(func() time.Time { return at.Add(time.Duration(i) * time.Hour) })
				opts.Dir = filepath.Join(t.TempDir(), "suite")
				if _, err := eng.Suite.Export(ctx, opts); err != nil {
					t.Fatal(err)
				}
			}
			d := newDriver(t, eng, size[0], size[1])
			d.keys("R")
			golden.RequireEqual(t, d.plain())
		})
	}
}
