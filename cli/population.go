package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
)

// sayLeftOut prints on stderr, for report --all and export --all alike,
// how many scored traces their one population leaves out and why
// (app.LeftOutLine): the two commands count the same cases and say the
// same words about the rest.
func sayLeftOut(cmd *cobra.Command, eng *app.Engine, all bool) error {
	if !all {
		return nil
	}
	n, err := eng.Suite.LeftOut(cmd.Context())
	if err != nil {
		return err
	}
	if line := app.LeftOutLine(n); line != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), line)
	}
	return nil
}
