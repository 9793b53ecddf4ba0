package cli

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"tracelab/app"
	"tracelab/scoring"
	"tracelab/store"
)

// demoPolicy is the bundled policy oracle, so the demo shows policy leaks.
func demoPolicy(demoData fs.FS) *scoring.PolicyFile {
	data, err := fs.ReadFile(demoData, "testdata/policy.json")
	if err != nil {
		panic(err) // embedded at build time
	}
	p, err := scoring.ParsePolicy(data)
	if err != nil {
		panic(fmt.Sprintf("bundled testdata/policy.json: %v", err))
	}
	return p
}

func newDemoCmd(demoData fs.FS) *cobra.Command {
	var keep string
	var list bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Open the workbench on a fresh temporary database loaded with the bundled sample traces",
		Long: `Demo creates a temporary database, imports the bundled sample traces (three servers,
every failure class, the seed's opening example) and the sample gold cases, and opens
the workbench on it. Nothing touches ./tracelab.db; the temporary database is removed
on exit unless --keep names a file to write it to. Without a terminal (or with --list)
it prints the loaded traces instead of opening the workbench.`,
		Example: `  tracelab demo
  tracelab demo --theme light --labeler ana
  tracelab demo --keep demo.db   # keep the database to explore it with other commands
  tracelab demo --list           # print what the demo loads`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path := keep
			if path == "" {
				dir, err := os.MkdirTemp("", "tracelab-demo-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				path = filepath.Join(dir, "demo.db")
			}
			st, err := store.Open(cmd.Context(), path)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := loadDemo(cmd.Context(), st, demoData); err != nil {
				return err
			}
			cfg, err := app.LoadConfig(cmd.Context(), st, app.Files{})
			if err != nil {
				return err
			}
			cfg.Policy = demoPolicy(demoData)
			if _, err := app.ScoreAll(cmd.Context(), st, cfg, nil, nil); err != nil {
				return fmt.Errorf("scoring the demo data: %w", err)
			}
			if list || !isTerminal() {
				return listTraces(cmd.Context(), st, store.Filter{}, "text", cmd.OutOrStdout())
			}
			return runTUI(cmd, st, cfg)
		},
	}
	cmd.Flags().StringVar(&keep, "keep", "", "write the demo database to this file and keep it")
	cmd.Flags().BoolVar(&list, "list", false, "print the loaded traces instead of opening the workbench")
	addTUIFlags(cmd)
	return cmd
}

// loadDemo imports the embedded traces first, then the cases, so every
// case links to its trace.
func loadDemo(ctx context.Context, st *store.Store, demoData fs.FS) error {
	files, err := fs.Glob(demoData, "testdata/traces/*.jsonl")
	if err != nil {
		return err
	}
	files = append(files, "testdata/cases.jsonl")
	for _, name := range files {
		f, err := demoData.Open(name)
		if err != nil {
			return err
		}
		_, err = app.Import(ctx, st, f, name, app.ImportOptions{})
		f.Close()
		if err != nil {
			return fmt.Errorf("demo data %s: %w", name, err)
		}
	}
	return nil
}
