package app

import (
	"fmt"
	"strings"
)

// The judge gate of `tracelab check --min-judge-kappa K`: every judge that
// labeled the suite (its labels ride in cases.jsonl with export --labels
// all; suite.json names the judges) must agree with the people at least K
// (Cohen's kappa) on the cases both labeled, on the failure class as a
// whole and on each class either side used.

// JudgeGate is the gate's verdict.
type JudgeGate struct {
	Min    float64           `json:"min_kappa"`
	Judges []JudgeGateResult `json:"judges"`
	Failed bool              `json:"failed"`
	Reason string            `json:"reason,omitempty"`
}

// JudgeGateResult is one judge's part of the gate.
type JudgeGateResult struct {
	Calibration JudgeCalibration `json:"calibration"`
	Short       []string         `json:"short,omitempty"` // the classes below the minimum
}

// judgeGate judges the suite's judges against min.
func judgeGate(min float64, suitePath string, cases []JudgeCalibration, m *SuiteManifest) JudgeGate {
	g := JudgeGate{Min: min, Judges: []JudgeGateResult{}}
	if len(cases) == 0 {
		if m != nil && len(m.Judges) > 0 {
			g.Failed = true
			g.Reason = fmt.Sprintf("suite.json names %d judge(s) but %s carries no rater labels: export it with --labels all", len(m.Judges), suitePath)
		}
		return g
	}
	var why []string
	for _, cal := range cases {
		r := JudgeGateResult{Calibration: cal}
		if cal.Cases == 0 {
			r.Short = []string{"no case labeled by both the judge and people"}
		} else {
			r.Short = cal.ShortClasses(min)
		}
		if len(r.Short) > 0 {
			why = append(why, fmt.Sprintf("%s below kappa %g on %s", cal.Judge, min, strings.Join(r.Short, ", ")))
		}
		g.Judges = append(g.Judges, r)
	}
	if len(why) > 0 {
		g.Failed, g.Reason = true, strings.Join(why, "; ")
	}
	return g
}
