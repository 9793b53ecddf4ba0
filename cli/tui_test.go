package cli

import (
	"testing"

	"github.com/spf13/cobra"
)

func TestTUIFlags(t *testing.T) {
	t.Setenv("USER", "ada")
	cases := []struct {
		args           []string
		labeler, theme string
	}{
		{nil, "ada", ""},
		{[]string{"--labeler", "grace", "--theme", "light"}, "grace", "light"},
		{[]string{"--theme=high-contrast"}, "ada", "high-contrast"},
	}
	for _, c := range cases {
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		addTUIFlags(cmd)
		if err := cmd.ParseFlags(c.args); err != nil {
			t.Fatal(err)
		}
		l, _ := cmd.Flags().GetString("labeler")
		th, _ := cmd.Flags().GetString("theme")
		if l != c.labeler || th != c.theme {
			t.Errorf("%v: labeler %q theme %q, want %q %q", c.args, l, th, c.labeler, c.theme)
		}
	}
}
