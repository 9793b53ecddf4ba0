package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"tracelab/importers"
	"tracelab/model"
	"tracelab/scoring"
)

// driftExitError carries the exit code a command wants; main maps it with
// errors.As on interface{ ExitCode() int }. Exit 1 means the check ran and
// failed (drift at or above --fail-on); exit 2 means bad input.
type driftExitError struct {
	code int
	err  error
}

func (e *driftExitError) Error() string { return e.err.Error() }
func (e *driftExitError) Unwrap() error { return e.err }
func (e *driftExitError) ExitCode() int { return e.code }

func driftBadInput(err error) error { return &driftExitError{code: 2, err: err} }

// driftContractLoader reads the tool contracts one argument of `drift` names.
type driftContractLoader func(ctx context.Context, arg string) ([]model.ToolContract, error)

// driftOptions are the flags of `tracelab drift`.
type driftOptions struct {
	format   string
	failOn   string
	severity string
	traces   []string
	stdin    io.Reader
	stderr   io.Writer // warnings (a paginated listing)
	// load reads one side: driftFileLoader unless a later phase (db:SERVER@RUN)
	// plugs in another source.
	load driftContractLoader
}

func newDriftCmd() *cobra.Command {
	opts := &driftOptions{}
	cmd := &cobra.Command{
		Use:   "drift OLD NEW",
		Short: "Diff two tool listings and classify every change as breaking, risky or additive",
		Long: `Compare the tool contracts of OLD and NEW and report every change with its
check id, JSON path and lane (breaking, risky, additive). OLD and NEW are files
(or - for stdin) holding an MCP tools/list result, the JSON-RPC response
carrying one, or a JSON array of tools in MCP, OpenAI or Anthropic shape.

Exit status: 0 when no change reaches --fail-on, 1 when one does, 2 on bad input.
Check ids and lanes: docs/drift-checks.md.`,
		Example: `  tracelab drift tools-v1.json tools-v2.json
  tracelab drift --format junit --fail-on risky old.json new.json > drift.xml
  tracelab drift --traces runs.jsonl --severity drift-severity.txt old.json new.json`,
		Args:         cobra.ExactArgs(2),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.stdin == nil {
				opts.stdin = cmd.InOrStdin()
			}
			if opts.stderr == nil {
				opts.stderr = cmd.ErrOrStderr()
			}
			return runDrift(cmd.Context(), opts, args[0], args[1], cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.format, "format", "text", "output format: "+strings.Join(scoring.DriftFormats, ", "))
	f.StringVar(&opts.failOn, "fail-on", "breaking", "exit 1 when a change reaches this lane: breaking, risky or additive")
	f.StringVar(&opts.severity, "severity", "", "severity file: `CHECK-ID LANE` per line overrides lanes (LANE: breaking, risky, additive, ignore)")
	f.StringArrayVar(&opts.traces, "traces", nil, "trace file(s) in any supported format: list the cases each drift affects")
	return cmd
}

func runDrift(ctx context.Context, opts *driftOptions, oldArg, newArg string, w io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if !slices.Contains(scoring.DriftFormats, opts.format) {
		return driftBadInput(fmt.Errorf("--format: unknown format %q (supported: %s)", opts.format, strings.Join(scoring.DriftFormats, ", ")))
	}
	failOn, ok := scoring.ParseLane(opts.failOn)
	if !ok || failOn == scoring.LaneIgnore {
		return driftBadInput(fmt.Errorf("--fail-on: %q is not one of breaking, risky, additive", opts.failOn))
	}
	var sev scoring.DriftSeverity
	if opts.severity != "" {
		data, err := os.ReadFile(opts.severity)
		if err != nil {
			return driftBadInput(err)
		}
		if sev, err = scoring.ParseDriftSeverity(opts.severity, data); err != nil {
			return driftBadInput(err)
		}
	}
	if oldArg == "-" && newArg == "-" {
		return driftBadInput(errors.New("only one of OLD and NEW can be read from stdin"))
	}
	if opts.stderr == nil {
		opts.stderr = io.Discard
	}
	load := opts.load
	if load == nil {
		load = driftFileLoader(opts.stderr)
	}
	oldTools, err := loadDriftSide(ctx, load, opts.stdin, opts.stderr, oldArg)
	if err != nil {
		return driftBadInput(err)
	}
	newTools, err := loadDriftSide(ctx, load, opts.stdin, opts.stderr, newArg)
	if err != nil {
		return driftBadInput(err)
	}
	res, err := scoring.DiffContracts(oldTools, newTools)
	if err != nil {
		return driftBadInput(err)
	}
	rep := scoring.NewDriftReport(oldArg, newArg, res, sev, failOn)
	if len(opts.traces) > 0 {
		cases, err := driftCaseTools(ctx, opts.traces)
		if err != nil {
			return driftBadInput(err)
		}
		rep = rep.WithCases(scoring.AffectedCasesBetween(rep.Findings, oldTools, newTools, cases))
	}
	out, err := scoring.RenderDrift(opts.format, rep)
	if err != nil {
		return driftBadInput(err)
	}
	if _, err := io.WriteString(w, out); err != nil {
		return err
	}
	if rep.Summary.Failed {
		return &driftExitError{code: 1, err: fmt.Errorf("tool contract drift at or above %s: %d breaking, %d risky, %d additive",
			failOn, rep.Summary.Breaking, rep.Summary.Risky, rep.Summary.Additive)}
	}
	return nil
}

// loadDriftSide reads one side of the diff: stdin for "-", else load.
func loadDriftSide(ctx context.Context, load driftContractLoader, stdin io.Reader, stderr io.Writer, arg string) ([]model.ToolContract, error) {
	if arg != "-" {
		return load(ctx, arg)
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return nil, fmt.Errorf("stdin: %w", err)
	}
	return parseDriftListing("stdin", data, stderr)
}

// parseDriftListing parses a listing and warns when it is one page of many:
// tools on the other pages would look removed.
func parseDriftListing(name string, data []byte, stderr io.Writer) ([]model.ToolContract, error) {
	tools, err := importers.ParseToolListing(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if c := importers.ListingNextCursor(data); c != "" && stderr != nil {
		fmt.Fprintf(stderr, "warning: %s is one page of a paginated tools/list (nextCursor %q): tools on other pages will look removed\n", name, c)
	}
	return tools, nil
}

// driftFileLoader reads tool listing files, warning on stderr about partial
// ones. `db:SERVER@RUN` (the tools a stored run saw) is the next source to
// plug in here; until then it is refused with a clear message.
func driftFileLoader(stderr io.Writer) driftContractLoader {
	return func(_ context.Context, arg string) ([]model.ToolContract, error) {
		if strings.HasPrefix(arg, "db:") {
			return nil, fmt.Errorf("%s: database sources (db:SERVER@RUN) are not supported yet; export the listing to a file", arg)
		}
		data, err := os.ReadFile(arg)
		if err != nil {
			return nil, err
		}
		return parseDriftListing(arg, data, stderr)
	}
}

// driftCaseTools reads trace files and keeps, per trace, what affected-case
// matching needs: the case id (metadata.case_id, else the trace id), the
// calls with their results, and the tools the trace listed.
func driftCaseTools(ctx context.Context, files []string) ([]scoring.CaseTools, error) {
	var out []scoring.CaseTools
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		_, err = importers.Parse(ctx, f, file, "", func(r importers.Record) error {
			if r.Err != nil {
				return r.Err
			}
			if r.Trace != nil {
				out = append(out, traceCaseTools(r.Trace))
			}
			return nil
		})
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func traceCaseTools(t *model.Trace) scoring.CaseTools {
	ct := scoring.CaseTools{CaseID: t.CaseID()}
	if ct.CaseID == "" {
		ct.CaseID = t.TraceID
	}
	for _, tc := range t.Tools {
		ct.Listed = append(ct.Listed, tc.Name)
	}
	byID := map[string]int{}
	for _, s := range t.Steps {
		switch s.Kind {
		case model.KindToolCall:
			if s.ID != "" {
				byID[s.ID] = len(ct.Calls)
			}
			ct.Calls = append(ct.Calls, scoring.CaseCall{Tool: s.Tool, Args: s.Args})
		case model.KindToolResult:
			i, ok := byID[s.CallID]
			if !ok && s.CallID == "" && len(ct.Calls) > 0 {
				i, ok = len(ct.Calls)-1, true // an unlinked result answers the last call
			}
			if ok && ct.Calls[i].Result == nil {
				ct.Calls[i].Result = s.Result
			}
		}
	}
	return ct
}
