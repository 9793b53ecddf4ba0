package suite

import (
	"fmt"
	"math"
)

// Gate is how much of the suite a new run must cover for check to pass:
// a run that matched no case checked nothing, and one that matched few
// cases says little about the rest.
type Gate struct {
	// MinCoverage is the share of suite cases (0 < x <= 1) that must be
	// matched by a new trace; 0 means all of them.
	MinCoverage float64
	// AllowMissing drops the coverage requirement, except that a run
	// covering no case at all still fails.
	AllowMissing bool
}

// Coverage is the gate's verdict on a check.
type Coverage struct {
	Covered    int     `json:"covered"`      // suite cases matched by a new trace
	Required   float64 `json:"min_coverage"` // the share the gate asked for
	Ratio      float64 `json:"coverage"`     // Covered / cases
	Failed     bool    `json:"coverage_failed"`
	Reason     string  `json:"coverage_reason,omitempty"`
	AllowsGaps bool    `json:"missing_allowed"` // missing cases are no failure (JUnit skips them)
}

// Validate rejects a share outside (0, 1].
func (g Gate) Validate() error {
	if g.MinCoverage < 0 || g.MinCoverage > 1 {
		return BadInput("--min-coverage %g: expected a share of the suite's cases in (0, 1], e.g. 0.9", g.MinCoverage)
	}
	return nil
}

func (g Gate) required() float64 {
	switch {
	case g.AllowMissing:
		return 0
	case g.MinCoverage == 0:
		return 1
	}
	return g.MinCoverage
}

// Judge applies the gate to a check's counts.
func (g Gate) Judge(s CheckSummary) Coverage {
	c := Coverage{Covered: s.Cases - s.Missing, Required: g.required()}
	if s.Cases > 0 {
		c.Ratio = float64(c.Covered) / float64(s.Cases)
	}
	switch {
	case c.Covered == 0:
		c.Failed = true
		c.Reason = fmt.Sprintf("no suite case was matched by a new trace (%d new traces read, %d unmatched): nothing was checked", s.Traces, s.Unmatched)
	case c.Ratio+1e-12 < c.Required:
		c.Failed = true
		c.Reason = fmt.Sprintf("%d of %d suite cases were matched by a new trace (%s), below the %s required (--min-coverage, --allow-missing)",
			c.Covered, s.Cases, percent(c.Ratio), percent(c.Required))
	}
	c.AllowsGaps = !c.Failed && c.Required < 1
	return c
}

func percent(x float64) string {
	p := math.Round(x*1000) / 10
	if p == math.Trunc(p) {
		return fmt.Sprintf("%.0f%%", p)
	}
	return fmt.Sprintf("%.1f%%", p)
}
