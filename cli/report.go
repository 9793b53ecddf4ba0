package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/cireport"
	"github.com/tracelab-dev/tracelab/model"
)

func newReportCmd() *cobra.Command {
	var files app.Files
	var format string
	var all, diff, failOnRegression, history bool
	var html string
	cmd := &cobra.Command{
		Use:   "report [--policy FILE] [--all] [--format json|text] [--html FILE] | report --history | report --diff OLD.json NEW.json",
		Short: "Print report.json: the six grounding metrics per server",
		Long: `Report scores every case whose gold a person wrote (confirmed in the workbench or
imported from a cases.jsonl) and prints the seed's report: one object per server with
grounding precision and recall, definition match, freshness pass and policy violation
rates, clarification loops per task, cost per correct answer, failures by class and
the number needing human review. A confirmed label wins over the scorer's suggestion.
--all counts every case, confirmed or not: the cases export --all writes. Both say on
stderr how many scored traces they leave out (no case: nothing suggested, nobody labeled).

--diff OLD.json NEW.json compares two report.json files instead (two servers, or one
server before and after a context change): each server side by side, every metric's
delta, and the failure classes that grew, as text, markdown or json. With
--fail-on-regression it exits 1 when a grounding metric (grounding precision or recall,
definition match rate, freshness pass rate) fell or the policy violation rate rose.

Every export and check records the report it made in the database, with the time
and the sha256 of the suite's suite.json; --history lists them, oldest first, one
line per report and server (--format json: the entries with their report.json).

--html FILE writes the report as one self-contained page people can open in a
browser: the metrics per server side by side, failures by class as bars, each metric
across the recorded history as a small line chart, and the cases behind every number
(inline CSS and SVG; no script, nothing fetched). Its numbers are those of
--format json.`,
		Example: `  tracelab report
  tracelab report --policy policy.json --format text
  tracelab report --all --format json > report.json
  tracelab report --html report.html
  tracelab report --history
  tracelab report --diff main/report.json pr/report.json --format markdown --fail-on-regression`,
		Args: func(cmd *cobra.Command, args []string) error {
			if diff {
				if len(args) != 2 {
					return withCode(2, fmt.Errorf("--diff takes two report files: tracelab report --diff OLD.json NEW.json"))
				}
				return nil
			}
			return cobra.NoArgs(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if diff {
				cmd.SilenceUsage = true // a failed check is no usage error
				return runReportDiff(cmd, args[0], args[1], format, failOnRegression)
			}
			if failOnRegression {
				return withCode(2, fmt.Errorf("--fail-on-regression goes with --diff OLD.json NEW.json"))
			}
			if history {
				if html != "" {
					return withCode(2, fmt.Errorf("--history lists the recorded reports; --html writes a page (which shows the history too): give one"))
				}
				return runReportHistory(cmd, files, format)
			}
			if format == "" {
				format = "json"
			}
			if format != "text" && format != "json" {
				return withCode(2, fmt.Errorf("--format %q is not one of json, text", format))
			}
			eng, err := openEngine(cmd, files)
			if err != nil {
				return err
			}
			defer eng.Close()
			if html != "" {
				if err := writeReportHTMLFile(cmd.Context(), html, eng, all); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", html)
				return nil
			}
			reports, labels, err := eng.Suite.ReportWithLabels(cmd.Context(), all)
			if err != nil {
				return err
			}
			if err := sayLeftOut(cmd, eng, all); err != nil {
				return err
			}
			if format == "json" {
				return model.WriteReportJSON(cmd.OutOrStdout(), reports)
			}
			return writeReportText(cmd.OutOrStdout(), reports, labels)
		},
	}
	addScoringFlags(cmd, &files)
	cmd.Flags().StringVar(&format, "format", "", "output format: json or text (default json); with --diff: text, markdown or json (default text)")
	cmd.Flags().BoolVar(&diff, "diff", false, "compare two report.json files: --diff OLD.json NEW.json")
	cmd.Flags().BoolVar(&failOnRegression, "fail-on-regression", false, "with --diff: exit 1 when a grounding metric fell or policy violations rose")
	cmd.Flags().BoolVar(&all, "all", false, "every case, confirmed or not (the cases export --all writes)")
	cmd.Flags().BoolVar(&history, "history", false, "list the reports export and check recorded, oldest first")
	cmd.Flags().StringVar(&html, "html", "", "write the report as one self-contained HTML page to this file")
	return cmd
}

// runReportHistory prints the recorded reports.
func runReportHistory(cmd *cobra.Command, files app.Files, format string) error {
	if format == "" {
		format = "text"
	}
	if format != "text" && format != "json" {
		return withCode(2, fmt.Errorf("--format %q is not one of text, json (with --history)", format))
	}
	eng, err := openEngine(cmd, files)
	if err != nil {
		return err
	}
	defer eng.Close()
	hist, err := eng.Suite.ReportHistory(cmd.Context(), 0)
	if err != nil {
		return err
	}
	if format == "json" {
		if hist == nil {
			hist = []app.HistoryEntry{}
		}
		return jsonIndent(cmd.OutOrStdout(), hist)
	}
	return writeReportHistory(cmd.OutOrStdout(), hist)
}

// writeReportText prints the servers side by side, one metric per row,
// after how many of each server's cases a person labeled: the rest of
// each number is the scorer's verdict.
func writeReportText(w io.Writer, reports []model.Report, labels []app.ServerLabels) error {
	if len(reports) == 0 {
		_, err := fmt.Fprintln(w, "no cases with gold yet: confirm cases in the workbench or import a cases.jsonl")
		return err
	}
	tw := newTable(w, tabwriter.AlignRight)
	row := func(name string, f func(model.Report) string) {
		cells := []string{name}
		for _, r := range reports {
			cells = append(cells, f(r))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	row("", func(r model.Report) string { return model.CleanLine(r.Server) })
	row("cases", func(r model.Report) string { return fmt.Sprint(r.Cases) })
	byServer := map[string]app.ServerLabels{}
	for _, l := range labels {
		byServer[l.Server] = l
	}
	row("  labeled by a person", func(r model.Report) string { return fmt.Sprint(byServer[r.Server].Labeled) })
	row("  partly labeled", func(r model.Report) string { return fmt.Sprint(byServer[r.Server].PartlyLabeled) })
	row("  gold confirmed, label pending", func(r model.Report) string { return fmt.Sprint(byServer[r.Server].LabelPending) })
	row("  machine-suggested", func(r model.Report) string { return fmt.Sprint(byServer[r.Server].Suggested) })
	row("correct", func(r model.Report) string { return fmt.Sprint(r.Correct) })
	row("correct and grounded", func(r model.Report) string { return fmt.Sprint(r.CorrectAndGrounded) })
	row("grounding precision", func(r model.Report) string { return fmtRate(r.GroundingPrecision) })
	row("grounding recall", func(r model.Report) string { return fmtRate(r.GroundingRecall) })
	row("definition match rate", func(r model.Report) string { return fmtRate(r.DefinitionMatchRate) })
	row("freshness pass rate", func(r model.Report) string { return fmtRate(r.FreshnessPassRate) })
	row("policy violation rate", func(r model.Report) string { return fmtRate(r.PolicyViolationRate) })
	row("clarification loops/task", func(r model.Report) string { return fmtRate(r.ClarificationLoopsPerTask) })
	row("cost total (USD)", func(r model.Report) string { return fmt.Sprintf("%.4f", r.CostTotalUSD) })
	row("cost per correct (USD)", func(r model.Report) string { return fmtUSD(r.CostPerCorrectAnswerUSD) })
	for _, c := range model.Classes {
		row("failures: "+string(c), func(r model.Report) string { return fmt.Sprint(r.FailuresByClass[string(c)]) })
	}
	row("needs human review", func(r model.Report) string { return fmt.Sprint(r.NeedsHumanReview) })
	return tw.Flush()
}

func fmtUSD(p *float64) string { return cireport.Fixed(p, 4) }

func runReportDiff(cmd *cobra.Command, oldPath, newPath, format string, failOnRegression bool) error {
	if format == "" {
		format = "text"
	}
	if format != "text" && format != "markdown" && format != "json" {
		return withCode(2, fmt.Errorf("--format %q is not one of text, markdown, json (with --diff)", format))
	}
	old, err := app.ReadReport(oldPath)
	if err != nil {
		return withCode(2, err)
	}
	cur, err := app.ReadReport(newPath)
	if err != nil {
		return withCode(2, err)
	}
	d := app.DiffReports(oldPath, old, newPath, cur)
	w := cmd.OutOrStdout()
	switch format {
	case "json":
		err = jsonIndent(w, d)
	case "markdown":
		err = writeDiffMarkdown(w, d)
	default:
		err = writeDiffText(w, d)
	}
	if err != nil {
		return err
	}
	for _, p := range d.Population {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: the reports cover different cases: %s\n", model.CleanLine(p))
	}
	if failOnRegression && d.Regressed {
		return withCode(1, fmt.Errorf("grounding regressed between %s and %s", oldPath, newPath))
	}
	if failOnRegression && d.FewerCases {
		return withCode(1, fmt.Errorf("%s covers fewer cases than %s: %s", newPath, oldPath, model.CleanLine(strings.Join(d.Population, "; "))))
	}
	return nil
}

// populationNote is the line text and markdown print when the two reports
// cover different cases.
func populationNote(d app.ReportDiff) string {
	if len(d.Population) == 0 {
		return ""
	}
	note := "the reports cover different cases, so their metrics do not compare one for one: " + strings.Join(d.Population, "; ")
	if d.FewerCases {
		note = "NEW COVERS FEWER CASES: " + note
	}
	return model.CleanLine(note)
}

func fmtDiffNum(p *float64) string { return cireport.Number(p) }

func fmtDelta(m app.MetricDelta) string {
	if m.Delta == nil {
		return ""
	}
	s := strconv.FormatFloat(*m.Delta, 'f', -1, 64)
	if *m.Delta > 0 {
		s = "+" + s
	}
	switch {
	case m.Worse:
		s += " worse"
	case m.Better:
		s += " better"
	}
	return s
}

func presenceNote(sd app.ServerDiff) string {
	switch sd.Presence {
	case "added":
		return " (only in NEW)"
	case "removed":
		return " (only in OLD)"
	}
	return ""
}

func writeDiffText(w io.Writer, d app.ReportDiff) error {
	fmt.Fprintf(w, "OLD %s\nNEW %s\n", model.CleanLine(d.Old), model.CleanLine(d.New))
	for _, sd := range d.Servers {
		fmt.Fprintf(w, "\n%s%s\n", model.CleanLine(sd.Server), presenceNote(sd))
		tw := newTable(w, 0)
		fmt.Fprintln(tw, "  METRIC\tOLD\tNEW\tDELTA")
		for _, m := range sd.Metrics {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", m.Metric, fmtDiffNum(m.Old), fmtDiffNum(m.New), fmtDelta(m))
		}
		tw.Flush()
		for _, c := range sd.ClassesGrew {
			fmt.Fprintf(w, "  failures grew: %s %d -> %d\n", c.Class, c.Old, c.New)
		}
		for _, r := range sd.Regressions {
			fmt.Fprintf(w, "  REGRESSION: %s\n", r)
		}
	}
	if note := populationNote(d); note != "" {
		fmt.Fprintf(w, "\n%s\n", note)
	}
	verdict := "no grounding metric fell and policy violations did not rise"
	if d.Regressed {
		verdict = "REGRESSED: a grounding metric fell or policy violations rose"
	}
	_, err := fmt.Fprintf(w, "\n%s\n", verdict)
	return err
}

func writeDiffMarkdown(w io.Writer, d app.ReportDiff) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## tracelab report diff\n\n%s → %s\n", mdCode(d.Old), mdCode(d.New))
	for _, sd := range d.Servers {
		fmt.Fprintf(&b, "\n### %s%s\n\n| Metric | Old | New | Delta |\n|---|---:|---:|---|\n", mdCell(sd.Server), presenceNote(sd))
		for _, m := range sd.Metrics {
			delta := fmtDelta(m)
			if m.Worse {
				delta = "**" + delta + "**"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", m.Metric, fmtDiffNum(m.Old), fmtDiffNum(m.New), delta)
		}
		if len(sd.ClassesGrew) > 0 {
			b.WriteString("\nFailure classes that grew: ")
			for i, c := range sd.ClassesGrew {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%s %d → %d", c.Class, c.Old, c.New)
			}
			b.WriteString("\n")
		}
		for _, r := range sd.Regressions {
			fmt.Fprintf(&b, "\n**Regression:** %s\n", r)
		}
	}
	if note := populationNote(d); note != "" {
		fmt.Fprintf(&b, "\n**Warning:** %s\n", mdCell(note))
	}
	if d.Regressed {
		b.WriteString("\n**REGRESSED**: a grounding metric fell or policy violations rose.\n")
	} else {
		b.WriteString("\nNo grounding metric fell and policy violations did not rise.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
