package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// newSearchCmd is `tracelab search`: the full-text index over every
// trace's question and steps.
func newSearchCmd() *cobra.Command {
	var server, class, format string
	var limit int
	cmd := &cobra.Command{
		Use:   "search TEXT... [--server S] [--class C] [--format text|json]",
		Short: "Find the steps of traces that hold some words or phrases",
		Long: `Search looks through every trace's question, reasoning, assistant text, answer,
tool names, arguments (SQL included) and results. A step is a hit when it holds
every term: a word matches whole and as written, ignoring case (is_active finds
is_active, not "active"), and "a quoted phrase" matches its words in a row.

Each hit names the trace, the step (its index in the trace; "-" for the
question) and its kind, with a snippet around the match. --format json prints
an array of {"trace_id", "step", "kind", "snippet"} (step null for the
question).`,
		Example: `  tracelab search is_active
  tracelab search region_code --server generic-warehouse --class semantic
  tracelab search '"sounds like" is_active' --format json | jq '.[].trace_id'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text := strings.Join(args, " ")
			if len(app.SearchTerms(text)) == 0 {
				return withCode(2, fmt.Errorf("search %q has no word to look for", text))
			}
			var f app.Filter
			if server != "" {
				f.Servers = []string{server}
			}
			if class != "" {
				if class != "none" && !slices.Contains(model.Classes, model.FailureClass(class)) {
					return withCode(2, fmt.Errorf("--class %q is not one of entity, semantic, structural, temporal, policy, none", class))
				}
				f.Classes = []string{class}
			}
			if format != "text" && format != "json" {
				return withCode(2, fmt.Errorf("--format %q is not one of text, json", format))
			}
			if limit < 1 {
				return withCode(2, fmt.Errorf("--limit %d: want at least 1", limit))
			}
			eng, err := openEngine(cmd, app.Files{})
			if err != nil {
				return err
			}
			defer eng.Close()
			return search(cmd.Context(), eng, app.SearchQuery{Text: text, Filter: f, Limit: limit}, format, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "only traces of this server")
	cmd.Flags().StringVar(&class, "class", "", "only traces of this failure class (entity, semantic, structural, temporal, policy, none)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().IntVar(&limit, "limit", 100, "print at most this many hits")
	return cmd
}

// searchHit is one hit in --format json.
type searchHit struct {
	TraceID string `json:"trace_id"`
	Step    *int   `json:"step"` // null: the trace's question
	Kind    string `json:"kind"`
	Snippet string `json:"snippet"`
}

func search(ctx context.Context, eng *app.Engine, q app.SearchQuery, format string, w io.Writer) error {
	hits, err := eng.Traces.Search(ctx, q)
	if err != nil {
		return err
	}
	if format == "json" {
		out := make([]searchHit, len(hits))
		for i, h := range hits {
			out[i] = searchHit{TraceID: h.TraceID, Kind: h.Kind, Snippet: h.Snippet}
			if h.Step != app.QuestionStep {
				out[i].Step = &hits[i].Step
			}
		}
		enc := model.NewJSONEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := newTable(w, 0)
	fmt.Fprintln(tw, "TRACE\tSTEP\tKIND\tSNIPPET")
	for _, h := range hits {
		step := "-"
		if h.Step != app.QuestionStep {
			step = strconv.Itoa(h.Step)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", model.CleanLine(h.TraceID), step, model.CleanLine(h.Kind), model.CleanLine(h.Snippet))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	more := ""
	if len(hits) == q.Limit {
		more = fmt.Sprintf(" (the first %d: --limit shows more)", q.Limit)
	}
	_, err = fmt.Fprintf(w, "%d hits%s\n", len(hits), more)
	return err
}
