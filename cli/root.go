// Package cli is tracelab's command line: cobra commands wrapped by fang,
// one file per command. Commands call the engine (package app) only.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"time"

	"charm.land/fang/v2"
	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// Program is what main hands the command line: the build's version and
// the bundled demo data (testdata/traces/*.jsonl, testdata/cases.jsonl and
// testdata/policy.json at the root of the file system), and the live
// receiver `serve` runs (intake.Serve: it builds on the engine, so main
// wires it in and the command line imports the engine alone).
type Program struct {
	Version string
	Demo    fs.FS
	Serve   func(ctx context.Context, eng *app.Engine, o app.ServeOptions, httpLn, grpcLn net.Listener, log io.Writer) error
}

// Main runs the command line on the process's arguments and returns the
// exit status.
func Main(p Program) int {
	app.LimitGoMemory()
	app.PaceGC()
	root := newRootCmd(p)
	err := fang.Execute(context.Background(), root,
		fang.WithVersion(p.Version),
		fang.WithErrorHandler(printError),
		fang.WithNotifySignal(os.Interrupt))
	return exitCode(err)
}

// printError writes an error as written: fang's default handler title-cases
// the first word, which turns paths and flags into /Tmp/… and --Out. Control
// characters from file names or keys are shown escaped, and a PostgreSQL
// password is masked wherever the message carries it.
func printError(w io.Writer, _ fang.Styles, err error) {
	fmt.Fprintln(w, "Error: "+model.EscapeRunes(app.RedactSecrets(err.Error()), func(r rune) bool {
		return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) || model.IsBidiControl(r)
	}))
	var u *usageError
	if errors.As(err, &u) {
		fmt.Fprintln(w, "Try --help for usage.")
	}
}

// usageError is a command line cobra rejected: an unknown flag or command,
// a missing or extra argument. It exits 2 like every other bad input.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }
func (e *usageError) ExitCode() int { return 2 }

// markUsageErrors makes cobra's own rejections usage errors, on cmd and
// every command below it: flag errors through SetFlagErrorFunc, argument
// errors by wrapping each Args validator.
func markUsageErrors(cmd *cobra.Command) {
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if mistyped := mistypedCommand(c); mistyped != nil {
			return mistyped
		}
		return &usageError{err}
	})
	if args := cmd.Args; args != nil {
		cmd.Args = func(c *cobra.Command, a []string) error {
			if err := args(c, a); err != nil {
				return &usageError{err}
			}
			return nil
		}
	}
	for _, c := range cmd.Commands() {
		markUsageErrors(c)
	}
}

func newRootCmd(p Program) *cobra.Command {
	var files app.Files
	root := &cobra.Command{
		Use:   "tracelab",
		Short: "Label AI-agent traces for grounding and export them as a regression suite",
		Long: `tracelab loads agent traces (tool calls, arguments, results, reasoning) into a local
SQLite file, scores every call for grounding, lets you confirm gold records and labels
at the keyboard, and exports cases.jsonl plus report.json for CI.

Run without a command, it opens the workbench on the database: ./tracelab.db unless
--db or TRACELAB_DB says otherwise. A postgres:// or postgresql:// URL there is a team's
PostgreSQL database instead of a file (tracelab migrate moves a file into one). Press ?
in the workbench for its keys.`,
		Example: `  # open the workbench on bundled sample data
  tracelab demo

  # open the workbench on your database, labeling as ana
  tracelab --db team.db --labeler ana

  # the same on the team's PostgreSQL database
  export TRACELAB_DB=postgres://ana@db.example/tracelab
  tracelab --labeler ana

  # import traces, list them, export the confirmed cases
  tracelab import traces.jsonl
  tracelab ls --status confirmed
  tracelab export --out suite/`,
		Args: rootArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !isTerminal() {
				return withCode(2, fmt.Errorf("the workbench needs a terminal; see tracelab --help for the commands that run without one"))
			}
			eng, err := openEngine(cmd, files)
			if err != nil {
				return err
			}
			defer eng.Close()
			return runTUI(cmd, eng, "")
		},
	}
	root.PersistentFlags().String("db", "", "database file, or a postgres:// URL of a team database (default $TRACELAB_DB or ./tracelab.db)")
	root.PersistentFlags().Duration("lock-wait", app.DefaultLockWait,
		"how long to wait, retrying with backoff, for another process's write lock (default $TRACELAB_LOCK_WAIT or 5m)")
	addTUIFlags(root)
	addScoringFlags(root, &files)
	root.AddCommand(newImportCmd(), newExportCmd(), newLsCmd(), newDemoCmd(p.Demo), newFieldsCmd(), newScoreCmd(), newReportCmd(),
		newDriftCmd(), newCheckCmd(), newSampleCmd(), newMigrateCmd(), newJudgeCmd(), newAgreeCmd())
	root.AddCommand(newServeCmd(p))
	root.AddCommand(newContractsCmd())
	root.AddCommand(newSearchCmd())
	markUsageErrors(root)
	return root
}

// exitError carries a specific process exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }
func (e *exitError) ExitCode() int { return e.code }

// withCode wraps err so the process exits with code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// exitCode maps an error to the process status (the table in README.md):
// the code it carries; 130 for an interrupt; 2 for a failed dependency (a
// policy oracle, a database locked, read-only, damaged or out of reach, a
// missing file) or input whose numbers overflow a report; else 1.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	if errors.Is(err, context.Canceled) {
		return 130
	}
	var oracle *app.OracleError
	var judge *app.JudgeError
	var pathErr *fs.PathError
	var number *app.NonFiniteError
	var nul *app.NULError
	if errors.As(err, &nul) {
		return 2 // input the target cannot store
	}
	if errors.As(err, &oracle) || errors.As(err, &judge) || app.IsLocked(err) || app.IsReadOnly(err) || app.IsUnavailable(err) || errors.As(err, &pathErr) || errors.As(err, &number) {
		return 2
	}
	return 1
}

// lockWait resolves the lock wait: --lock-wait, then $TRACELAB_LOCK_WAIT.
func lockWait(cmd *cobra.Command) (time.Duration, error) {
	if f := cmd.Flags().Lookup("lock-wait"); f != nil && f.Changed {
		return cmd.Flags().GetDuration("lock-wait")
	}
	if v := os.Getenv("TRACELAB_LOCK_WAIT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return 0, withCode(2, fmt.Errorf("TRACELAB_LOCK_WAIT=%q: %w", v, err))
		}
		return d, nil
	}
	return app.DefaultLockWait, nil
}

// dbPath resolves the database: --db, then $TRACELAB_DB, then ./tracelab.db.
func dbPath(cmd *cobra.Command) string {
	if p, _ := cmd.Flags().GetString("db"); p != "" {
		return p
	}
	if p := os.Getenv("TRACELAB_DB"); p != "" {
		return p
	}
	return "tracelab.db"
}
