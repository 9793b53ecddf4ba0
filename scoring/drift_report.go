package scoring

import (
	"sort"
	"time"
)

// The drift report is data: cireport renders it for terminals and CI.

// DriftReport is what `tracelab drift` prints.
type DriftReport struct {
	Findings []DriftFinding `json:"findings"`
	Summary  DriftSummary   `json:"summary"`
	Cases    []AffectedCase `json:"cases,omitempty"` // nil when no cases were given
	// Acknowledged are the findings an ack file suppressed, with its reason;
	// ExpiredAcks the entries past their expiry, which suppress nothing.
	Acknowledged []AckedFinding `json:"acknowledged,omitempty"`
	ExpiredAcks  []DriftAck     `json:"expired_acks,omitempty"`
	// CasesChecked says whether cases were given at all (text says "none").
	CasesChecked bool `json:"-"`
}

// DriftSummary counts findings by lane and carries both hashes per tool.
type DriftSummary struct {
	Old      string       `json:"old"` // the sources compared, as named on the command line
	New      string       `json:"new"`
	Breaking int          `json:"breaking"`
	Risky    int          `json:"risky"`
	Additive int          `json:"additive"`
	Security int          `json:"security"`
	Ignored  int          `json:"ignored"`
	Acked    int          `json:"acknowledged"`
	FailOn   Lane         `json:"fail_on"`
	Failed   bool         `json:"failed"`
	Tools    []ToolHashes `json:"tools"`
}

// ToolHashes pairs a tool's OLD and NEW hashes; empty when absent there.
type ToolHashes struct {
	Name        string `json:"name"`
	OldWire     string `json:"old_wire,omitempty"`
	NewWire     string `json:"new_wire,omitempty"`
	OldSemantic string `json:"old_semantic,omitempty"`
	NewSemantic string `json:"new_semantic,omitempty"`
}

// NewDriftReport assembles the report: severity overrides applied, lanes
// counted, and whether the findings reach failOn (breaking by default).
func NewDriftReport(oldName, newName string, res DriftResult, sev DriftSeverity, failOn Lane) DriftReport {
	fs, ignored := sev.Apply(res.Findings)
	if failOn == "" {
		failOn = LaneBreaking
	}
	s := DriftSummary{Old: oldName, New: newName, Ignored: ignored, FailOn: failOn}
	s.count(fs)
	byName := map[string]*ToolHashes{}
	get := func(n string) *ToolHashes {
		if byName[n] == nil {
			byName[n] = &ToolHashes{Name: n}
		}
		return byName[n]
	}
	for _, d := range res.Old {
		h := get(d.Name)
		h.OldWire, h.OldSemantic = d.Wire, d.Semantic
	}
	for _, d := range res.New {
		h := get(d.Name)
		h.NewWire, h.NewSemantic = d.Wire, d.Semantic
	}
	for _, h := range byName {
		s.Tools = append(s.Tools, *h)
	}
	sort.Slice(s.Tools, func(i, j int) bool { return s.Tools[i].Name < s.Tools[j].Name })
	if fs == nil {
		fs = []DriftFinding{}
	}
	return DriftReport{Findings: fs, Summary: s}
}

// count sets the lane counts and the verdict from the findings.
func (s *DriftSummary) count(fs []DriftFinding) {
	s.Breaking, s.Risky, s.Additive, s.Security, s.Failed = 0, 0, 0, 0, false
	for _, f := range fs {
		switch f.Lane {
		case LaneBreaking:
			s.Breaking++
		case LaneRisky:
			s.Risky++
		case LaneAdditive:
			s.Additive++
		}
		if f.Security {
			s.Security++
		}
		if f.Lane.rank() <= s.FailOn.rank() {
			s.Failed = true
		}
	}
}

// LaneAtOrAbove reports whether lane l reaches the fail-on lane.
func (s DriftSummary) LaneAtOrAbove(l Lane) bool { return l.rank() <= s.FailOn.rank() }

// WithAcks drops the findings the ack file acknowledges (as of now),
// recounts the lanes and the verdict, and lists the expired entries.
// Attach cases after acks, so acknowledged changes affect no case.
func (r DriftReport) WithAcks(acks DriftAcks, now time.Time) DriftReport {
	res := acks.Apply(r.Findings, now)
	r.Findings, r.Acknowledged, r.ExpiredAcks = res.Findings, res.Acked, res.Expired
	r.Summary.Acked = len(res.Acked)
	r.Summary.count(r.Findings)
	return r
}

// WithCases attaches the affected cases.
func (r DriftReport) WithCases(cases []AffectedCase) DriftReport {
	r.Cases, r.CasesChecked = cases, true
	if r.Cases == nil {
		r.Cases = []AffectedCase{}
	}
	return r
}
