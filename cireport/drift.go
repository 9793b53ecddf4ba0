package cireport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
)

// DriftFormats are the output formats RenderDrift writes.
var DriftFormats = []string{"text", "json", "markdown", "junit", "github"}

// RenderDrift writes a drift report in one of DriftFormats; run is when the
// diff ran and how long it took (JUnit carries it). Plain text only:
// colors belong to themes/.
func RenderDrift(format string, r scoring.DriftReport, run JUnitRun) (string, error) {
	switch format {
	case "text", "":
		return driftText(r), nil
	case "json":
		var b bytes.Buffer
		enc := model.NewJSONEncoder(&b) // C1 and bidi controls escaped too
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return "", err
		}
		return b.String(), nil
	case "markdown":
		return driftMarkdown(r), nil
	case "junit":
		return driftJUnit(r, run)
	case "github":
		return driftGitHub(r), nil
	}
	return "", fmt.Errorf("unknown format %q (supported: %s)", format, strings.Join(DriftFormats, ", "))
}

// driftToolGroup is the findings of one tool with its worst lane.
type driftToolGroup struct {
	tool     string
	lane     scoring.Lane
	findings []scoring.DriftFinding
	cases    []scoring.AffectedCase
}

func groupDriftByTool(r scoring.DriftReport) []driftToolGroup {
	var gs []driftToolGroup
	idx := map[string]int{}
	for _, f := range r.Findings {
		i, ok := idx[f.Tool]
		if !ok {
			i = len(gs)
			idx[f.Tool] = i
			gs = append(gs, driftToolGroup{tool: f.Tool, lane: f.Lane})
		}
		g := &gs[i]
		g.findings = append(g.findings, f)
		if f.Lane.Rank() < g.lane.Rank() {
			g.lane = f.Lane
		}
	}
	for _, c := range r.Cases {
		if i, ok := idx[c.Tool]; ok {
			gs[i].cases = append(gs[i].cases, c)
		}
	}
	sort.SliceStable(gs, func(i, j int) bool {
		if gs[i].lane.Rank() != gs[j].lane.Rank() {
			return gs[i].lane.Rank() < gs[j].lane.Rank()
		}
		return gs[i].tool < gs[j].tool
	})
	return gs
}

func driftSummaryLine(s scoring.DriftSummary) string {
	line := fmt.Sprintf("%d breaking, %d risky, %d additive", s.Breaking, s.Risky, s.Additive)
	if s.Security > 0 {
		line += fmt.Sprintf(" (%d security)", s.Security)
	}
	if s.Ignored > 0 {
		line += fmt.Sprintf("; %d ignored by the severity file", s.Ignored)
	}
	if s.Acked > 0 {
		line += fmt.Sprintf("; %d acknowledged", s.Acked)
	}
	return line + fmt.Sprintf(" across %d tool(s)", len(s.Tools))
}

func driftVerdict(s scoring.DriftSummary) string {
	if s.Failed {
		return fmt.Sprintf("FAIL: changes at or above %s", s.FailOn)
	}
	return fmt.Sprintf("PASS: no changes at or above %s", s.FailOn)
}

// laneName is the lane as shown: risky-low for the lower risky tier.
func laneName(f scoring.DriftFinding) string {
	if f.Low {
		return "risky-low"
	}
	return string(f.Lane)
}

// findingWhere is a finding's path, or "(tool)" for the tool as a whole.
func findingWhere(f scoring.DriftFinding) string {
	if f.Path == "" {
		return "(tool)"
	}
	return f.Path
}

func securityMark(f scoring.DriftFinding) string {
	if f.Security {
		return " [security]"
	}
	return ""
}

// proseChecks are the checks whose old and new values are prose, shown as
// a word diff.
var proseChecks = map[string]bool{
	"tool-description-changed": true, "tool-title-changed": true,
	"input-description-changed": true, "output-description-changed": true,
}

// proseDiff is the word diff of a prose finding, "" for any other.
func proseDiff(f scoring.DriftFinding) string {
	if !proseChecks[f.ID] {
		return ""
	}
	var o, n string
	if len(f.Old) > 0 && json.Unmarshal(f.Old, &o) != nil {
		return ""
	}
	if len(f.New) > 0 && json.Unmarshal(f.New, &n) != nil {
		return ""
	}
	return WordDiff(o, n)
}

// findingLine is a finding on one line, for GitHub and JUnit: lane, check,
// path, message, the word diff of prose, fingerprint.
func findingLine(f scoring.DriftFinding) string {
	line := fmt.Sprintf("%s %s at %s: %s%s", strings.ToUpper(laneName(f)), f.ID, findingWhere(f), f.Message, securityMark(f))
	if d := proseDiff(f); d != "" {
		line += ": " + d
	}
	return line + " [" + f.Fingerprint + "]"
}

func ackWhere(a scoring.DriftAck) string { return fmt.Sprintf("%s:%d", a.File, a.Line) }

func driftText(r scoring.DriftReport) string {
	var b strings.Builder
	if len(r.Findings) == 0 {
		fmt.Fprintf(&b, "No tool contract drift between %s and %s (%d tool(s) compared).\n", Printable(r.Summary.Old), Printable(r.Summary.New), len(r.Summary.Tools))
		if r.Summary.Ignored > 0 {
			fmt.Fprintf(&b, "%d finding(s) ignored by the severity file.\n", r.Summary.Ignored)
		}
		driftAcksText(&b, r)
		return b.String()
	}
	for i, g := range groupDriftByTool(r) {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Schema drift detected for tool: %s\n", Printable(g.tool))
		fmt.Fprintf(&b, "Lane: %s\n", strings.ToUpper(string(g.lane)))
		b.WriteString("Reason:\n")
		for _, f := range g.findings {
			fmt.Fprintf(&b, "  - %s: %s%s\n", laneName(f), Printable(f.Message), securityMark(f))
			if d := proseDiff(f); d != "" {
				fmt.Fprintf(&b, "    words: %s\n", d)
			}
			fmt.Fprintf(&b, "    %s at %s [%s]\n", f.ID, Printable(findingWhere(f)), f.Fingerprint)
		}
		if r.CasesChecked && g.lane != scoring.LaneAdditive {
			b.WriteString("Cases affected:")
			if len(g.cases) == 0 {
				b.WriteString(" none\n")
			} else {
				b.WriteString("\n")
				for _, c := range g.cases {
					fmt.Fprintf(&b, "  - %s (tier %d, %s): %s\n", Printable(c.CaseID), c.Tier, c.Tier, Printable(c.Evidence))
				}
			}
		}
		fmt.Fprintf(&b, "Recommended action: %s\n", driftRecommendation(g.lane))
	}
	driftAcksText(&b, r)
	fmt.Fprintf(&b, "\nSummary: %s\n%s\n", driftSummaryLine(r.Summary), driftVerdict(r.Summary))
	return b.String()
}

// driftAcksText lists what the ack file suppressed and which entries expired.
func driftAcksText(b *strings.Builder, r scoring.DriftReport) {
	if len(r.Acknowledged) > 0 {
		fmt.Fprintf(b, "\nAcknowledged (%d, not counted):\n", len(r.Acknowledged))
		for _, a := range r.Acknowledged {
			fmt.Fprintf(b, "  - %s %s %s at %s: %s (%s)\n", a.Finding.Fingerprint, Printable(a.Finding.Tool), a.Finding.ID, Printable(findingWhere(a.Finding)), Printable(a.Ack.Reason), Printable(ackWhere(a.Ack)))
		}
	}
	if len(r.ExpiredAcks) > 0 {
		fmt.Fprintf(b, "\nExpired acknowledgements (%d, suppressing nothing; renew or remove them):\n", len(r.ExpiredAcks))
		for _, a := range r.ExpiredAcks {
			fmt.Fprintf(b, "  - %s expired %s: %s (%s)\n", a.Fingerprint, a.Expires, Printable(a.Reason), Printable(ackWhere(a)))
		}
	}
}

// driftRecommendation is what the seed's CI output suggests per lane.
func driftRecommendation(l scoring.Lane) string {
	switch l {
	case scoring.LaneBreaking:
		return "restore backward compatibility, or version the tool and update adapters and fixtures in the same change"
	case scoring.LaneRisky:
		return "review the change and the affected cases before accepting the new snapshot"
	}
	return "accept the new snapshot"
}

func driftMarkdown(r scoring.DriftReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Tool contract drift: %s → %s\n\n", Code(r.Summary.Old), Code(r.Summary.New))
	fmt.Fprintf(&b, "**%s**: %s\n\n", driftVerdict(r.Summary), driftSummaryLine(r.Summary))
	if len(r.Findings) == 0 {
		b.WriteString("No changes.\n")
	} else {
		t := Table{Header: []string{"Lane", "Tool", "Check", "Path", "Change"}}
		for _, g := range groupDriftByTool(r) {
			for _, f := range g.findings {
				lane := strings.ToUpper(laneName(f))
				if f.Security {
					lane += " (security)"
				}
				change := Text(f.Message)
				if d := proseDiff(f); d != "" {
					change += ": " + Text(d)
				}
				t.Rows = append(t.Rows, []string{lane, Code(f.Tool), Code(f.ID), Code(findingWhere(f)), change})
			}
		}
		b.WriteString(t.String())
	}
	if r.CasesChecked && len(r.Findings) > 0 {
		b.WriteString("\n### Cases affected\n\n")
		if len(r.Cases) == 0 {
			b.WriteString("None.\n")
		} else {
			t := Table{Header: []string{"Case", "Tool", "Tier", "Evidence"}}
			for _, c := range r.Cases {
				t.Rows = append(t.Rows, []string{Code(c.CaseID), Code(c.Tool), fmt.Sprintf("%d (%s)", c.Tier, c.Tier), Text(c.Evidence)})
			}
			b.WriteString(t.String())
		}
	}
	if len(r.Acknowledged) > 0 {
		b.WriteString("\n### Acknowledged\n\n")
		t := Table{Header: []string{"Fingerprint", "Tool", "Check", "Reason", "Expires"}}
		for _, a := range r.Acknowledged {
			exp := a.Ack.Expires
			if exp == "" {
				exp = NoValue
			}
			t.Rows = append(t.Rows, []string{Code(a.Finding.Fingerprint), Code(a.Finding.Tool), Code(a.Finding.ID), Text(a.Ack.Reason), exp})
		}
		b.WriteString(t.String())
	}
	if len(r.ExpiredAcks) > 0 {
		b.WriteString("\n### Expired acknowledgements\n\n")
		t := Table{Header: []string{"Fingerprint", "Expired", "Reason", "Where"}}
		for _, a := range r.ExpiredAcks {
			t.Rows = append(t.Rows, []string{Code(a.Fingerprint), a.Expires, Text(a.Reason), Code(ackWhere(a))})
		}
		b.WriteString(t.String())
	}
	return b.String()
}

// driftJUnit writes one testcase per tool compared: it fails when any of
// its findings reaches the fail-on lane; the rest go to system-out.
func driftJUnit(r scoring.DriftReport, run JUnitRun) (string, error) {
	byTool := map[string][]scoring.DriftFinding{}
	for _, f := range r.Findings {
		byTool[f.Tool] = append(byTool[f.Tool], f)
	}
	// One testcase per tool compared; a renamed tool is reported under
	// its new name only.
	renamedFrom := map[string]bool{}
	for _, f := range r.Findings {
		var from string
		if f.ID == "tool-renamed" && json.Unmarshal(f.Old, &from) == nil {
			renamedFrom[from] = true
		}
	}
	names := map[string]bool{}
	for _, t := range r.Summary.Tools {
		if !renamedFrom[t.Name] {
			names[t.Name] = true
		}
	}
	for n := range byTool {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	suite := NewSuite("tracelab drift "+r.Summary.Old+" → "+r.Summary.New, run)
	for _, n := range sorted {
		tc := JUnitCase{Name: n, Classname: "drift"}
		var fail, info []string
		for _, f := range byTool[n] {
			if r.Summary.LaneAtOrAbove(f.Lane) {
				fail = append(fail, findingLine(f))
			} else {
				info = append(info, findingLine(f))
			}
		}
		for _, c := range r.Cases {
			if c.Tool == n {
				info = append(info, fmt.Sprintf("case %s (tier %d, %s): %s", c.CaseID, c.Tier, c.Tier, c.Evidence))
			}
		}
		if len(fail) > 0 {
			tc.Failure = &JUnitProblem{
				Message: fmt.Sprintf("%d change(s) at or above %s", len(fail), r.Summary.FailOn),
				Type:    "drift",
				Text:    strings.Join(fail, "\n"),
			}
		}
		tc.SystemOut = strings.Join(info, "\n")
		suite.Add(tc)
	}
	var out []string
	out = append(out, driftSummaryLine(r.Summary)+"; "+driftVerdict(r.Summary))
	for _, a := range r.Acknowledged {
		out = append(out, fmt.Sprintf("acknowledged %s (%s %s): %s", a.Finding.Fingerprint, a.Finding.Tool, a.Finding.ID, a.Ack.Reason))
	}
	for _, a := range r.ExpiredAcks {
		out = append(out, fmt.Sprintf("expired acknowledgement %s (%s, expired %s): %s", a.Fingerprint, ackWhere(a), a.Expires, a.Reason))
	}
	suite.SystemOut = printableBlock(strings.Join(out, "\n"))
	b, err := MarshalJUnit("tracelab", run, suite)
	return string(b), err
}

// driftGitHub writes one workflow command per finding: error for lanes at
// or above fail-on, warning for risky, notice for the rest; the file is
// NEW, so the annotation lands on the changed listing. An expired
// acknowledgement is a warning of its own.
func driftGitHub(r scoring.DriftReport) string {
	var b strings.Builder
	for _, f := range r.Findings {
		level := "notice"
		switch {
		case r.Summary.LaneAtOrAbove(f.Lane):
			level = "error"
		case f.Lane == scoring.LaneRisky && !f.Low:
			level = "warning"
		}
		title := fmt.Sprintf("%s %s: %s", strings.ToUpper(laneName(f)), f.Tool, f.ID)
		msg := fmt.Sprintf("%s at %s%s", f.Message, findingWhere(f), securityMark(f))
		if d := proseDiff(f); d != "" {
			msg += ": " + d
		}
		b.WriteString(Annotation(level, r.Summary.New, title, msg+" ["+f.Fingerprint+"]"))
	}
	for _, a := range r.ExpiredAcks {
		b.WriteString(Annotation("warning", a.File, "tracelab drift: expired acknowledgement", fmt.Sprintf("%s expired %s (line %d): %s", a.Fingerprint, a.Expires, a.Line, a.Reason)))
	}
	b.WriteString(Annotation("notice", "", "tracelab drift", driftSummaryLine(r.Summary)+"; "+driftVerdict(r.Summary)))
	return b.String()
}
