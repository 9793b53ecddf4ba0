package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/cireport"
	"github.com/tracelab-dev/tracelab/model"
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
	ack      string // ack file: fingerprints of reviewed findings to suppress
	traces   []string
	cases    bool   // match the labeled cases of the database
	suite    string // match the cases of this suite file instead
	stdin    io.Reader
	stderr   io.Writer // warnings (a paginated listing, a run that saw two contracts of a tool)
	// load reads one side; nil means files and db: sources.
	load driftContractLoader
	// db opens the database on first use (db: sources, --cases, --suite).
	db *driftDB
}

func newDriftCmd() *cobra.Command {
	opts := &driftOptions{}
	cmd := &cobra.Command{
		Use:   "drift OLD NEW",
		Short: "Diff two tool listings and classify every change as breaking, risky or additive",
		Long: `Compare the tool contracts of OLD and NEW and report every change with its
check id, JSON path and lane (breaking, risky, additive). OLD and NEW are files
(or - for stdin) holding an MCP tools/list result, the JSON-RPC response
carrying one, or a JSON array of tools in MCP, OpenAI or Anthropic shape; or
db:SERVER@RUN, the contracts the imported traces of one run saw (db:SERVER is
its latest run; RUN may be "latest" or "previous").

--cases lists the labeled cases of the database each change affects, by
evidence tier; --suite FILE does the same for the cases of a suite file.
Subcommands keep a registry of approved contracts: approve, verify, history.

Exit status: 0 when no change reaches --fail-on, 1 when one does, 2 on bad input.
Check ids, lanes and tiers: docs/drift-checks.md.`,
		Example: `  tracelab drift tools-v1.json tools-v2.json
  tracelab drift --format junit --fail-on risky old.json new.json > drift.xml
  tracelab drift --traces runs.jsonl --severity drift-severity.txt old.json new.json
  tracelab drift --cases db:task-specific@previous db:task-specific
  tracelab drift --suite suite/cases.jsonl db:task-specific@r2 tools-next.json`,
		Args:         cobra.ExactArgs(2),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.stdin == nil {
				opts.stdin = cmd.InOrStdin()
			}
			if opts.stderr == nil {
				opts.stderr = cmd.ErrOrStderr()
			}
			opts.db = &driftDB{path: dbPath(cmd)}
			defer opts.db.close()
			return runDrift(cmd.Context(), opts, args[0], args[1], cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.format, "format", "text", "output format: "+strings.Join(cireport.DriftFormats, ", "))
	f.StringVar(&opts.failOn, "fail-on", "breaking", "exit 1 when a change reaches this lane: breaking, risky or additive")
	f.StringVar(&opts.severity, "severity", "", "severity file: `CHECK-ID LANE` per line overrides lanes (LANE: breaking, risky, additive, ignore)")
	f.StringVar(&opts.ack, "ack", "", "ack file: `FINGERPRINT [expires=YYYY-MM-DD] REASON` per line suppresses that finding; expired entries are listed")
	f.StringArrayVar(&opts.traces, "traces", nil, "trace file(s) in any supported format: list the cases each drift affects")
	f.BoolVar(&opts.cases, "cases", false, "list the labeled cases of the database each drift affects, by evidence tier")
	f.StringVar(&opts.suite, "suite", "", "list the cases of this suite (the folder export wrote, or its cases.jsonl) each drift affects")
	cmd.AddCommand(newDriftApproveCmd(), newDriftVerifyCmd(), newDriftHistoryCmd())
	return cmd
}

func runDrift(ctx context.Context, opts *driftOptions, oldArg, newArg string, w io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	started := time.Now()
	if !slices.Contains(cireport.DriftFormats, opts.format) {
		return driftBadInput(fmt.Errorf("--format: unknown format %q (supported: %s)", opts.format, strings.Join(cireport.DriftFormats, ", ")))
	}
	failOn, ok := app.ParseLane(opts.failOn)
	if !ok || failOn == app.LaneIgnore {
		return driftBadInput(fmt.Errorf("--fail-on: %q is not one of breaking, risky, additive", opts.failOn))
	}
	var sev app.DriftSeverity
	if opts.severity != "" {
		data, err := os.ReadFile(opts.severity)
		if err != nil {
			return driftBadInput(err)
		}
		if sev, err = app.ParseDriftSeverity(opts.severity, data); err != nil {
			return driftBadInput(err)
		}
	}
	acks, err := readDriftAcks(opts.ack)
	if err != nil {
		return driftBadInput(err)
	}
	if oldArg == "-" && newArg == "-" {
		return driftBadInput(errors.New("only one of OLD and NEW can be read from stdin"))
	}
	if opts.stderr == nil {
		opts.stderr = io.Discard
	}
	suite, err := suiteCasesPath(opts.suite)
	if err != nil {
		return err
	}
	opts.suite = suite
	if opts.cases && opts.suite != "" {
		return driftBadInput(errors.New("--cases and --suite are exclusive: --suite already names the cases"))
	}
	if opts.db == nil {
		opts.db = &driftDB{path: "tracelab.db"}
		defer opts.db.close()
	}
	load := opts.load
	if load == nil {
		load = driftSourceLoader(opts.db, opts.stderr)
	}
	oldTools, err := loadDriftSide(ctx, load, opts.stdin, opts.stderr, oldArg)
	if err != nil {
		return driftBadInput(err)
	}
	newTools, err := loadDriftSide(ctx, load, opts.stdin, opts.stderr, newArg)
	if err != nil {
		return driftBadInput(err)
	}
	in := app.DriftInput{OldName: oldArg, NewName: newArg, OldTools: oldTools, NewTools: newTools,
		Severity: sev, FailOn: failOn, Acks: acks, At: started}
	if r, ok := opts.db.resolved[oldArg]; ok {
		in.OldName = r
	}
	if r, ok := opts.db.resolved[newArg]; ok {
		in.NewName = r
	}
	if len(opts.traces) > 0 || opts.cases || opts.suite != "" {
		if in.Cases, err = driftCases(ctx, opts, driftServerOf(oldArg, newArg)); err != nil {
			return driftBadInput(err)
		}
		in.CheckCases = true
	}
	rep, err := app.DriftBetween(in)
	if err != nil {
		return driftBadInput(err)
	}
	out, err := cireport.RenderDrift(opts.format, rep, cireport.JUnitRun{Started: started, Elapsed: time.Since(started)})
	if err != nil {
		return driftBadInput(err)
	}
	if opts.format == "text" && rep.CasesChecked && len(rep.Findings) > 0 {
		out = withTierSection(out, rep.Cases)
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

// readDriftAcks reads the --ack file; "" is no acks.
func readDriftAcks(file string) (app.DriftAcks, error) {
	if file == "" {
		return nil, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return app.ParseDriftAcks(file, data)
}

// loadDriftSide reads one side of the diff: stdin for "-", else load.
func loadDriftSide(ctx context.Context, load driftContractLoader, stdin io.Reader, stderr io.Writer, arg string) ([]model.ToolContract, error) {
	if arg != "-" {
		return load(ctx, arg)
	}
	data, err := app.ReadListing("stdin", stdin)
	if err != nil {
		return nil, err
	}
	return parseDriftListing("stdin", data, stderr)
}

// parseDriftListing parses a listing and warns when it is one page of many:
// tools on the other pages would look removed.
func parseDriftListing(name string, data []byte, stderr io.Writer) ([]model.ToolContract, error) {
	tools, err := app.ReadToolListing(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if c := app.ListingNextCursor(data); c != "" && stderr != nil {
		fmt.Fprintf(stderr, "warning: %s is one page of a paginated tools/list (nextCursor %q): tools on other pages will look removed\n", name, c)
	}
	return tools, nil
}

// driftDB opens the database on first use, so file-only diffs never touch
// (or create) one. A missing database file is an error, not a new file.
type driftDB struct {
	path     string
	eng      *app.Engine
	resolved map[string]string // db: argument -> db:SERVER@RUN it resolved to
}

func (d *driftDB) open(ctx context.Context) (*app.Engine, error) {
	if d.eng != nil {
		return d.eng, nil
	}
	if _, err := os.Stat(d.path); err != nil && !app.IsPostgres(d.path) {
		return nil, fmt.Errorf("no database at %s (import traces with tracelab import, or name one with --db or TRACELAB_DB): %w", d.path, err)
	}
	eng, err := app.OpenWith(ctx, d.path, app.Files{}, app.OpenOptions{Upgrading: upgradeNotice(os.Stderr)})
	if err != nil {
		return nil, err
	}
	if _, err := eng.Drift.FillSemantic(ctx); err != nil {
		eng.Close()
		return nil, err
	}
	d.eng = eng
	return eng, nil
}

func (d *driftDB) close() {
	if d != nil && d.eng != nil {
		d.eng.Close()
		d.eng = nil
	}
}

// driftSourceLoader reads a side: db:SERVER[@RUN] from the database, else a
// tool listing file (warning on stderr about partial ones).
func driftSourceLoader(db *driftDB, stderr io.Writer) driftContractLoader {
	return func(ctx context.Context, arg string) ([]model.ToolContract, error) {
		src, isDB, err := app.ParseDBSource(arg)
		if err != nil {
			return nil, err
		}
		if !isDB {
			data, err := app.ReadListingFile(arg)
			if err != nil {
				return nil, err
			}
			return parseDriftListing(arg, data, stderr)
		}
		st, err := db.open(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", arg, err)
		}
		l, err := st.Drift.LoadRun(ctx, src)
		if err != nil {
			return nil, err
		}
		if db.resolved == nil {
			db.resolved = map[string]string{}
		}
		db.resolved[arg] = l.Source.String()
		if len(l.Mixed) > 0 {
			fmt.Fprintf(stderr, "warning: %s saw more than one contract of %s; comparing the one its latest trace saw\n",
				l.Source, strings.Join(l.Mixed, ", "))
		}
		return l.Tools, nil
	}
}

// driftServerOf is the server whose cases a diff concerns: NEW's when it is
// a db: source, else OLD's, else "" (every server).
func driftServerOf(oldArg, newArg string) string {
	for _, a := range []string{newArg, oldArg} {
		if src, ok, err := app.ParseDBSource(a); ok && err == nil {
			return src.Server
		}
	}
	return ""
}

// driftCases gathers the cases to match against the findings: the traces
// of --traces (each trace one case), the database's labeled cases of
// server with --cases, or the cases of a --suite file (taking their calls
// from the database, then from --traces).
func driftCases(ctx context.Context, opts *driftOptions, server string) ([]app.StoredCase, error) {
	traces, err := app.ReadTraces(ctx, opts.traces)
	if err != nil {
		return nil, err
	}
	if opts.suite != "" {
		cs, err := app.ReadSuite(ctx, opts.suite)
		if err != nil {
			return nil, err
		}
		var st *app.Engine
		if _, statErr := os.Stat(opts.db.path); statErr == nil || app.IsPostgres(opts.db.path) {
			if st, err = opts.db.open(ctx); err != nil {
				return nil, err
			}
		}
		matched, unchecked, err := st.Drift.SuiteCases(ctx, cs, traces)
		if err != nil {
			return nil, err
		}
		if len(unchecked) > 0 {
			fmt.Fprintf(opts.stderr, "warning: %d suite case(s) have no trace in the database or --traces and no contracts block, so no evidence: %s\n",
				len(unchecked), strings.Join(unchecked, ", "))
		}
		return matched, nil
	}
	var out []app.StoredCase
	for _, t := range traces {
		id := t.CaseID()
		if id == "" {
			id = t.TraceID
		}
		out = append(out, app.NewStoredCase(id, t))
	}
	if opts.cases {
		st, err := opts.db.open(ctx)
		if err != nil {
			return nil, fmt.Errorf("--cases: %w", err)
		}
		stored, err := st.Drift.StoredCases(ctx, app.CaseScope{Server: server})
		if err != nil {
			return nil, err
		}
		out = append(out, stored...)
	}
	return out, nil
}

// withTierSection adds, before the summary of a text report, the affected
// cases grouped by evidence tier (strongest first), each with its tools.
func withTierSection(text string, cases []app.AffectedCase) string {
	var b strings.Builder
	b.WriteString("\nAffected cases by tier:")
	if len(cases) == 0 {
		b.WriteString(" none\n")
	} else {
		b.WriteString("\n")
		type entry struct{ id, tools string }
		byTier := map[app.Tier][]entry{}
		var tiers []app.Tier
		for _, c := range cases { // sorted by tier, case, tool
			es := byTier[c.Tier]
			if len(es) > 0 && es[len(es)-1].id == c.CaseID {
				es[len(es)-1].tools += ", " + c.Tool
			} else {
				if len(es) == 0 {
					tiers = append(tiers, c.Tier)
				}
				es = append(es, entry{c.CaseID, c.Tool})
			}
			byTier[c.Tier] = es
		}
		for _, t := range tiers {
			fmt.Fprintf(&b, "  tier %d, %s (%d):\n", t, t, len(byTier[t]))
			for _, e := range byTier[t] {
				fmt.Fprintf(&b, "    - %s (%s)\n", model.CleanLine(e.id), model.CleanLine(e.tools))
			}
		}
	}
	i := strings.LastIndex(text, "\nSummary: ")
	if i < 0 {
		return text + b.String()
	}
	return text[:i] + b.String() + text[i:]
}

// driftOpenStore opens the database of a drift subcommand, refusing to
// create one.
func driftOpenStore(cmd *cobra.Command) (*app.Engine, error) {
	db := &driftDB{path: dbPath(cmd)}
	st, err := db.open(cmd.Context())
	if err != nil {
		return nil, driftBadInput(err)
	}
	return st, nil
}

func newDriftApproveCmd() *cobra.Command {
	var server, by string
	cmd := &cobra.Command{
		Use:   "approve NEW",
		Short: "Record every contract of a listing as approved",
		Long: `Approve adds every tool contract of NEW (a listing file, - for stdin, or
db:SERVER@RUN) to the database's registry of approved contracts, by wire
fingerprint. An approval holds for one server: --server, else the server of a
db: source; a file approved without --server holds for every server.
Approving a contract again keeps the first approval.`,
		Example: `  tracelab drift approve db:task-specific@r2
  tracelab drift approve --server support-crm tools-v2.json`,
		Args:         cobra.ExactArgs(1),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, err := driftOpenStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			db := &driftDB{path: st.Path(), eng: st}
			tools, err := loadDriftSide(ctx, driftSourceLoader(db, cmd.ErrOrStderr()), cmd.InOrStdin(), cmd.ErrOrStderr(), args[0])
			if err != nil {
				return driftBadInput(err)
			}
			source := args[0]
			if r, ok := db.resolved[args[0]]; ok {
				source = r
			}
			if src, ok, _ := app.ParseDBSource(source); ok && server == "" {
				server = src.Server
			}
			if by == "" {
				by = "unknown"
			}
			n, err := st.Drift.ApproveListing(ctx, server, source, by, tools)
			if err != nil {
				return err
			}
			where := "every server"
			if server != "" {
				where = "server " + server
			}
			fmt.Fprintf(cmd.OutOrStdout(), "approved %d contract(s) of %s for %s (%d new)\n", len(tools), source, where, n)
			return nil
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "the server the approval holds for (default: the db: source's server, else every server)")
	cmd.Flags().StringVar(&by, "by", app.DefaultLabeler(), "who approves, written to the registry")
	return cmd
}

func newDriftVerifyCmd() *cobra.Command {
	var server, format string
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "List imported traces that ran against a contract not in the approved registry",
		Long: `Verify checks every imported trace's tool contracts against the registry of
approved contracts (tracelab drift approve) and lists, per contract, the traces
that ran against one the registry does not approve for their server. A tool
marked "drifted" has another contract approved; "new" has none.

Exit status: 0 when every trace ran against approved contracts, 1 when any did
not, 2 on bad input.`,
		Example: `  tracelab drift verify
  tracelab drift verify --server task-specific --format json`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return driftBadInput(fmt.Errorf("--format %q is not one of text, json", format))
			}
			st, err := driftOpenStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			un, err := st.Drift.Verify(cmd.Context(), server)
			if err != nil {
				return err
			}
			reg, err := st.Drift.Approvals(cmd.Context())
			if err != nil {
				return err
			}
			traces := map[string]bool{}
			for _, u := range un {
				for _, t := range u.Traces {
					traces[t] = true
				}
			}
			w := cmd.OutOrStdout()
			if format == "json" {
				if un == nil {
					un = []app.UnapprovedContract{}
				}
				err = jsonIndent(w, struct {
					Unapproved []app.UnapprovedContract `json:"unapproved"`
					Traces     int                      `json:"traces"`
					Approved   int                      `json:"approved"`
				}{un, len(traces), len(reg)})
			} else {
				err = writeVerifyText(w, un, len(traces), len(reg))
			}
			if err != nil {
				return err
			}
			if len(un) > 0 {
				return &driftExitError{code: 1, err: fmt.Errorf("%d trace(s) ran against %d contract(s) not in the approved registry", len(traces), len(un))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "only traces of this server")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

func writeVerifyText(w io.Writer, un []app.UnapprovedContract, traces, approved int) error {
	var b strings.Builder
	if len(un) == 0 {
		fmt.Fprintf(&b, "Every imported trace ran against approved contracts (%d in the registry).\n", approved)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "%d trace(s) ran against %d contract(s) not in the approved registry:\n", traces, len(un))
	for _, u := range un {
		kind := "new"
		if u.KnownTool {
			kind = "drifted"
		}
		fmt.Fprintf(&b, "  %s %s %s (%s), run(s) %s, %d trace(s): %s\n", model.CleanLine(u.Server), model.CleanLine(u.Tool),
			u.Fingerprint[:min(12, len(u.Fingerprint))], kind, model.CleanLine(strings.Join(u.Runs, ", ")), len(u.Traces),
			model.CleanLine(abbrevList(u.Traces, 5)))
	}
	if approved == 0 {
		b.WriteString("The registry is empty: approve a known-good listing first, e.g. tracelab drift approve db:SERVER@RUN\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// abbrevList joins the first n items and says how many more there are.
func abbrevList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

func newDriftHistoryCmd() *cobra.Command {
	var server, format string
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List, per server and tool, every distinct contract the imported traces saw",
		Long: `History lists, per server and tool, each distinct contract (wire fingerprint,
semantic fingerprint) the imported traces saw, when it was first and last seen
(trace started_at), by how many traces and in which runs. A tool with more than
one line changed contract; equal semantic hashes mean only prose changed.`,
		Example: `  tracelab drift history
  tracelab drift history --server task-specific --format json`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return driftBadInput(fmt.Errorf("--format %q is not one of text, json", format))
			}
			st, err := driftOpenStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			hist, err := st.Drift.ContractHistory(cmd.Context(), server)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if format == "json" {
				if hist == nil {
					hist = []app.ContractVersion{}
				}
				return jsonIndent(w, hist)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%-20s %-24s %-12s %-12s %-20s %-20s %6s  %s\n", "SERVER", "TOOL", "WIRE", "SEMANTIC", "FIRST SEEN", "LAST SEEN", "TRACES", "RUNS")
			for _, v := range hist {
				fmt.Fprintf(&b, "%-20s %-24s %-12s %-12s %-20s %-20s %6d  %s\n", model.CleanLine(v.Server), model.CleanLine(v.Tool),
					v.Fingerprint[:min(12, len(v.Fingerprint))], v.Semantic[:min(12, len(v.Semantic))], model.CleanLine(v.FirstSeen),
					model.CleanLine(v.LastSeen), v.Traces, model.CleanLine(strings.Join(v.Runs, ", ")))
			}
			_, err = io.WriteString(w, b.String())
			return err
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "only this server")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}
