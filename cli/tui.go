package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"tracelab/app"
	"tracelab/model"
	"tracelab/scoring"
	"tracelab/store"
	"tracelab/tui"
)

// addTUIFlags adds the workbench flags to a command that opens it.
func addTUIFlags(cmd *cobra.Command) {
	cmd.Flags().String("labeler", os.Getenv("USER"), "name written with every label and edit")
	cmd.Flags().String("theme", "", "dark, light or high-contrast (default: detected from the terminal)")
	cmd.Flags().Bool("queued", false, "open the queue limited to the traces `tracelab sample` queued")
}

// runTUI opens the workbench on st with the flags addTUIFlags added; cfg
// is the scoring configuration the report screen uses.
func runTUI(cmd *cobra.Command, st *store.Store, cfg scoring.Config) error {
	labeler, _ := cmd.Flags().GetString("labeler")
	theme, _ := cmd.Flags().GetString("theme")
	queued, _ := cmd.Flags().GetBool("queued")
	switch theme {
	case "", "dark", "light", "high-contrast":
	default:
		return withCode(2, fmt.Errorf("--theme %q is not one of dark, light, high-contrast", theme))
	}
	if labeler == "" {
		labeler = "anonymous"
	}
	return tui.Run(cmd.Context(), st, tui.Options{
		Labeler:    labeler,
		Theme:      theme,
		NoColor:    os.Getenv("NO_COLOR") != "",
		QueuedOnly: queued,
		LoadReport: func(ctx context.Context) ([]model.Report, error) {
			return app.Report(ctx, st, cfg, false)
		},
		Rescore: func(ctx context.Context, traceID string) error {
			_, err := app.ScoreAll(ctx, st, cfg, []string{traceID}, nil)
			return err
		},
	})
}

// isTerminal reports whether standard input and output are a terminal:
// the workbench needs one, scripts get a listing instead.
func isTerminal() bool {
	return term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd())
}
