package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"tracelab/app"
	"tracelab/model"
	"tracelab/scoring"
	"tracelab/store"
)

func newExportCmd() *cobra.Command {
	var out string
	var all, exposeOnly bool
	var files app.Files
	cmd := &cobra.Command{
		Use:   "export --out DIR [--all]",
		Short: "Write the confirmed cases as DIR/cases.jsonl and DIR/report.json, the suite CI reruns",
		Long: `Export writes DIR/cases.jsonl: one case per line in the seed's case schema (keys in the
seed's order), sorted by case_id, byte-identical when run twice. Only cases a person
confirmed are written unless --all adds the machine-suggested ones. The cost block comes
from the trace's usage. It also writes DIR/report.json, the report of those cases (see
tracelab report). Files are written atomically.

--expose-only keeps the cases that expose grounding: a question stays (with the case of
every server that answered it) when at least one of its cases is labeled wrong, or
correct but not grounded; the questions every server passes correct and grounded tell
CI nothing and are dropped, each named with its cases. report.json then covers the
cases kept.`,
		Example: `  tracelab export --out suite/
  tracelab export --db team.db --out suite/ --all
  tracelab export --out suite/ --expose-only`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return withCode(2, fmt.Errorf("--out DIR is required: the folder to write cases.jsonl into"))
			}
			st, cfg, err := openScoring(cmd, files)
			if err != nil {
				return err
			}
			defer st.Close()
			var reports []model.Report
			if exposeOnly {
				reports, err = exportExposing(cmd, st, cfg, out, all)
				if err != nil {
					return err
				}
			} else {
				res, err := st.ExportCases(cmd.Context(), out, all)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d cases)\n", res.Path, res.Cases)
				if reports, err = app.Report(cmd.Context(), st, cfg, all); err != nil {
					return err
				}
			}
			path := filepath.Join(out, "report.json")
			if err := store.WriteFileAtomic(path, func(f *os.File) error { return model.WriteReportJSON(f, reports) }); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d servers)\n", path, len(reports))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "folder to write cases.jsonl into (created if missing)")
	cmd.Flags().BoolVar(&all, "all", false, "include machine-suggested cases, not only confirmed ones")
	cmd.Flags().BoolVar(&exposeOnly, "expose-only", false, "keep only the questions where some server's case is wrong or correct but ungrounded")
	addScoringFlags(cmd, &files)
	return cmd
}

// exportExposing writes DIR/cases.jsonl with the cases that expose
// grounding, says what it dropped and why, and returns the report of the
// cases kept.
func exportExposing(cmd *cobra.Command, st *store.Store, cfg scoring.Config, out string, all bool) ([]model.Report, error) {
	ctx := cmd.Context()
	recs, err := st.Cases(ctx, all)
	if err != nil {
		return nil, err
	}
	kept, dropped := app.ExposeOnly(recs)
	cases := make([]model.Case, len(kept))
	keep := map[string]bool{}
	for i, r := range kept {
		cases[i] = r.Case
		keep[r.Case.CaseID] = true
	}
	path := filepath.Join(out, "cases.jsonl")
	if err := store.WriteFileAtomic(path, func(f *os.File) error { return model.WriteCasesJSONL(f, cases) }); err != nil {
		return nil, err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "wrote %s (%d cases)\n", path, len(cases))
	if n := len(recs) - len(kept); n > 0 {
		fmt.Fprintf(w, "dropped %d of %d cases: every server's case of the same question is correct and grounded, so they expose nothing:\n", n, len(recs))
		for _, g := range dropped {
			fmt.Fprintf(w, "  %q: %s\n", model.CleanLine(g.Question), model.CleanLine(strings.Join(g.CaseIDs, ", ")))
		}
	} else {
		fmt.Fprintf(w, "dropped none of %d cases: every question has a case that is wrong or ungrounded\n", len(recs))
	}
	results, err := app.Evaluate(ctx, st, cfg, nil, nil)
	if err != nil {
		return nil, err
	}
	var sel []app.Result
	for _, r := range results {
		if r.Case != nil && keep[r.Case.Case.CaseID] {
			sel = append(sel, r)
		}
	}
	return app.BuildReport(sel, all), nil
}
