package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/cireport"
	"github.com/tracelab-dev/tracelab/model"
)

var checkFormats = []string{"text", "json", "markdown", "github"}

func newCheckCmd() *cobra.Command {
	var in app.CheckInput
	var format, junit, report string
	var noRecord bool
	var minJudgeKappa float64
	cmd := &cobra.Command{
		Use:   "check --suite DIR/cases.jsonl NEW_TRACES...",
		Short: "Rerun a regression suite on new traces: exit 1 on a regression, a policy violation or missing cases",
		Long: `Check imports NEW_TRACES (any supported format; --input-format forces one) into a
temporary database, matches each trace to its suite case (by metadata.case_id, else by
identical question and as_user on the same server: a case without a server matches any,
and a trace without one matches only when the question belongs to one server's cases;
--server and --as-user tag traces that do not say theirs), scores it against the case's
gold ("-" reads the traces from standard input) and says per case:

  pass       the suite label was correct and grounded, and so is the new trace
  regressed  the label was correct and grounded and the new trace is not,
             or the label was correct and the new answer is wrong
  fixed      the label was not correct and grounded; the new trace is
  failing    the label was not correct and grounded; the new trace still is not
  missing    no new trace for the case

with the reason in one line (forbidden field, required field missing, predicate
that differs, freshness bound, policy violation, wrong answer). When several new
traces match one case, the worst verdict stands.

No coverage, no pass: every suite case must be matched by a new trace, or check
fails with the missing cases named; --min-coverage 0.9 accepts 90%, --allow-missing
any share but none (a run that matched no case checked nothing).

The scoring files come from the suite: tracelab export writes DIR/suite.json next
to DIR/cases.jsonl naming the policy, lineage, glossary and lexicon it scored with
(copies in DIR, with their sha256), and check uses them. A flag (--policy, --lineage,
--glossary, --lexicon) overrides the suite's file, with a warning.

Contracts are in the gate: when a case's contracts block names a tool whose new trace
saw another contract, check diffs the two (the drift rules, against the contract bodies
in DIR/contracts.json) and lists the findings after the verdicts; a tool that became a
writer (readOnlyHint dropped) fails the check unless the new contract was approved
(tracelab drift approve) before the suite was exported.

Check reads nothing of the workbench database: the suite, the new traces and the
scoring files are all it reads, and its temporary database is removed when it ends.
It only appends the report it made to the report history (tracelab report --history)
of the workbench database when there is one: --db or TRACELAB_DB, or ./tracelab.db
when that file exists (it never creates one); --no-record leaves the database
untouched, byte for byte. A history it cannot write is a warning, not a failed check.

Judges are in the gate too: --min-judge-kappa K fails the check when a judge that
labeled the suite (its labels in cases.jsonl from export --labels all, named in
suite.json) agrees with the suite's people less than K (Cohen's kappa, on the cases
both labeled) on the failure class, or on any one class either side used, naming the
judge and the classes that fall short.

Exit status: 0 when nothing regressed, no policy violation was found and the suite is
covered, 1 on any regression, any policy violation (a release blocker), too few cases
covered, a tool that became a writer unapproved, or a judge below --min-judge-kappa,
2 on bad input.`,
		Example: `  tracelab check --suite suite/cases.jsonl runs/*.jsonl
  tracelab check --suite suite/cases.jsonl --junit check.xml --format github new.jsonl
  tracelab check --suite suite/cases.jsonl --input-format openai_chat --server billing --min-coverage 0.9 requests.jsonl
  tracelab check --suite suite/cases.jsonl --format json --report new-report.json new.jsonl
  ./replay-suite.sh | tracelab check --suite suite/cases.jsonl -`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			started := time.Now()
			if !slices.Contains(checkFormats, format) {
				return withCode(2, fmt.Errorf("--format %q is not one of %s", format, strings.Join(checkFormats, ", ")))
			}
			if in.InputFormat != "" {
				if _, ok := app.LookupFormat(in.InputFormat); !ok {
					return withCode(2, fmt.Errorf("--input-format %q is not one of %s", in.InputFormat, app.FormatNames()))
				}
			}
			if err := in.Gate.Validate(); err != nil {
				return withCode(2, err)
			}
			in.Traces, in.Stdin = args, cmd.InOrStdin()
			var err error
			if in.Suite, err = suiteCasesPath(in.Suite); err != nil {
				return err
			}
			if cmd.Flags().Changed("min-judge-kappa") {
				if minJudgeKappa < -1 || minJudgeKappa > 1 {
					return withCode(2, fmt.Errorf("--min-judge-kappa %g: expected a kappa in [-1, 1], e.g. 0.6", minJudgeKappa))
				}
				in.MinJudgeKappa = &minJudgeKappa
			}
			rep, err := app.RunCheck(cmd.Context(), in)
			if errors.Is(err, app.ErrBadInput) {
				return withCode(2, err)
			}
			if err != nil {
				return err
			}
			for _, w := range rep.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning:", ciText(w))
			}
			if junit != "" {
				if err := app.WriteFileAtomic(junit, func(f *os.File) error {
					return writeCheckJUnit(f, rep, cireport.JUnitRun{Started: started, Elapsed: time.Since(started)})
				}); err != nil {
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
			if !noRecord {
				recordCheck(cmd, in.Suite, rep.Report)
			}
			if rep.Summary.Failed {
				return withCode(1, fmt.Errorf("check failed: %s", checkSummaryLine(rep.Summary)))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Suite, "suite", "", "the regression suite: the folder tracelab export wrote, or its cases.jsonl")
	f.StringVar(&format, "format", "text", "output format: "+strings.Join(checkFormats, ", "))
	f.StringVar(&in.InputFormat, "input-format", "", "force the new traces' format instead of detecting it (see tracelab import --list-formats)")
	f.StringVar(&in.Server, "server", "", "server of the new traces that do not name one")
	f.StringVar(&in.AsUser, "as-user", "", "as_user of the new traces that do not name one")
	f.Float64Var(&in.Gate.MinCoverage, "min-coverage", 1, "share of the suite's cases the new run must cover, in (0, 1]")
	f.BoolVar(&in.Gate.AllowMissing, "allow-missing", false, "pass with missing cases (a run that covers none still fails)")
	f.Float64Var(&minJudgeKappa, "min-judge-kappa", 0, "fail when a judge that labeled the suite agrees with its people less than this (Cohen's kappa; the suite exported with --labels all)")
	f.StringVar(&junit, "junit", "", "also write JUnit XML to this file (one testcase per case)")
	f.StringVar(&report, "report", "", "also write the new run's report.json to this file")
	f.BoolVar(&noRecord, "no-record", false, "do not record the report in the workbench database's history")
	addScoringFlags(cmd, &in.Files)
	return cmd
}

// recordCheck appends the check's report to the workbench database's
// history when there is one (see the command's help); CI without a
// database records nothing, and a history that cannot be written warns.
func recordCheck(cmd *cobra.Command, suitePath string, reports []model.Report) {
	db := dbPath(cmd)
	if !cmd.Flags().Changed("db") && os.Getenv("TRACELAB_DB") == "" {
		if _, err := os.Stat(db); err != nil {
			return
		}
	}
	wait, err := lockWait(cmd)
	if err == nil {
		err = app.RecordCheckReport(cmd.Context(), db, suitePath, reports,
			app.OpenOptions{LockWait: wait, Upgrading: upgradeNotice(cmd.ErrOrStderr())})
	}
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: the report was not recorded in the history of %s: %s\n",
			ciText(db), ciText(err.Error()))
	}
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
	line += fmt.Sprintf("; %d of %d covered (%s, %s required)", s.Covered, s.Cases, pct(s.Ratio), pct(s.Required))
	if s.Unmatched > 0 {
		line += fmt.Sprintf("; %d of %d new traces matched no case", s.Unmatched, s.Traces)
	}
	if s.Untagged > 0 {
		line += fmt.Sprintf(" (%d name no server while their question is several servers' case: tag them with --server or metadata.case_id)", s.Untagged)
	}
	if s.ContractsChanged > 0 {
		line += fmt.Sprintf("; %d tool contracts changed under the suite's cases", s.ContractsChanged)
	}
	if !s.PolicyChecked {
		line += "; no policy oracle given (--policy or --policy-oracle): leaks were not checked"
	}
	return line
}

func pct(x float64) string { return fmt.Sprintf("%.4g%%", x*100) }

// checkVerdictLine says why the check failed, every reason, or that it
// passed; it agrees with Summary.Failed.
func checkVerdictLine(s app.CheckSummary) string {
	var why []string
	if s.Regressed > 0 {
		why = append(why, "regressions")
	}
	if s.PolicyViolations > 0 {
		why = append(why, "policy violations (any nonzero policy violation rate blocks the release)")
	}
	if s.Coverage.Failed {
		why = append(why, "coverage: "+s.Coverage.Reason)
	}
	if s.ContractsBlocking > 0 {
		why = append(why, fmt.Sprintf("contracts: %d tools may now write and nobody approved the new contract", s.ContractsBlocking))
	}
	if s.JudgeKappaFailed != "" {
		why = append(why, "judges: "+ciText(s.JudgeKappaFailed))
	}
	if len(why) > 0 || s.Failed {
		return "FAIL: " + strings.Join(why, "; ")
	}
	if s.Missing > 0 {
		return fmt.Sprintf("OK: nothing regressed in the %d cases covered (%d missing, allowed)", s.Covered, s.Missing)
	}
	return "OK: nothing regressed"
}

func writeCheckText(w io.Writer, rep app.CheckReport) error {
	tw := newTable(w, 0)
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
	if len(rep.Contracts) > 0 {
		fmt.Fprintln(w, "\nCONTRACT CHANGES (the suite's cases were labeled against the OLD contract)")
		for _, d := range rep.Contracts {
			fmt.Fprintf(w, "  %s\n", ciText(app.ContractLine(d)))
			for _, f := range d.Findings {
				fmt.Fprintf(w, "    %s %s %s: %s\n", f.Lane, ciText(f.ID), ciText(f.Path), ciText(f.Message))
			}
		}
	}
	writeJudgeGateText(w, rep.JudgeGate) // checkjudge.go
	_, err := fmt.Fprintf(w, "%s\n%s\n", checkSummaryLine(rep.Summary), checkVerdictLine(rep.Summary))
	return err
}

// ciText makes suite and trace text safe for a CI log, a summary or a
// JUnit report: one line, no control characters, and the Unicode
// bidirectional controls that could reorder what a reviewer reads shown
// as escapes (CleanLine does both).
func ciText(s string) string { return model.CleanLine(s) }

func mdCell(s string) string { return cireport.Text(model.CleanLine(s)) }

// mdCode is an id (a case, a trace, a tool) as inline code, its fence
// longer than any backtick run inside.
func mdCode(s string) string { return cireport.Code(model.CleanLine(s)) }

// mdCodes is a list of ids, each as inline code.
func mdCodes(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = mdCode(id)
	}
	return strings.Join(out, ", ")
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
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdCode(c.CaseID), v, mdCode(c.TraceID), mdCell(c.Reason))
	}
	if len(rep.Contracts) > 0 {
		b.WriteString("\n### Contract changes\n\n| Server | Tool | Worst lane | Findings | Cases | Gate |\n|---|---|---|---:|---|---|\n")
		for _, d := range rep.Contracts {
			gate := "ok"
			switch {
			case d.Blocking:
				gate = "**blocking: may now write, not approved**"
			case d.Writer:
				gate = "may now write, approved"
			case d.Note != "":
				gate = mdCell(d.Note)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s |\n", mdCell(d.Server), mdCode(d.Tool), d.Worst, len(d.Findings), mdCodes(d.Cases), gate)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ghMsg and ghProperty escape a workflow command's message and property
// (GitHub docs, "Workflow commands for GitHub Actions").
func ghMsg(s string) string { return cireport.GitHubMessage(ciText(s)) }

func ghProperty(s string) string { return cireport.GitHubProperty(ciText(s)) }

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
		case c.Verdict == app.VerdictMissing && !rep.Summary.AllowsGaps:
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
	for _, d := range rep.Contracts {
		level := "notice"
		switch {
		case d.Blocking:
			level = "error"
		case d.Worst == "breaking" || d.Worst == "risky" || d.Note != "":
			level = "warning"
		}
		fmt.Fprintf(&b, "::%s title=%s::%s\n", level, ghProperty("contract "+d.Server+"/"+d.Tool), ghMsg(app.ContractLine(d)))
	}
	level := "notice"
	if rep.Summary.Failed {
		level = "error"
	}
	fmt.Fprintf(&b, "::%s title=tracelab check::%s\n", level, ghMsg(checkVerdictLine(rep.Summary)+"; "+checkSummaryLine(rep.Summary)))
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCheckJUnit writes one testcase per suite case plus one for the
// coverage gate and one per changed contract, agreeing with the exit
// status: regressions, policy violations, missing cases (unless
// --min-coverage or --allow-missing let them pass) and writers nobody
// approved are failures with the reason as message; cases the suite
// already knew failing, and allowed missing ones, are skipped with the
// reason; pass and fixed pass. The summary and the warnings go to the
// testsuite's system-out.
func writeCheckJUnit(w io.Writer, rep app.CheckReport, run cireport.JUnitRun) error {
	sum := rep.Summary
	s := cireport.NewSuite("tracelab check", run)
	for _, c := range rep.Cases {
		tc := cireport.JUnitCase{Name: ciText(c.CaseID), Classname: "tracelab.check",
			Time: cireport.Seconds(time.Duration(c.Seconds * float64(time.Second)))}
		switch {
		case c.Verdict == app.VerdictRegressed || c.PolicyViolations > 0:
			typ := string(c.Verdict)
			if c.PolicyViolations > 0 {
				typ += "+policy"
			}
			tc.Failure = &cireport.JUnitProblem{Message: ciText(c.Reason), Type: typ, Text: "trace " + ciText(c.TraceID) + ": " + ciText(c.Reason)}
		case c.Verdict == app.VerdictMissing && !sum.AllowsGaps:
			tc.Failure = &cireport.JUnitProblem{Message: ciText(c.Reason), Type: string(c.Verdict), Text: ciText(c.Reason)}
		case c.Verdict == app.VerdictMissing || c.Verdict == app.VerdictFailing:
			tc.Skipped = &cireport.JUnitSkipped{Message: string(c.Verdict) + ": " + ciText(c.Reason)}
		default:
			tc.SystemOut = string(c.Verdict) + ": " + ciText(c.Reason)
		}
		s.Add(tc)
	}
	// The gate has its own testcase, so a reader that only counts
	// failures sees a run that covered too little fail.
	gate := cireport.JUnitCase{Name: "coverage", Classname: "tracelab.gate",
		SystemOut: fmt.Sprintf("%d of %d cases covered (%s, %s required)", sum.Covered, sum.Cases, pct(sum.Ratio), pct(sum.Required))}
	if sum.Coverage.Failed {
		gate.Failure = &cireport.JUnitProblem{Message: ciText(sum.Coverage.Reason), Type: "coverage", Text: ciText(sum.Coverage.Reason)}
	}
	s.Add(gate)
	for _, d := range rep.Contracts {
		line := ciText(app.ContractLine(d))
		tc := cireport.JUnitCase{Name: ciText(d.Server + "/" + d.Tool), Classname: "tracelab.contracts", SystemOut: line}
		if d.Blocking {
			tc.Failure = &cireport.JUnitProblem{Message: line, Type: "contract-writer", Text: line}
		}
		s.Add(tc)
	}
	s.SystemOut = checkVerdictLine(sum) + "\n" + checkSummaryLine(sum) + "\n"
	for _, w := range rep.Warnings {
		s.SystemOut += "warning: " + ciText(w) + "\n"
	}
	out, err := cireport.MarshalJUnit("tracelab", run, s)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}
