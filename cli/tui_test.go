package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
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

func TestWorkbenchScoresUnscoredOnOpen(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	f := writeIn(t, dir, "traces.jsonl", cliTraces)
	if _, errs, code := run(t, "import", "--no-score", "--db", db, f); code != 0 {
		t.Fatalf("import: %d %s", code, errs)
	}
	ctx := context.Background()
	eng, err := app.Open(ctx, db, app.Files{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	var msg bytes.Buffer
	if err := scoreOnOpen(ctx, eng, &msg); err != nil {
		t.Fatal(err)
	}
	if msg.String() != "scored 2 traces that had no score\n" {
		t.Errorf("message %q", msg.String())
	}
	for _, id := range []string{"t1", "t2"} {
		if s, err := eng.Scores.Of(ctx, id); err != nil || s == nil {
			t.Errorf("%s not scored on open: %v", id, err)
		}
	}
	msg.Reset()
	if err := scoreOnOpen(ctx, eng, &msg); err != nil || msg.Len() != 0 {
		t.Errorf("second open scored again: %q %v", msg.String(), err)
	}
}
