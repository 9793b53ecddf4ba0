package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/tui"
)

// addTUIFlags adds the workbench flags to a command that opens it.
func addTUIFlags(cmd *cobra.Command) {
	cmd.Flags().String("labeler", app.DefaultLabeler(), "name written with every label and edit")
	cmd.Flags().String("theme", "", "dark, light or high-contrast (default: detected from the terminal)")
	cmd.Flags().Bool("queued", false, "open the queue limited to the traces `tracelab sample` queued")
	cmd.Flags().Bool("strict", false, "refuse to confirm a label with gaps (correct unknown, not grounded without a class) instead of asking")
	cmd.Flags().Duration("reserve-for", app.DefaultReservationTTL,
		"how long an opened trace stays reserved for you without a key pressed on it (others' n skips it meanwhile)")
}

// pollChanges is how often the open trace is checked for other labelers'
// edits: a query on an index per poll, cheap next to a person's pace.
const pollChanges = 2 * time.Second

// runTUI opens the workbench on the engine with the flags addTUIFlags
// added; where is what the title bar says of the database ("" for its name).
func runTUI(cmd *cobra.Command, eng *app.Engine, where string) error {
	labeler, _ := cmd.Flags().GetString("labeler")
	theme, _ := cmd.Flags().GetString("theme")
	queued, _ := cmd.Flags().GetBool("queued")
	strict, _ := cmd.Flags().GetBool("strict")
	reserveFor, _ := cmd.Flags().GetDuration("reserve-for")
	switch theme {
	case "", "dark", "light", "high-contrast":
	default:
		return withCode(2, fmt.Errorf("--theme %q is not one of dark, light, high-contrast", theme))
	}
	if reserveFor <= 0 {
		return withCode(2, fmt.Errorf("--reserve-for %s: give a positive duration such as 15m", reserveFor))
	}
	if err := scoreOnOpen(cmd.Context(), eng, cmd.ErrOrStderr()); err != nil {
		return err
	}
	eng.SetReservationTTL(reserveFor)
	return tui.Run(cmd.Context(), eng, tui.Options{
		Labeler:     labeler,
		Theme:       theme,
		NoColor:     os.Getenv("NO_COLOR") != "",
		QueuedOnly:  queued,
		Strict:      strict,
		Where:       where,
		PollChanges: pollChanges,
		WatchStore:  time.Second, // traces tracelab serve writes show within 2 s
	})
}

// isTerminal reports whether standard input and output are a terminal:
// the workbench needs one, scripts get a listing instead.
func isTerminal() bool {
	return term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd())
}

// scoreOnOpen scores the traces that have no score before the workbench
// shows them: a scoring run killed earlier (or an import with --no-score)
// left them, and the queue would show them with no class and no markers,
// as if the scorer had found nothing.
func scoreOnOpen(ctx context.Context, eng *app.Engine, w io.Writer) error {
	if eng.ReadOnly() {
		fmt.Fprintf(w, "%s is read-only: browsing only, labels cannot be saved\n", eng.Path())
		return nil
	}
	n, err := eng.Scores.ScoreUnscored(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("scoring the traces that have no score: %w", err)
	}
	if n > 0 {
		fmt.Fprintf(w, "scored %d traces that had no score\n", n)
	}
	return nil
}
