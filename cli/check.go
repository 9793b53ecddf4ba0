package cli

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"tracelab/app"
	"tracelab/model"
)

var checkFormats = []string{"text", "json", "markdown", "github"}

func newCheckCmd() *cobra.Command {
	var in app.CheckInput
	var format, junit, report string
	cmd := &cobra.Command{
		Use:   "check --suite cases.jsonl [--policy FILE] NEW_TRACES...",
		Short: "Rerun a regression suite on new traces: exit 1 on a regression or a policy violation",
		Long: `Check imports NEW_TRACES (any supported format) into a temporary database, matches
each trace to its suite case (by metadata.case_id, else by identical question and
as_user), scores it against the case's gold ("-" reads the traces from standard input) and
says per case:

  pass       the suite label was correct and grounded, and so is the new trace
  regressed  the label was correct and grounded and the new trace is not,
             or the label was correct and the new answer is wrong
  fixed      the label was not correct and grounded; the new trace is
  failing    the label was not correct and grounded; the new trace still is not
  missing    no new trace for the case

with the reason in one line (forbidden field, required field missing, predicate
that differs, freshness bound, policy violation, wrong answer). When several new
traces match one case, the worst verdict stands.

Check never opens the workbench database (--db is ignored): the suite, the new
traces and the scoring files are all it reads, and its temporary database is
removed when it ends.

Exit status: 0 when nothing regressed and no policy violation was found, 1 on any
regression or any policy violation (a release blocker), 2 on bad input.`,
		Example: `  tracelab check --suite suite/cases.jsonl --policy policy.json runs/*.jsonl
  tracelab check --suite suite/cases.jsonl --junit check.xml --format github new.jsonl
  tracelab check --suite suite/cases.jsonl --format json --report new-report.json new.jsonl
  ./replay-app.sh | tracelab check --suite suite/cases.jsonl -`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(checkFormats, format) {
				return withCode(2, fmt.Errorf("--format %q is not one of %s", format, strings.Join(checkFormats, ", ")))
			}
			in.Traces, in.Stdin = args, cmd.InOrStdin()
			rep, err := app.RunCheck(cmd.Context(), in)
			if errors.Is(err, app.ErrBadInput) {
				return withCode(2, err)
			}
			if err != nil {
				return err
			}
			if junit != "" {
				if err := app.WriteFileAtomic(junit, func(f *os.File) error { return writeCheckJUnit(f, rep) }); err != nil {
					return withCode(2, err)
				}
			}
			if report != "" {
				if err := app.WriteFileAtomic(report, func(f *os.File) error { return model.WriteReportJSON(f, rep.Report) }); err != nil {
					return withCode(2, err)
				}
			}
			if err := writeCheck(cmd.OutOrStdout(), format, rep); err != nil {
				return err
			}
			if rep.Summary.Failed {
				return withCode(1, fmt.Errorf("check failed: %s", checkSummaryLine(rep.Summary)))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Suite, "suite", "", "the regression suite: a cases.jsonl from tracelab export")
	f.StringVar(&format, "format", "text", "output format: "+strings.Join(checkFormats, ", "))
	f.StringVar(&junit, "junit", "", "also write JUnit XML to this file (one testcase per case)")
	f.StringVar(&report, "report", "", "also write the new run's report.json to this file")
	addScoringFlags(cmd, &in.Files)
	return cmd
}

func writeCheck(w io.Writer, format string, rep app.CheckReport) error {
	switch format {
	case "json":
		return jsonIndent(w, rep)
	case "markdown":
		return writeCheckMarkdown(w, rep)
	case "github":
		return writeCheckGitHub(w, rep)
	}
	return writeCheckText(w, rep)
}

func checkSummaryLine(s app.CheckSummary) string {
	line := fmt.Sprintf("%d cases: %d pass, %d regressed, %d fixed, %d failing, %d missing; %d with a policy violation",
		s.Cases, s.Pass, s.Regressed, s.Fixed, s.Failing, s.Missing, s.PolicyViolations)
	if s.Unmatched > 0 {
		line += fmt.Sprintf("; %d of %d new traces matched no case", s.Unmatched, s.Traces)
	}
	if !s.PolicyChecked {
		line += "; no policy oracle given (--policy or --policy-oracle): leaks were not checked"
	}
	return line
}

func checkVerdictLine(s app.CheckSummary) string {
	switch {
	case s.Regressed > 0 && s.PolicyViolations > 0:
		return "FAIL: regressions and policy violations"
	case s.Regressed > 0:
		return "FAIL: regressions"
	case s.PolicyViolations > 0:
		return "FAIL: policy violations (any nonzero policy violation rate blocks the release)"
	}
	return "OK: nothing regressed"
}

func writeCheckText(w io.Writer, rep app.CheckReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tVERDICT\tTRACE\tREASON")
	for _, c := range rep.Cases {
		v := string(c.Verdict)
		if c.PolicyViolations > 0 {
			v += "+policy"
		}
		tr := c.TraceID
		if tr == "" {
			tr = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ciText(c.CaseID), v, ciText(tr), ciText(c.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%s\n%s\n", checkSummaryLine(rep.Summary), checkVerdictLine(rep.Summary))
	return err
}

// ciText makes suite and trace text safe for a CI log, a summary or a
// JUnit report: one line, no control characters, and the Unicode
// bidirectional controls that could reorder what a reviewer reads shown
// as escapes (CleanLine does both).
func ciText(s string) string { return model.CleanLine(s) }

func mdCell(s string) string {
	return strings.ReplaceAll(ciText(s), "|", `\|`)
}

func writeCheckMarkdown(w io.Writer, rep app.CheckReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## tracelab check\n\n**%s**: %s\n\n", checkVerdictLine(rep.Summary), checkSummaryLine(rep.Summary))
	b.WriteString("| Case | Verdict | Trace | Reason |\n|---|---|---|---|\n")
	for _, c := range rep.Cases {
		v := string(c.Verdict)
		if c.PolicyViolations > 0 {
			v += " (policy)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s |\n", mdCell(c.CaseID), v, mdCell(c.TraceID), mdCell(c.Reason))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ghMsg and ghProperty escape a workflow command's message and property
// (GitHub docs, "Workflow commands for GitHub Actions").
func ghMsg(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(ciText(s))
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(ciText(s))
}

// writeCheckGitHub writes one annotation per case that is not a pass:
// error for regressions and policy violations, warning for failing and
// missing cases, notice for fixed ones, then the summary.
func writeCheckGitHub(w io.Writer, rep app.CheckReport) error {
	var b strings.Builder
	for _, c := range rep.Cases {
		level := ""
		switch {
		case c.Verdict == app.VerdictRegressed || c.PolicyViolations > 0:
			level = "error"
		case c.Verdict == app.VerdictFailing || c.Verdict == app.VerdictMissing:
			level = "warning"
		case c.Verdict == app.VerdictFixed:
			level = "notice"
		default:
			continue
		}
		title := fmt.Sprintf("%s %s", c.CaseID, c.Verdict)
		fmt.Fprintf(&b, "::%s title=%s::%s\n", level, ghProperty(title), ghMsg(c.Reason))
	}
	level := "notice"
	if rep.Summary.Failed {
		level = "error"
	}
	fmt.Fprintf(&b, "::%s title=tracelab check::%s\n", level, ghMsg(checkVerdictLine(rep.Summary)+"; "+checkSummaryLine(rep.Summary)))
	_, err := io.WriteString(w, b.String())
	return err
}

// JUnit shapes as CI test reporters read them.
type checkJUnitSuites struct {
	XMLName  xml.Name          `xml:"testsuites"`
	Name     string            `xml:"name,attr"`
	Tests    int               `xml:"tests,attr"`
	Failures int               `xml:"failures,attr"`
	Skipped  int               `xml:"skipped,attr"`
	Suites   []checkJUnitSuite `xml:"testsuite"`
}

type checkJUnitSuite struct {
	Name     string           `xml:"name,attr"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Skipped  int              `xml:"skipped,attr"`
	Cases    []checkJUnitCase `xml:"testcase"`
}

type checkJUnitCase struct {
	Name      string             `xml:"name,attr"`
	Classname string             `xml:"classname,attr"`
	Failure   *checkJUnitFailure `xml:"failure,omitempty"`
	Skipped   *checkJUnitSkipped `xml:"skipped,omitempty"`
	SystemOut string             `xml:"system-out,omitempty"`
}

type checkJUnitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type checkJUnitSkipped struct {
	Message string `xml:"message,attr"`
}

// writeCheckJUnit writes one testcase per suite case, agreeing with the
// exit status: regressions and policy violations are failures (the
// message is the reason); cases the suite already knew failing, and
// missing ones, are skipped with the reason; pass and fixed pass.
func writeCheckJUnit(w io.Writer, rep app.CheckReport) error {
	s := checkJUnitSuite{Name: "tracelab check"}
	for _, c := range rep.Cases {
		tc := checkJUnitCase{Name: ciText(c.CaseID), Classname: "tracelab.check"}
		switch {
		case c.Verdict == app.VerdictRegressed || c.PolicyViolations > 0:
			typ := string(c.Verdict)
			if c.PolicyViolations > 0 {
				typ += "+policy"
			}
			tc.Failure = &checkJUnitFailure{Message: ciText(c.Reason), Type: typ, Text: "trace " + ciText(c.TraceID) + ": " + ciText(c.Reason)}
			s.Failures++
		case c.Verdict == app.VerdictMissing || c.Verdict == app.VerdictFailing:
			tc.Skipped = &checkJUnitSkipped{Message: string(c.Verdict) + ": " + c.Reason}
			s.Skipped++
		default:
			tc.SystemOut = string(c.Verdict) + ": " + c.Reason
		}
		s.Cases = append(s.Cases, tc)
		s.Tests++
	}
	doc := checkJUnitSuites{Name: "tracelab", Tests: s.Tests, Failures: s.Failures, Skipped: s.Skipped, Suites: []checkJUnitSuite{s}}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, xml.Header+string(out)+"\n")
	return err
}
