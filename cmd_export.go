package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"tracelab/store"
)

func newExportCmd() *cobra.Command {
	var out string
	var all bool
	cmd := &cobra.Command{
		Use:   "export --out DIR [--all]",
		Short: "Write the confirmed cases as DIR/cases.jsonl, the regression suite CI reruns",
		Long: `Export writes DIR/cases.jsonl: one case per line in the seed's case schema (keys in the
seed's order), sorted by case_id, byte-identical when run twice. Only cases a person
confirmed are written unless --all adds the machine-suggested ones. The cost block comes
from the trace's usage. Files are written atomically.`,
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
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "folder to write cases.jsonl into (created if missing)")
	cmd.Flags().BoolVar(&all, "all", false, "include machine-suggested cases, not only confirmed ones")
	return cmd
}
