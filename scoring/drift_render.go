package scoring

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"sort"
	"strings"

	"tracelab/model"
)

// DriftFormats are the output formats RenderDrift writes.
var DriftFormats = []string{"text", "json", "markdown", "junit", "github"}

// DriftReport is what `tracelab drift` prints.
type DriftReport struct {
	Findings []DriftFinding `json:"findings"`
	Summary  DriftSummary   `json:"summary"`
	Cases    []AffectedCase `json:"cases,omitempty"` // nil when no cases were given
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
		if f.Lane.rank() <= failOn.rank() {
			s.Failed = true
		}
	}
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

// WithCases attaches the affected cases.
func (r DriftReport) WithCases(cases []AffectedCase) DriftReport {
	r.Cases, r.CasesChecked = cases, true
	if r.Cases == nil {
		r.Cases = []AffectedCase{}
	}
	return r
}

// RenderDrift writes the report in one of DriftFormats. Plain text only:
// colors belong to themes/.
func RenderDrift(format string, r DriftReport) (string, error) {
	switch format {
	case "text", "":
		return renderText(r), nil
	case "json":
		var b bytes.Buffer
		enc := model.NewJSONEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return "", err
		}
		return b.String(), nil
	case "markdown":
		return renderMarkdown(r), nil
	case "junit":
		return renderJUnit(r)
	case "github":
		return renderGitHub(r), nil
	}
	return "", fmt.Errorf("unknown format %q (supported: %s)", format, strings.Join(DriftFormats, ", "))
}

// driftToolGroup is the findings of one tool with its worst lane.
type driftToolGroup struct {
	tool     string
	lane     Lane
	findings []DriftFinding
	cases    []AffectedCase
}

func groupDriftByTool(r DriftReport) []driftToolGroup {
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
		if f.Lane.rank() < g.lane.rank() {
			g.lane = f.Lane
		}
	}
	for _, c := range r.Cases {
		if i, ok := idx[c.Tool]; ok {
			gs[i].cases = append(gs[i].cases, c)
		}
	}
	sort.SliceStable(gs, func(i, j int) bool {
		if gs[i].lane.rank() != gs[j].lane.rank() {
			return gs[i].lane.rank() < gs[j].lane.rank()
		}
		return gs[i].tool < gs[j].tool
	})
	return gs
}

func driftSummaryLine(s DriftSummary) string {
	line := fmt.Sprintf("%d breaking, %d risky, %d additive", s.Breaking, s.Risky, s.Additive)
	if s.Security > 0 {
		line += fmt.Sprintf(" (%d security)", s.Security)
	}
	if s.Ignored > 0 {
		line += fmt.Sprintf("; %d ignored by the severity file", s.Ignored)
	}
	return line + fmt.Sprintf(" across %d tool(s)", len(s.Tools))
}

func driftVerdict(s DriftSummary) string {
	if s.Failed {
		return fmt.Sprintf("FAIL: changes at or above %s", s.FailOn)
	}
	return fmt.Sprintf("PASS: no changes at or above %s", s.FailOn)
}

// printable makes untrusted text (tool and property names come from the
// listings) safe to print: control characters, which could move the
// cursor, recolor a terminal or start a new CI log line, and Unicode
// bidirectional overrides, which could reorder what a reviewer reads, are
// shown as escapes instead.
func printable(s string) string {
	return model.EscapeRunes(s, func(r rune) bool {
		return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || model.IsBidiControl(r)
	})
}

// findingWhere is a finding's path, or "(tool)" for the tool as a whole.
func findingWhere(f DriftFinding) string {
	if f.Path == "" {
		return "(tool)"
	}
	return f.Path
}

func securityMark(f DriftFinding) string {
	if f.Security {
		return " [security]"
	}
	return ""
}

func renderText(r DriftReport) string {
	var b strings.Builder
	if len(r.Findings) == 0 {
		fmt.Fprintf(&b, "No tool contract drift between %s and %s (%d tool(s) compared).\n", printable(r.Summary.Old), printable(r.Summary.New), len(r.Summary.Tools))
		if r.Summary.Ignored > 0 {
			fmt.Fprintf(&b, "%d finding(s) ignored by the severity file.\n", r.Summary.Ignored)
		}
		return b.String()
	}
	for i, g := range groupDriftByTool(r) {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Schema drift detected for tool: %s\n", printable(g.tool))
		fmt.Fprintf(&b, "Lane: %s\n", strings.ToUpper(string(g.lane)))
		b.WriteString("Reason:\n")
		for _, f := range g.findings {
			fmt.Fprintf(&b, "  - %s: %s%s\n", f.Lane, printable(f.Message), securityMark(f))
			fmt.Fprintf(&b, "    %s at %s [%s]\n", f.ID, printable(findingWhere(f)), f.Fingerprint)
		}
		if r.CasesChecked && g.lane != LaneAdditive {
			b.WriteString("Cases affected:")
			if len(g.cases) == 0 {
				b.WriteString(" none\n")
			} else {
				b.WriteString("\n")
				for _, c := range g.cases {
					fmt.Fprintf(&b, "  - %s (tier %d, %s): %s\n", printable(c.CaseID), c.Tier, c.Tier, printable(c.Evidence))
				}
			}
		}
		fmt.Fprintf(&b, "Recommended action: %s\n", driftRecommendation(g.lane))
	}
	fmt.Fprintf(&b, "\nSummary: %s\n%s\n", driftSummaryLine(r.Summary), driftVerdict(r.Summary))
	return b.String()
}

// driftRecommendation is what the seed's CI output suggests per lane.
func driftRecommendation(l Lane) string {
	switch l {
	case LaneBreaking:
		return "restore backward compatibility, or version the tool and update adapters and fixtures in the same change"
	case LaneRisky:
		return "review the change and the affected cases before accepting the new snapshot"
	}
	return "accept the new snapshot"
}

func markdownCell(s string) string {
	s = strings.ReplaceAll(printable(s), "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func renderMarkdown(r DriftReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Tool contract drift: `%s` → `%s`\n\n", markdownCell(r.Summary.Old), markdownCell(r.Summary.New))
	fmt.Fprintf(&b, "**%s**: %s\n\n", driftVerdict(r.Summary), driftSummaryLine(r.Summary))
	if len(r.Findings) == 0 {
		b.WriteString("No changes.\n")
		return b.String()
	}
	b.WriteString("| Lane | Tool | Check | Path | Change |\n|---|---|---|---|---|\n")
	for _, g := range groupDriftByTool(r) {
		for _, f := range g.findings {
			lane := strings.ToUpper(string(f.Lane))
			if f.Security {
				lane += " (security)"
			}
			fmt.Fprintf(&b, "| %s | `%s` | `%s` | `%s` | %s |\n", lane, markdownCell(f.Tool), f.ID, markdownCell(findingWhere(f)), markdownCell(f.Message))
		}
	}
	if r.CasesChecked {
		b.WriteString("\n### Cases affected\n\n")
		if len(r.Cases) == 0 {
			b.WriteString("None.\n")
		} else {
			b.WriteString("| Case | Tool | Tier | Evidence |\n|---|---|---|---|\n")
			for _, c := range r.Cases {
				fmt.Fprintf(&b, "| `%s` | `%s` | %d (%s) | %s |\n", markdownCell(c.CaseID), markdownCell(c.Tool), c.Tier, c.Tier, markdownCell(c.Evidence))
			}
		}
	}
	return b.String()
}

// JUnit shapes, as read by GitLab, Jenkins and most CI test reporters.
type driftJUnitSuites struct {
	XMLName  xml.Name          `xml:"testsuites"`
	Name     string            `xml:"name,attr"`
	Tests    int               `xml:"tests,attr"`
	Failures int               `xml:"failures,attr"`
	Suites   []driftJUnitSuite `xml:"testsuite"`
}

type driftJUnitSuite struct {
	Name     string           `xml:"name,attr"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Cases    []driftJUnitCase `xml:"testcase"`
}

type driftJUnitCase struct {
	Name      string             `xml:"name,attr"`
	Classname string             `xml:"classname,attr"`
	Failure   *driftJUnitFailure `xml:"failure,omitempty"`
	SystemOut string             `xml:"system-out,omitempty"`
}

type driftJUnitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// renderJUnit writes one test case per tool compared: it fails when any
// of its findings reaches the fail-on lane; the rest go to system-out.
func renderJUnit(r DriftReport) (string, error) {
	byTool := map[string][]DriftFinding{}
	for _, f := range r.Findings {
		byTool[f.Tool] = append(byTool[f.Tool], f)
	}
	// One test case per tool compared; a renamed tool is reported under
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
	suite := driftJUnitSuite{Name: printable("tracelab drift " + r.Summary.Old + " → " + r.Summary.New)}
	for _, n := range sorted {
		tc := driftJUnitCase{Name: printable(n), Classname: "drift"}
		var fail, info []string
		for _, f := range byTool[n] {
			line := printable(fmt.Sprintf("%s %s at %s: %s%s [%s]", strings.ToUpper(string(f.Lane)), f.ID, findingWhere(f), f.Message, securityMark(f), f.Fingerprint))
			if f.Lane.rank() <= r.Summary.FailOn.rank() {
				fail = append(fail, line)
			} else {
				info = append(info, line)
			}
		}
		for _, c := range r.Cases {
			if c.Tool == n {
				info = append(info, printable(fmt.Sprintf("case %s (tier %d, %s): %s", c.CaseID, c.Tier, c.Tier, c.Evidence)))
			}
		}
		if len(fail) > 0 {
			tc.Failure = &driftJUnitFailure{
				Message: fmt.Sprintf("%d change(s) at or above %s", len(fail), r.Summary.FailOn),
				Type:    "drift",
				Text:    strings.Join(fail, "\n"),
			}
			suite.Failures++
		}
		tc.SystemOut = strings.Join(info, "\n")
		suite.Cases = append(suite.Cases, tc)
		suite.Tests++
	}
	doc := driftJUnitSuites{Name: "tracelab", Tests: suite.Tests, Failures: suite.Failures, Suites: []driftJUnitSuite{suite}}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", err
	}
	return xml.Header + string(out) + "\n", nil
}

// ghEscape escapes a GitHub workflow command's message; ghProp escapes a
// property value (docs: "Workflow commands for GitHub Actions").
func ghEscape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// renderGitHub writes one workflow command per finding: error for lanes
// at or above fail-on, warning for risky, notice for the rest; the file is
// NEW, so the annotation lands on the changed listing.
func renderGitHub(r DriftReport) string {
	var b strings.Builder
	for _, f := range r.Findings {
		level := "notice"
		switch {
		case f.Lane.rank() <= r.Summary.FailOn.rank():
			level = "error"
		case f.Lane == LaneRisky:
			level = "warning"
		}
		title := printable(fmt.Sprintf("%s %s: %s", strings.ToUpper(string(f.Lane)), f.Tool, f.ID))
		msg := printable(fmt.Sprintf("%s at %s%s [%s]", f.Message, findingWhere(f), securityMark(f), f.Fingerprint))
		fmt.Fprintf(&b, "::%s file=%s,title=%s::%s\n", level, ghProp(printable(r.Summary.New)), ghProp(title), ghEscape(msg))
	}
	fmt.Fprintf(&b, "::notice title=%s::%s\n", ghProp("tracelab drift"), ghEscape(driftSummaryLine(r.Summary)+"; "+driftVerdict(r.Summary)))
	return b.String()
}
