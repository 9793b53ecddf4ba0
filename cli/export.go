package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

func newExportCmd() *cobra.Command {
	var out string
	var all, exposeOnly bool
	var labels string
	var files app.Files
	cmd := &cobra.Command{
		Use:   "export --out DIR [--all]",
		Short: "Write the confirmed cases as DIR/cases.jsonl and DIR/report.json, the suite CI reruns",
		Long: `Export writes DIR/cases.jsonl: one case per line in the seed's case schema (keys in the
seed's order), sorted by case_id, byte-identical when run twice. Only cases a person
confirmed are written unless --all adds the machine-suggested ones. The cost block comes
from the trace's usage. It also writes DIR/report.json, the report of those cases (see
tracelab report), and DIR/suite.json, the manifest of the scoring configuration the
report was made with: copies of --policy, --lineage and --lexicon, the glossary (the
database's entries and --glossary) as DIR/glossary.json, each with its sha256, so that
tracelab check scores a new run the same way. Files are written atomically.

--expose-only keeps the cases that expose grounding: a question stays (with the case of
every server that answered it) when at least one of its cases is labeled wrong, or
correct but not grounded; the questions every server passes correct and grounded tell
CI nothing and are dropped, each named with its cases. report.json then covers the
cases kept.

Each line's "label" is the case's final label: the adjudicated one, the only person's,
or the one every person agrees on (a case whose people disagree and nobody adjudicated
is written with its label pending, all null). --labels all adds "labels", every
rater's label (people, judges, and tracelab's own suggestion) with who, what kind of
rater, their status and when, and "adjudication" where someone settled a disagreement;
tracelab import reads them back.`,
		Example: `  tracelab export --out suite/
  tracelab export --db team.db --out suite/ --all
  tracelab export --out suite/ --expose-only
  tracelab export --out suite/ --labels all
  tracelab export --out suite/ --policy policy.json --lineage lineage.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if labels != "final" && labels != "all" {
				return withCode(2, fmt.Errorf("--labels %q is not one of final, all", labels))
			}
			if out == "" {
				return withCode(2, fmt.Errorf("--out DIR is required: the folder to write cases.jsonl into"))
			}
			eng, err := openEngine(cmd, files)
			if err != nil {
				return err
			}
			defer eng.Close()
			// One population: report.json counts exactly the cases written.
			res, err := eng.Suite.Export(cmd.Context(), app.ExportOptions{Dir: out, All: all, ExposeOnly: exposeOnly,
				AllLabels: labels == "all"})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "wrote %s (%d cases)\n", res.CasesPath, res.Cases)
			warnEmptySuite(cmd.ErrOrStderr(), res, all)
			if err := sayLeftOut(cmd, eng, all); err != nil {
				return err
			}
			if exposeOnly {
				if n := res.Considered - res.Cases; n > 0 {
					fmt.Fprintf(w, "dropped %d of %d cases: every server's case of the same question is correct and grounded, so they expose nothing:\n", n, res.Considered)
					for _, g := range res.Dropped {
						fmt.Fprintf(w, "  %q: %s\n", model.CleanLine(g.Question), model.CleanLine(strings.Join(g.CaseIDs, ", ")))
					}
				} else {
					fmt.Fprintf(w, "dropped none of %d cases: every question has a case that is wrong or ungrounded\n", res.Considered)
				}
			}
			fmt.Fprintf(w, "wrote %s (%d servers)\n", res.ReportPath, len(res.Reports))
			fmt.Fprintf(w, "wrote %s (the scoring files check will use)\n", res.Manifest)
			if res.Recorded {
				fmt.Fprintln(w, "recorded the report in the history (tracelab report --history)")
			} else {
				fmt.Fprintln(w, "the database is read-only: the report was not recorded in its history")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "folder to write cases.jsonl into (created if missing)")
	cmd.Flags().BoolVar(&all, "all", false, "include machine-suggested cases, not only confirmed ones")
	cmd.Flags().StringVar(&labels, "labels", "final", `final: each case's final label; all: every rater's label too, in each line's "labels"`)
	cmd.Flags().BoolVar(&exposeOnly, "expose-only", false, "keep only the questions where some server's case is wrong or correct but ungrounded")
	addScoringFlags(cmd, &files)
	return cmd
}

// warnEmptySuite says on stderr that the suite written has no case, and
// how to get one in: a first export, before anything is confirmed, would
// otherwise write an empty suite that check then fails on.
func warnEmptySuite(w io.Writer, res app.ExportResult, all bool) {
	switch {
	case res.Cases > 0 || res.Considered > 0: // --expose-only named what it dropped
	case all:
		fmt.Fprintln(w, "warning: wrote an empty suite: the database has no cases; import traces first (tracelab import FILE)")
	default:
		fmt.Fprintln(w, "warning: wrote an empty suite: no case is confirmed yet. Confirm cases in the workbench, "+
			"or add --all to include the machine's suggested cases")
	}
}
