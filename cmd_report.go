package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"tracelab/model"
	"tracelab/store"
	"tracelab/suite"
)

func newReportCmd() *cobra.Command {
	var files suite.Files
	var format string
	var all bool
	cmd := &cobra.Command{
		Use:   "report [--policy FILE] [--all] [--format json|text]",
		Short: "Print report.json: the six grounding metrics per server",
		Long: `Report scores every case whose gold a person wrote (confirmed in the workbench or
imported from a cases.jsonl) and prints the seed's report: one object per server with
grounding precision and recall, definition match, freshness pass and policy violation
rates, clarification loops per task, cost per correct answer, failures by class and
the number needing human review. A confirmed label wins over the scorer's suggestion.
--all adds the traces whose gold is only machine-suggested.`,
		Example: `  tracelab report
  tracelab report --policy policy.json --format text
  tracelab report --all --format json > report.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return withCode(2, fmt.Errorf("--format %q is not one of json, text", format))
			}
			st, err := store.Open(cmd.Context(), dbPath(cmd))
			if err != nil {
				return err
			}
			defer st.Close()
			cfg, err := suite.LoadConfig(cmd.Context(), st, files)
			if err != nil {
				return withCode(2, err)
			}
			reports, err := suite.Report(cmd.Context(), st, cfg, all)
			if err != nil {
				return err
			}
			if format == "json" {
				return model.WriteReportJSON(cmd.OutOrStdout(), reports)
			}
			return writeReportText(cmd.OutOrStdout(), reports)
		},
	}
	addScoringFlags(cmd, &files)
	cmd.Flags().StringVar(&format, "format", "json", "output format: json or text")
	cmd.Flags().BoolVar(&all, "all", false, "include traces whose gold is only machine-suggested")
	return cmd
}

// writeReportText prints the servers side by side, one metric per row.
func writeReportText(w io.Writer, reports []model.Report) error {
	if len(reports) == 0 {
		_, err := fmt.Fprintln(w, "no cases with gold yet: confirm cases in the workbench or import a cases.jsonl")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(name string, f func(model.Report) string) {
		cells := []string{name}
		for _, r := range reports {
			cells = append(cells, f(r))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	row("", func(r model.Report) string { return model.CleanLine(r.Server) })
	row("cases", func(r model.Report) string { return fmt.Sprint(r.Cases) })
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

func fmtUSD(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.4f", *p)
}
