package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/cireport"
	"github.com/tracelab-dev/tracelab/model"
)

func newAgreeCmd() *cobra.Command {
	var by, format, judge string
	var progress bool
	cmd := &cobra.Command{
		Use:   "agree [--by class|correct|grounded|fields] [--format text|json|markdown] [--progress]",
		Short: "How far the raters agree: people, judges and tracelab's own suggestions",
		Long: `Agree compares the raters of every case labeled by someone: each person (their labels
from the workbench or an import with a labeler), each judge (tracelab judge), and
tracelab itself, whose suggestion is always one more rater named "tracelab".

The cases compared are the rated ones among the cases ` + "`tracelab report`" + ` counts (the
confirmed cases), so agree's items and the report's cases are one population; the first
line says how many rated cases that leaves out (not confirmed yet, or with no scored
trace), and the JSON has them under "population".

--by class (the default), correct or grounded: percent agreement and Cohen's kappa per
pair of raters with a confusion matrix per pair, and Fleiss' kappa and Krippendorff's
alpha across all raters (nominal; a rater who left a case unrated is missing there, not
a disagreement). A label with no class rates the class only when it sets grounded
(then it rates "none"). The trust table says, per value tracelab suggested, how often a
person's label matched it: how far the suggestions can be trusted.

--by fields: the mean Jaccard index per pair on the required and the forbidden field
sets of the raters that gave field sets (an imported labeler's gold).

--judge NAME instead calibrates one judge (judge:NAME) against people on the cases both
labeled (the people's label is the case's final label; a disputed case is left out):
percent agreement and Cohen's kappa on class, correct and grounded, kappa per failure
class (that class or not), the class confusion matrix, and the cases they disagree on
with the judge's reason.

--progress instead lists each rater's progress: cases labeled, of those confirmed by
them, and the disagreements they are part of that nobody adjudicated yet.`,
		Example: `  tracelab agree
  tracelab agree --by correct --format markdown >> "$GITHUB_STEP_SUMMARY"
  tracelab agree --by fields --format json
  tracelab agree --progress
  tracelab agree --judge gpt-4o-mini --format markdown`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" && format != "markdown" {
				return withCode(2, fmt.Errorf("--format %q is not one of text, json, markdown", format))
			}
			eng, err := openEngine(cmd, app.Files{})
			if err != nil {
				return err
			}
			defer eng.Close()
			w := cmd.OutOrStdout()
			if judge != "" {
				cal, err := eng.Judges.Agreement(cmd.Context(), judge)
				if err != nil {
					return withCode(2, err)
				}
				return writeJudgeCalibration(w, format, cal)
			}
			if progress {
				ps, err := eng.Raters.Progress(cmd.Context())
				if err != nil {
					return err
				}
				return writeProgress(w, format, ps)
			}
			rep, err := eng.Raters.Agreement(cmd.Context(), by)
			if err != nil {
				return withCode(2, err)
			}
			switch format {
			case "json":
				return rep.WriteJSON(w)
			case "markdown":
				return rep.WriteMarkdown(w)
			}
			return rep.WriteText(w)
		},
	}
	cmd.Flags().StringVar(&by, "by", "class", "what to compare: class, correct, grounded or fields")
	cmd.Flags().StringVar(&format, "format", "text", "text, json or markdown")
	cmd.Flags().StringVar(&judge, "judge", "", "calibrate this judge (NAME or judge:NAME) against people instead")
	cmd.Flags().BoolVar(&progress, "progress", false, "list each rater's progress (labeled, confirmed, disagreements open) instead")
	return cmd
}

var progressHeader = []string{"rater", "kind", "labeled", "confirmed", "disagreements open"}

// writeProgress writes the progress per rater in one of agree's formats.
func writeProgress(w io.Writer, format string, ps []app.LabelerProgress) error {
	cells := func(p app.LabelerProgress, esc func(string) string) []string {
		return []string{esc(p.Rater), string(p.Kind), strconv.Itoa(p.Labeled), strconv.Itoa(p.Confirmed), strconv.Itoa(p.Disputed)}
	}
	switch format {
	case "json":
		if ps == nil {
			ps = []app.LabelerProgress{}
		}
		enc := model.NewJSONEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(ps)
	case "markdown":
		t := cireport.Table{Header: progressHeader, Align: []string{"l", "l", "r", "r", "r"}}
		for _, p := range ps {
			t.Rows = append(t.Rows, cells(p, cireport.Cell))
		}
		_, err := io.WriteString(w, "## Progress per rater\n\n"+t.String())
		return err
	}
	if len(ps) == 0 {
		_, err := io.WriteString(w, "No rater labeled a case yet.\n")
		return err
	}
	fmt.Fprintln(w, "Progress per rater")
	tw := newTable(w, 0)
	fmt.Fprintln(tw, "  "+strings.Join(progressHeader, "\t"))
	for _, p := range ps {
		fmt.Fprintln(tw, "  "+strings.Join(cells(p, model.CleanLine), "\t"))
	}
	return tw.Flush()
}
