package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
)

// sayNoCase prints on stderr, for report --all and export --all alike,
// how many scored traces have no case, which the report counts and the
// export cannot write (app.NoCaseLine): the two commands say the same
// words about the difference between their counts.
func sayNoCase(cmd *cobra.Command, eng *app.Engine, all bool) error {
	if !all {
		return nil
	}
	n, err := eng.Suite.NoCase(cmd.Context())
	if err != nil {
		return err
	}
	if line := app.NoCaseLine(n); line != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), line)
	}
	return nil
}
