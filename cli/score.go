package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/cireport"
	"github.com/tracelab-dev/tracelab/model"
)

// addScoringFlags declares the inputs every scoring command shares.
func addScoringFlags(cmd *cobra.Command, f *app.Files) {
	fl := cmd.Flags()
	fl.StringVar(&f.Policy, "policy", "", "policy oracle file: scopes and users (JSON)")
	fl.StringVar(&f.PolicyOracle, "policy-oracle", "", "external policy oracle command: reads a call as JSON on stdin, writes {\"violations\":[...]}")
	fl.DurationVar(&f.OracleWait, "oracle-timeout", 10*time.Second, "how long the external policy oracle may take per call")
	fl.Int64Var(&f.OracleMaxOutput, "oracle-max-output", app.DefaultOracleMaxOutput, "bytes the external policy oracle may write per call")
	fl.StringVar(&f.Lexicon, "lexicon", "", "extra guess-marker phrases, one per line (# comments)")
	fl.StringVar(&f.Lineage, "lineage", "", `lineage file: {"tool.argument":["table.column",...]}`)
	fl.StringVar(&f.Glossary, "glossary", "", "extra glossary entries (JSON array of {term, definition, required_fields, ...})")
}

// openScoring opens the database and reads the scoring configuration the
// flags of addScoringFlags name; a bad configuration file is bad input (2).
// tune, when given, sets options of the command's own (serve's).
func openEngine(cmd *cobra.Command, files app.Files, tune ...func(*app.OpenOptions)) (*app.Engine, error) {
	wait, err := lockWait(cmd)
	if err != nil {
		return nil, err
	}
	opts := app.OpenOptions{LockWait: wait, Upgrading: upgradeNotice(cmd.ErrOrStderr())}
	for _, f := range tune {
		f(&opts)
	}
	eng, err := app.OpenWith(cmd.Context(), dbPath(cmd), files, opts)
	var cerr *app.ConfigError
	if errors.As(err, &cerr) {
		return nil, withCode(2, err)
	}
	return eng, err
}

// upgradeNotice says, before it happens, why the first command after an
// upgrade of tracelab may take a while on a large database.
func upgradeNotice(w io.Writer) func(from, to int) {
	return func(from, to int) {
		fmt.Fprintf(w, "tracelab: upgrading the database schema from version %d to %d (once; a large database takes a minute)\n", from, to)
	}
}

func newScoreCmd() *cobra.Command {
	var files app.Files
	var format string
	cmd := &cobra.Command{
		Use:   "score [--policy FILE] [--format text|jsonl]",
		Short: "Score every trace for grounding and store the suggestions",
		Long: `Score resolves the fields each tool call used (SQL parsed with the PostgreSQL parser,
tool arguments through lineage), finds guess markers in the reasoning, checks the
answer, definition, freshness and policy against the case's gold, suggests a failure
class with evidence, and proposes gold for traces nobody labeled. Scores and
suggestions are stored; a person's labels are never overwritten.`,
		Example: `  tracelab score
  tracelab score --policy policy.json --format jsonl | jq 'select(.suggested_class != null)'
  tracelab score --policy-oracle ./check-entitlements.sh`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "jsonl" {
				return withCode(2, fmt.Errorf("--format %q is not one of text, jsonl", format))
			}
			eng, err := openEngine(cmd, files)
			if err != nil {
				return err
			}
			defer eng.Close()
			w := cmd.OutOrStdout()
			if format == "jsonl" {
				if _, err := eng.Scores.ScoreStale(cmd.Context(), nil); err != nil {
					return err
				}
				return eng.Scores.EachResult(cmd.Context(), app.ScopeAll, func(r app.Result) error { return writeScoreJSONL(w, r) })
			}
			// Only what was stale is scored and listed; current scores are kept.
			tw := newScoresTable(w)
			sum, err := eng.Scores.ScoreStaleEach(cmd.Context(), func(r app.Result) error { return tw.add(r) })
			if err != nil {
				return err
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if sum.Scored == 0 {
				_, err = fmt.Fprintf(w, "all %d scores current\n", sum.Total)
				return err
			}
			_, err = fmt.Fprintf(w, "%d traces scored (%d current), %d need human review\n", sum.Scored, sum.Total-sum.Scored, sum.Review)
			return err
		},
	}
	addScoringFlags(cmd, &files)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or jsonl (one object per trace)")
	return cmd
}

func writeScoreJSONL(w io.Writer, r app.Result) error {
	line, err := model.MarshalLine(r.Score)
	if err != nil {
		return err
	}
	_, err = w.Write(line)
	return err
}

// scoresTable prints one row per scored trace. The columns are aligned
// over every row, so nothing is printed before the last row: the rows wait
// as plain tab-separated lines in one buffer (a tabwriter holding 100k rows
// while scoring ran was a quarter of the command's peak memory) and are
// aligned at Flush (writeAligned).
type scoresTable struct {
	w    io.Writer
	rows bytes.Buffer
	// A trace scored twice in one run (a second pass, after a trace
	// that teaches it through its tools' contracts was scored) is listed
	// once, as last scored: at is each trace's row start, dead the starts
	// of rows a later one replaced.
	at   map[string]int
	dead map[int]bool
}

func newScoresTable(w io.Writer) *scoresTable { return &scoresTable{w: w} }

func (tw *scoresTable) add(r app.Result) error {
	if tw.rows.Len() == 0 {
		tw.rows.WriteString("TRACE\tSERVER\tCLASS\tPREC\tREC\tCORRECT\tGROUNDED\tMARKERS\tREVIEW\n")
	}
	s := r.Score
	if tw.at == nil {
		tw.at, tw.dead = map[string]int{}, map[int]bool{}
	}
	if start, ok := tw.at[s.TraceID]; ok {
		tw.dead[start] = true
	}
	tw.at[s.TraceID] = tw.rows.Len()
	class := "-"
	if s.SuggestedClass != nil {
		class = string(*s.SuggestedClass)
	}
	rv := ""
	if s.NeedsHumanReview {
		rv = "review"
	}
	_, err := fmt.Fprintf(&tw.rows, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", model.CleanLine(s.TraceID), model.CleanLine(s.Server), class,
		fmtRate(s.GroundingPrecision), fmtRate(s.GroundingRecall), fmtBool(s.Correct), fmtBool(s.Grounded), len(s.Markers), rv)
	return err
}

// dropReplaced removes the rows a later row of the same trace replaced.
func (tw *scoresTable) dropReplaced() {
	if len(tw.dead) == 0 {
		return
	}
	var kept bytes.Buffer
	b := tw.rows.Bytes()
	for start := 0; start < len(b); {
		end := bytes.IndexByte(b[start:], '\n') + start + 1
		if !tw.dead[start] {
			kept.Write(b[start:end])
		}
		start = end
	}
	tw.rows = kept
}

// Flush prints the rows added, aligned.
func (tw *scoresTable) Flush() error {
	if tw.rows.Len() == 0 {
		return nil
	}
	tw.dropReplaced()
	if ok, err := writeAligned(tw.w, tw.rows.Bytes()); ok || err != nil {
		return err
	}
	out := newTable(tw.w, 0)
	if _, err := tw.rows.WriteTo(out); err != nil {
		return err
	}
	return out.Flush()
}

func fmtRate(p *float64) string { return cireport.Fixed(p, 2) }

func fmtBool(p *bool) string {
	switch {
	case p == nil:
		return "?"
	case *p:
		return "yes"
	}
	return "no"
}

// jsonIndent encodes v indented, without HTML escaping.
func jsonIndent(w io.Writer, v any) error {
	enc := model.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
