package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"tracelab/model"
	"tracelab/store"
	"tracelab/suite"
)

func newExportCmd() *cobra.Command {
	var out string
	var all bool
	var files suite.Files
	cmd := &cobra.Command{
		Use:   "export --out DIR [--all]",
		Short: "Write the confirmed cases as DIR/cases.jsonl and DIR/report.json, the suite CI reruns",
		Long: `Export writes DIR/cases.jsonl: one case per line in the seed's case schema (keys in the
seed's order), sorted by case_id, byte-identical when run twice. Only cases a person
confirmed are written unless --all adds the machine-suggested ones. The cost block comes
from the trace's usage. It also writes DIR/report.json, the report of those cases (see
tracelab report). Files are written atomically.`,
		Example: `  tracelab export --out suite/
  tracelab export --db team.db --out suite/ --all`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return withCode(2, fmt.Errorf("--out DIR is required: the folder to write cases.jsonl into"))
			}
			st, err := store.Open(cmd.Context(), dbPath(cmd))
			if err != nil {
				return err
			}
			defer st.Close()
			res, err := st.ExportCases(cmd.Context(), out, all)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d cases)\n", res.Path, res.Cases)
			cfg, err := suite.LoadConfig(cmd.Context(), st, files)
			if err != nil {
				return withCode(2, err)
			}
			reports, err := suite.Report(cmd.Context(), st, cfg, all)
			if err != nil {
				return err
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
	addScoringFlags(cmd, &files)
	return cmd
}
