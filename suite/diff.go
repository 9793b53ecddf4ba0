package suite

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"

	"github.com/tracelab-dev/tracelab/cireport"
	"github.com/tracelab-dev/tracelab/model"
)

// Direction says which way a metric improves.
type Direction int

const (
	HigherBetter Direction = iota
	LowerBetter
	Neutral // a count of cases: neither better nor worse
)

// MetricDelta is one metric of one server in two reports.
type MetricDelta struct {
	Metric string   `json:"metric"`
	Old    *float64 `json:"old"`
	New    *float64 `json:"new"`
	Delta  *float64 `json:"delta"` // new - old, null when either is null
	Worse  bool     `json:"worse"`
	Better bool     `json:"better"`
	dir    Direction
}

// ClassDelta is a failure class whose count grew.
type ClassDelta struct {
	Class string `json:"class"`
	Old   int    `json:"old"`
	New   int    `json:"new"`
}

// ServerDiff compares one server's two report objects.
type ServerDiff struct {
	Server      string        `json:"server"`
	Presence    string        `json:"presence"` // both | added | removed
	Metrics     []MetricDelta `json:"metrics"`
	ClassesGrew []ClassDelta  `json:"classes_grew"`
	// Regressions name the grounding metrics that fell and a policy
	// violation rate that rose: what --fail-on-regression fails on.
	Regressions []string `json:"regressions"`
}

// ReportDiff is `tracelab report --diff OLD NEW`.
type ReportDiff struct {
	Old       string       `json:"old"`
	New       string       `json:"new"`
	Servers   []ServerDiff `json:"servers"`
	Regressed bool         `json:"regressed"`
	// Population says how the two reports' cases differ (a server in one
	// only, or another number of cases): metrics over other cases do not
	// compare. Empty when both cover the same servers and counts.
	Population []string `json:"population"`
	// FewerCases: NEW covers fewer cases than OLD on some server (or lost
	// a server), so a metric can look better by dropping the hard cases;
	// --fail-on-regression fails on it.
	FewerCases bool `json:"fewer_cases"`
}

// groundingMetrics fail --fail-on-regression when they fall.
var groundingMetrics = map[string]bool{
	"grounding_precision": true, "grounding_recall": true, "definition_match_rate": true, "freshness_pass_rate": true,
}

func reportMetrics(r *model.Report) []MetricDelta {
	f := func(v float64) *float64 { return &v }
	i := func(v int) *float64 { x := float64(v); return &x }
	return []MetricDelta{
		{Metric: "cases", Old: i(r.Cases), dir: Neutral},
		{Metric: "correct", Old: i(r.Correct), dir: HigherBetter},
		{Metric: "correct_and_grounded", Old: i(r.CorrectAndGrounded), dir: HigherBetter},
		{Metric: "grounding_precision", Old: r.GroundingPrecision, dir: HigherBetter},
		{Metric: "grounding_recall", Old: r.GroundingRecall, dir: HigherBetter},
		{Metric: "definition_match_rate", Old: r.DefinitionMatchRate, dir: HigherBetter},
		{Metric: "freshness_pass_rate", Old: r.FreshnessPassRate, dir: HigherBetter},
		{Metric: "policy_violation_rate", Old: r.PolicyViolationRate, dir: LowerBetter},
		{Metric: "clarification_loops_per_task", Old: r.ClarificationLoopsPerTask, dir: LowerBetter},
		{Metric: "cost_total_usd", Old: f(r.CostTotalUSD), dir: Neutral},
		{Metric: "cost_per_correct_answer_usd", Old: r.CostPerCorrectAnswerUSD, dir: LowerBetter},
		{Metric: "needs_human_review", Old: i(r.NeedsHumanReview), dir: LowerBetter},
	}
}

const diffEps = 1e-9

// DiffReports compares two report.json arrays server by server.
func DiffReports(oldName string, old []model.Report, newName string, cur []model.Report) ReportDiff {
	d := ReportDiff{Old: oldName, New: newName, Population: []string{}}
	byServer := map[string][2]*model.Report{}
	for i := range old {
		p := byServer[old[i].Server]
		p[0] = &old[i]
		byServer[old[i].Server] = p
	}
	for i := range cur {
		p := byServer[cur[i].Server]
		p[1] = &cur[i]
		byServer[cur[i].Server] = p
	}
	servers := make([]string, 0, len(byServer))
	for s := range byServer {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	empty := &model.Report{}
	for _, s := range servers {
		p := byServer[s]
		sd := ServerDiff{Server: s, Presence: "both", ClassesGrew: []ClassDelta{}, Regressions: []string{}}
		o, n := p[0], p[1]
		switch {
		case o == nil:
			sd.Presence, o = "added", empty
			d.Population = append(d.Population, fmt.Sprintf("%s: only in NEW (%d cases)", s, n.Cases))
		case n == nil:
			sd.Presence, n = "removed", empty
			d.Population = append(d.Population, fmt.Sprintf("%s: only in OLD (%d cases), missing from NEW", s, o.Cases))
			d.FewerCases = d.FewerCases || o.Cases > 0
		case o.Cases != n.Cases:
			d.Population = append(d.Population, fmt.Sprintf("%s: %d cases in OLD, %d in NEW", s, o.Cases, n.Cases))
			d.FewerCases = d.FewerCases || n.Cases < o.Cases
		}
		olds, news := reportMetrics(o), reportMetrics(n)
		for k := range olds {
			m := olds[k]
			if sd.Presence == "added" {
				m.Old = nil
			}
			m.New = news[k].Old
			if sd.Presence == "removed" {
				m.New = nil
			}
			if m.Old != nil && m.New != nil {
				v := math.Round((*m.New-*m.Old)*1e6) / 1e6
				m.Delta = &v
				switch {
				case m.dir == HigherBetter && v < -diffEps, m.dir == LowerBetter && v > diffEps:
					m.Worse = true
				case m.dir == HigherBetter && v > diffEps, m.dir == LowerBetter && v < -diffEps:
					m.Better = true
				}
			}
			if sd.Presence == "both" {
				if groundingMetrics[m.Metric] && m.Worse {
					sd.Regressions = append(sd.Regressions, fmt.Sprintf("%s fell from %s to %s", m.Metric, fmtNum(m.Old), fmtNum(m.New)))
				}
				// A policy violation rate that appears where none was measured counts as rising from zero.
				if m.Metric == "policy_violation_rate" && m.New != nil && *m.New > diffEps && (m.Old == nil || *m.New-*m.Old > diffEps) {
					from := 0.0
					if m.Old != nil {
						from = *m.Old
					}
					m.Worse = true
					sd.Regressions = append(sd.Regressions, fmt.Sprintf("policy_violation_rate rose from %s to %s", fmtNum(&from), fmtNum(m.New)))
				}
			}
			sd.Metrics = append(sd.Metrics, m)
		}
		for _, c := range model.Classes {
			on, nn := o.FailuresByClass[string(c)], n.FailuresByClass[string(c)]
			if nn > on {
				sd.ClassesGrew = append(sd.ClassesGrew, ClassDelta{Class: string(c), Old: on, New: nn})
			}
		}
		if len(sd.Regressions) > 0 {
			d.Regressed = true
		}
		d.Servers = append(d.Servers, sd)
	}
	return d
}

func fmtNum(p *float64) string { return cireport.Number(p) }

// ReadReport reads a report.json file: a JSON array of report objects.
// (app.ReadReport also checks one that belongs to an exported suite is
// the pair of its cases.jsonl.)
func ReadReport(path string) ([]model.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, BadInput("%v", err)
	}
	var rs []model.Report
	if err := json.Unmarshal(data, &rs); err != nil {
		return nil, BadInput("%s: expected report.json, a JSON array of one object per server: %v", path, err)
	}
	for i, r := range rs {
		if r.Server == "" && r.Cases == 0 {
			return nil, BadInput("%s: [%d]: not a report object (no server, no cases)", path, i)
		}
	}
	return rs, nil
}
