package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
)

// demoPolicy is the bundled policy oracle, so the demo shows policy leaks.
func demoPolicy(demoData fs.FS) *app.PolicyFile {
	data, err := fs.ReadFile(demoData, "testdata/policy.json")
	if err != nil {
		panic(err) // embedded at build time
	}
	p, err := app.ParsePolicy(data)
	if err != nil {
		panic(fmt.Sprintf("bundled testdata/policy.json: %v", err))
	}
	return p
}

func newDemoCmd(demoData fs.FS) *cobra.Command {
	var keep string
	var list, fresh bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Open the workbench on the bundled sample traces, in a demo database that keeps your labels",
		Long: `Demo opens the workbench on a database of the bundled sample traces: three MCP servers,
every failure class, the seed's opening example, a second run of the task-specific server
whose tool contracts changed (the Drift screen lists the change and the cases it affects),
and the gold cases of two servers, so the generic warehouse's traces wait in the labeling
queue with suggestions from their grounded peers.

The database lives in the user's cache directory (tracelab/demo.db under
os.UserCacheDir, e.g. ~/.cache/tracelab/demo.db) and is reused by the next demo, so
labels are never thrown away silently; --fresh starts over, --keep FILE uses another
file. Nothing touches ./tracelab.db. Without a terminal (or with --list) it prints the
traces instead of opening the workbench.`,
		Example: `  tracelab demo
  tracelab demo --fresh          # throw the demo labels away and load the sample data again
  tracelab demo --theme light --labeler ana
  tracelab demo --keep demo.db   # use (and keep) ./demo.db instead of the cache directory
  tracelab demo --list           # print what the demo holds`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := demoPath(keep)
			if err != nil {
				return err
			}
			if fresh {
				for _, suffix := range []string{"", "-wal", "-shm"} {
					if err := os.Remove(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
						return err
					}
				}
			}
			eng, err := app.Open(cmd.Context(), path, app.Files{})
			if err != nil {
				return err
			}
			defer eng.Close()
			eng.SetPolicy(demoPolicy(demoData))
			loaded, err := demoLoaded(cmd.Context(), eng)
			if err != nil {
				return err
			}
			if !loaded {
				if err := loadDemo(cmd.Context(), eng, demoData); err != nil {
					return err
				}
				if _, err := eng.Imports.AfterImport(cmd.Context(), nil, true); err != nil {
					return err
				}
				if _, err := eng.Scores.Rescore(cmd.Context(), nil, nil); err != nil {
					return fmt.Errorf("scoring the demo data: %w", err)
				}
			}
			if list || !isTerminal() {
				return listTraces(cmd.Context(), eng, app.Filter{}, "text", cmd.OutOrStdout())
			}
			err = runTUI(cmd, eng, "demo "+path)
			fmt.Fprintf(cmd.ErrOrStderr(), "demo labels kept in %s (tracelab demo --fresh starts over)\n", path)
			return err
		},
	}
	cmd.Flags().StringVar(&keep, "keep", "", "use this database file instead of the one in the cache directory")
	cmd.Flags().BoolVar(&list, "list", false, "print the traces instead of opening the workbench")
	cmd.Flags().BoolVar(&fresh, "fresh", false, "delete the demo database and load the sample data again")
	addTUIFlags(cmd)
	return cmd
}

// demoPath is where the demo database lives: keep if given, else
// tracelab/demo.db in the user's cache directory (created if needed).
func demoPath(keep string) (string, error) {
	if keep != "" {
		return keep, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the demo database (use --keep FILE): %w", err)
	}
	dir = filepath.Join(dir, "tracelab")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return filepath.Join(dir, "demo.db"), nil
}

// demoLoaded reports whether the demo database already holds the sample
// data (a previous demo made it): then it is reused as it is.
func demoLoaded(ctx context.Context, eng *app.Engine) (bool, error) {
	c, err := eng.Traces.Counts(ctx, app.Filter{})
	return c.Total > 0, err
}

// demoFiles are the bundled files the demo imports, traces first so every
// case links to its trace: the sample traces, the task-specific server's
// run r3 (a tool-contract change for the Drift screen), and the cases.
var demoFiles = []string{"testdata/traces/*.jsonl", "testdata/drift/task-specific-r3.jsonl", "testdata/cases.jsonl"}

// demoUnlabeledServer is the server whose gold cases the demo leaves out,
// so its traces wait in the queue (with suggestions from grounded peers
// on the other servers) instead of arriving labeled.
const demoUnlabeledServer = "generic-warehouse"

// loadDemo imports the demo files, leaving out the cases of the traces of
// demoUnlabeledServer.
func loadDemo(ctx context.Context, eng *app.Engine, demoData fs.FS) error {
	var files []string
	for _, pat := range demoFiles {
		m, err := fs.Glob(demoData, pat)
		if err != nil {
			return err
		}
		files = append(files, m...)
	}
	for _, name := range files {
		data, err := fs.ReadFile(demoData, name)
		if err != nil {
			return err
		}
		if strings.HasSuffix(name, "cases.jsonl") {
			if data, err = withoutServerCases(ctx, eng, data, demoUnlabeledServer); err != nil {
				return err
			}
		}
		if _, err := eng.Imports.Reader(ctx, bytes.NewReader(data), name, app.ImportOptions{}); err != nil {
			return fmt.Errorf("demo data %s: %w", name, err)
		}
	}
	return nil
}

// withoutServerCases drops the lines of a cases file whose source trace
// is stored and ran on server.
func withoutServerCases(ctx context.Context, eng *app.Engine, data []byte, server string) ([]byte, error) {
	rows, _, err := eng.Traces.ListTraces(ctx, app.Query{Filter: app.Filter{Servers: []string{server}}, Limit: 100000})
	if err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	for _, r := range rows {
		skip[r.TraceID] = true
	}
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		var c struct {
			SourceTrace string `json:"source_trace"`
		}
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &c) == nil && skip[c.SourceTrace] {
			continue
		}
		out.Write(line)
	}
	return out.Bytes(), nil
}
