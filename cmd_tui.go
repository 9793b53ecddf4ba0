package main

import (
	"os"

	"github.com/spf13/cobra"

	"tracelab/store"
	"tracelab/tui"
)

// addTUIFlags adds the workbench flags to a command that opens it.
func addTUIFlags(cmd *cobra.Command) {
	cmd.Flags().String("labeler", os.Getenv("USER"), "name written with every label and edit")
	cmd.Flags().String("theme", "", "dark, light or high-contrast (default: detected from the terminal)")
}

// runTUI opens the workbench on st with the flags addTUIFlags added.
func runTUI(cmd *cobra.Command, st *store.Store) error {
	labeler, _ := cmd.Flags().GetString("labeler")
	theme, _ := cmd.Flags().GetString("theme")
	return tui.Run(cmd.Context(), st, tui.Options{
		Labeler: labeler,
		Theme:   theme,
		NoColor: os.Getenv("NO_COLOR") != "",
	})
}
