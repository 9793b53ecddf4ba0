package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

func newImportCmd() *cobra.Command {
	var opts app.ImportOptions
	var listFormats, noScore, verbose bool
	var files app.Files
	cmd := &cobra.Command{
		Use:   "import [flags] FILE...",
		Short: "Import trace files (any supported format) or a cases.jsonl suite",
		Long: `Import reads each FILE, detects its format from its content, and writes it into the
database in one transaction per file: a file with a bad record changes nothing unless
--skip-bad is given. Importing the same file again changes nothing ("0 new, N unchanged").
A trace or case id seen again with different content is an error naming both sources,
unless --replace is given. Formats that do not carry the server, user or run take them
from --server, --as-user, --role and --run. "-" reads standard input.

A cases.jsonl from another labeler adds that person's labels beside the others instead of
overwriting: the labeler is the line's own "labeler" field, else --labeler. A line's
"labels" array (tracelab export --labels all) adds every person's and judge's label it
holds. The case's final label then follows the raters (see tracelab agree). Without a
labeler a cases.jsonl is a suite: its cases are written as they are, nobody's label.`,
		Example: `  tracelab import traces.jsonl
  tracelab import --skip-bad logs/*.jsonl
  tracelab import --format anthropic --server support-bot --as-user ana.01 messages.json
  tracelab import --labeler bob bob/cases.jsonl
  tracelab import --list-formats`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if listFormats {
				for _, f := range app.Formats() {
					fmt.Fprintf(cmd.OutOrStdout(), "%-18s %s\n", f.Name, f.Doc)
				}
				return nil
			}
			if len(args) == 0 {
				return withCode(2, fmt.Errorf("no files given: tracelab import FILE... (see --help)"))
			}
			if opts.Format != "" {
				if _, ok := app.LookupFormat(opts.Format); !ok {
					return withCode(2, fmt.Errorf("unknown format %q (supported: %s)", opts.Format, app.FormatNames()))
				}
			}
			// Every input must exist before the database is opened (and
			// perhaps created): a typo must not leave a new ./tracelab.db.
			if err := checkInputs(args); err != nil {
				return err
			}
			eng, err := openEngine(cmd, files)
			if err != nil {
				return err
			}
			defer eng.Close()
			// The new traces are scored as they are imported; what is left
			// (traces a stored case waits for, and those they teach) after.
			opts.Score = !noScore
			toScore, scored, ierr := runImport(cmd.Context(), eng, args, opts, verbose, cmd.OutOrStdout(), cmd.ErrOrStderr())
			if errors.Is(ierr, context.Canceled) || exitCode(ierr) == 130 {
				return ierr
			}
			n, err := eng.Imports.AfterImport(cmd.Context(), toScore, noScore)
			// Two figures, not their sum: a trace scored while importing
			// may be scored again after, once its question's peers are in.
			switch {
			case scored > 0 && n > 0:
				fmt.Fprintf(cmd.OutOrStdout(), "scored %s while importing, then %d whose question's gold or peers changed\n", traces(scored), n)
			case scored+n > 0:
				fmt.Fprintf(cmd.OutOrStdout(), "scored %s\n", traces(scored+n))
			}
			if err != nil {
				return fmt.Errorf("after importing: %w", err)
			}
			return ierr
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Format, "format", "", "force the input format instead of detecting it (see --list-formats)")
	f.BoolVar(&opts.Replace, "replace", false, "replace traces and cases whose id exists with other content")
	f.BoolVar(&opts.SkipBad, "skip-bad", false, "import the good records of a file and list the bad ones")
	f.StringVar(&opts.Labeler, "labeler", "", "whose labels a cases.jsonl holds when its lines name no labeler: added beside the others'")
	f.StringVar(&opts.Defaults.Server, "server", "", "server name for traces whose format does not carry one")
	f.StringVar(&opts.Defaults.AsUser, "as-user", "", "end-user identity for traces that do not carry one")
	f.StringVar(&opts.Defaults.UserRole, "role", "", "user role for traces that do not carry one")
	f.StringVar(&opts.Defaults.RunID, "run", "", "run id for traces that do not carry one")
	f.BoolVar(&listFormats, "list-formats", false, "list the supported formats and exit")
	f.StringVar(&files.Prices, "prices", "", "price table (JSON, the shape of importers/prices.json) over the embedded one, for the estimated cost of traces with tokens but no cost")
	f.BoolVar(&noScore, "no-score", false, "do not score the new traces after importing them")
	f.Var((*byteSize)(&opts.MaxRecord), "max-record", "the most one record (a JSONL line, an array element, a whole JSON document) may take, like 64MiB (default 64MiB)")
	f.BoolVar(&verbose, "verbose", false, "list the parts of each file read past on purpose (a cassette's non-model calls)")
	addScoringFlags(cmd, &files)
	return cmd
}

// runImport imports every file, each in its own transaction, and reports
// per file. Files that finished stay imported when a later one fails or
// the user presses Ctrl-C. It returns the ids of the traces written that
// the import did not score, and how many it scored.
func runImport(ctx context.Context, st *app.Engine, files []string, opts app.ImportOptions, verbose bool, out, errw io.Writer) ([]string, int, error) {
	rejected, failed, scored := 0, 0, 0
	var written []string
	for _, path := range files {
		res, err := importOne(ctx, st, path, opts, errw)
		for _, b := range res.Bad {
			fmt.Fprintln(errw, b.Error())
		}
		switch {
		case errors.Is(err, context.Canceled):
			fmt.Fprintf(errw, "%s: interrupted, nothing imported from it\n", path)
			return nil, 0, withCode(130, fmt.Errorf("import interrupted"))
		case errors.Is(err, app.ErrRejected):
			fmt.Fprintln(errw, err)
			rejected++
			continue
		case app.IsLocked(err):
			fmt.Fprintf(errw, "%s: another process kept the database %s locked past the lock wait; nothing of %s was written (run it again, or raise --lock-wait)\n",
				path, st.Path(), path)
			failed++
			continue
		case app.IsReadOnly(err):
			fmt.Fprintf(errw, "%s: the database %s is read-only; nothing of %s was written\n", path, st.Path(), path)
			failed++
			continue
		case err != nil:
			fmt.Fprintf(errw, "%v; nothing of %s was written\n", err, path)
			failed++
			continue
		}
		fmt.Fprintln(out, res.Summary())
		for _, n := range res.DefaultsNotes(opts.Defaults) {
			fmt.Fprintln(errw, model.CleanLine(n))
		}
		for _, w := range res.Incomplete {
			fmt.Fprintln(errw, model.CleanLine(w.Warning(path)))
		}
		if verbose {
			for _, sk := range res.Skipped {
				fmt.Fprintln(out, "  skipped "+model.CleanLine(sk))
			}
		}
		written = append(written, res.ToScore...)
		scored += res.Scored
		if len(res.Bad) > 0 {
			rejected++
		}
	}
	switch {
	case failed > 0:
		// A database that could not be written, or a file that could not
		// be read: a failed dependency or bad input, not a verdict.
		return written, scored, withCode(2, fmt.Errorf("%d of %d file(s) not imported", failed+rejected, len(files)))
	case rejected > 0:
		return written, scored, fmt.Errorf("%d of %d file(s) had rejected records", rejected, len(files))
	}
	return written, scored, nil
}

// checkInputs refuses missing or unreadable input files, and folders,
// before anything is opened.
func checkInputs(paths []string) error {
	for _, p := range paths {
		if p == "-" {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return withCode(2, err)
		}
		if fi.IsDir() {
			return withCode(2, fmt.Errorf("%s is a directory: give the trace files in it (e.g. %s/*.jsonl)", p, p))
		}
	}
	return nil
}

func importOne(ctx context.Context, st *app.Engine, path string, opts app.ImportOptions, errw io.Writer) (app.ImportResult, error) {
	var r io.Reader
	var size int64
	if path == "-" {
		r = os.Stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return app.ImportResult{File: path}, err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		r = f
	}
	var bar *progressLine
	if ef, ok := errw.(*os.File); ok && term.IsTerminal(ef.Fd()) && size > 8<<20 {
		bar = &progressLine{w: errw, name: path, total: size, start: time.Now()}
		opts.Progress = bar.update
		defer bar.clear()
	}
	return st.Imports.Reader(ctx, r, path, opts)
}

// progressLine draws a one-line progress report (bytes, records, rate,
// ETA) on an interactive terminal, at most ten times a second.
type progressLine struct {
	w     io.Writer
	name  string
	total int64
	start time.Time
	last  time.Time
	drawn bool
}

func (p *progressLine) update(n int64, records int) {
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	rate := float64(n) / el
	pct := float64(n) / float64(p.total)
	eta := "?"
	if rate > 0 {
		eta = time.Duration(float64(p.total-n) / rate * float64(time.Second)).Round(time.Second).String()
	}
	const width = 24
	filled := int(pct * width)
	if filled > width {
		filled = width
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %5.1f%% %s/%s %d records %s/s ETA %s ",
		p.name, strings.Repeat("#", filled), strings.Repeat(".", width-filled), pct*100,
		human(n), human(p.total), records, human(int64(rate)), eta)
	p.drawn = true
}

func (p *progressLine) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[2K")
	}
}

func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fGB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fKB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

// traces is "1 trace" or "n traces".
func traces(n int) string {
	if n == 1 {
		return "1 trace"
	}
	return fmt.Sprintf("%d traces", n)
}
