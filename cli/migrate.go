package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
)

func newMigrateCmd() *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "migrate --from FILE.db --to postgres://…",
		Short: "Copy a local database into a team's PostgreSQL database, checked by row counts and hashes",
		Long: `Migrate copies every row of a local SQLite database (--from) into a PostgreSQL database
(--to, default --db or TRACELAB_DB), creating its schema, in one transaction: ids, labels,
the event log, scores and the glossary arrive as they were, and the team labels on from
there. Progress goes to stderr.

Afterwards each table is read back on both sides: its row count and the sha256 of its
content are printed side by side, and any difference is an error naming the table (exit 1).
A target that holds other data is refused; one that already holds exactly the source's
rows is left as it is (running migrate twice is safe).

The target is a database tracelab may create tables in: see README.md, "A team store".`,
		Example: `  tracelab migrate --from tracelab.db --to postgres://ana@db.example/tracelab
  TRACELAB_DB=postgres://ana@db.example/tracelab tracelab migrate --from ~/labels.db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" {
				return withCode(2, fmt.Errorf("--from FILE.db is required: the local database to copy"))
			}
			if app.IsPostgres(from) {
				return withCode(2, fmt.Errorf("--from %s: give the local SQLite file to copy, not a server", from))
			}
			if to == "" {
				to = dbPath(cmd)
			}
			if !app.IsPostgres(to) {
				return withCode(2, fmt.Errorf("--to %q: give the team database as a postgres:// or postgresql:// URL (or set --db / TRACELAB_DB to one)", to))
			}
			wait, err := lockWait(cmd)
			if err != nil {
				return err
			}
			errw := cmd.ErrOrStderr()
			rep, err := app.MigrateStore(cmd.Context(), from, to, app.OpenOptions{LockWait: wait}, func(table string, done, total int64) {
				fmt.Fprintf(errw, "%s: %d of %d rows\n", table, done, total)
			})
			var mismatch *app.MismatchError
			if err != nil && !errors.As(err, &mismatch) && !errors.Is(err, app.ErrTargetNotEmpty) {
				return err
			}
			w := newTable(cmd.OutOrStdout(), 0)
			fmt.Fprintln(w, "table\tsource rows\ttarget rows\tsource sha256\ttarget sha256\t")
			for _, c := range rep.Tables {
				mark := "same"
				if !c.Same() {
					mark = "DIFFERENT"
				}
				fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\t%s\n", c.Table, c.SourceRows, c.TargetRows, c.SourceSHA, c.TargetSHA, mark)
			}
			w.Flush()
			if err != nil {
				return err
			}
			if rep.AlreadyThere {
				fmt.Fprintf(cmd.OutOrStdout(), "%s already holds every row of %s: nothing copied\n", rep.To, rep.From)
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), "copied %s into %s: every table the same on both sides\n", rep.From, rep.To)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the local SQLite database to copy")
	cmd.Flags().StringVar(&to, "to", "", "the PostgreSQL database to copy into (default --db or TRACELAB_DB)")
	return cmd
}
