package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// rootArgs refuses words after tracelab that name no command, suggesting
// the commands they look like (cobra.NoArgs says only "unknown command").
func rootArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return unknownCommand(cmd, args[0])
}

// mistypedCommand is the unknown command behind a flag error of the root:
// in "tracelab imprt --out x" the flags are parsed for tracelab itself,
// which has no --out, but what went wrong is the command's name. nil when
// cmd is not the root or no word came before the flag.
func mistypedCommand(cmd *cobra.Command) error {
	if cmd.HasParent() {
		return nil
	}
	if args := cmd.Flags().Args(); len(args) > 0 {
		return unknownCommand(cmd, args[0])
	}
	return nil
}

// unknownCommand says word is no command of root and which ones it is
// close to (cobra's suggestions: edit distance and prefixes).
func unknownCommand(root *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, root.Name())
	if root.SuggestionsMinimumDistance <= 0 {
		root.SuggestionsMinimumDistance = 2 // cobra's default, which only its own lookup sets
	}
	if s := root.SuggestionsFor(word); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return &usageError{fmt.Errorf("%s", msg)}
}
