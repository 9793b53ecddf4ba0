package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

func newLsCmd() *cobra.Command {
	var server, status, format, view string
	var queued, disputed bool
	cmd := &cobra.Command{
		Use:   "ls [--view NAME] [--server S] [--status suggested|confirmed|none] [--queued] [--disputed] [--format text|json]",
		Short: "List the traces in the database with their label status",
		Long: `Ls prints one line per trace: id, case, server, outcome, label status, class and
question. --format json prints one JSON array of trace summaries instead.
--view lists the traces of a view saved in the workbench (its filter and
search); the other flags narrow it further.`,
		Example: `  tracelab ls
  tracelab ls --server generic-warehouse --status confirmed
  tracelab ls --format json | jq '.[].trace_id'
  tracelab ls --view "flag guesses"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch status {
			case "", "suggested", "confirmed", "pending", "none":
			default:
				return withCode(2, fmt.Errorf("--status %q is not one of suggested, pending, confirmed, none", status))
			}
			if format != "text" && format != "json" {
				return withCode(2, fmt.Errorf("--format %q is not one of text, json", format))
			}
			st, err := openEngine(cmd, app.Files{})
			if err != nil {
				return err
			}
			defer st.Close()
			var f app.Filter
			if view != "" {
				v, err := st.Traces.View(cmd.Context(), view)
				if errors.Is(err, app.ErrNotFound) {
					return withCode(2, fmt.Errorf("--view %q: no view of that name (the workbench's filter menu, f, saves them)", view))
				}
				if err != nil {
					return err
				}
				f = v.Filter
			}
			if server != "" {
				f.Servers = []string{server}
			}
			if status != "" {
				f.Statuses = []model.Status{model.Status(status)}
			}
			f.QueuedOnly = f.QueuedOnly || queued
			f.Disputed = f.Disputed || disputed
			return listTraces(cmd.Context(), st, f, format, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "only traces of this server")
	cmd.Flags().StringVar(&status, "status", "", "only traces whose label status is suggested, pending (gold confirmed, label unset), confirmed or none")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringVar(&view, "view", "", "the traces of this view saved in the workbench")
	cmd.Flags().BoolVar(&queued, "queued", false, "only traces `tracelab sample` queued for labeling")
	cmd.Flags().BoolVar(&disputed, "disputed", false, "only traces whose raters disagree and nobody adjudicated yet")
	return cmd
}

// listTraces streams every matching trace page by page.
func listTraces(ctx context.Context, st *app.Engine, f app.Filter, format string, w io.Writer) error {
	all := []app.TraceSummary{}
	q := app.Query{Filter: f, Limit: 500}
	for {
		page, next, err := st.Traces.ListTraces(ctx, q)
		if err != nil {
			return err
		}
		all = append(all, page...)
		if next == nil {
			break
		}
		q.After = next
	}
	if format == "json" {
		enc := model.NewJSONEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(all)
	}
	tw := newTable(w, 0)
	fmt.Fprintln(tw, "TRACE\tCASE\tSERVER\tMODEL\tOUTCOME\tSTATUS\tCLASS\tQUESTION")
	changed := 0
	for _, t := range all {
		class := t.Class()
		switch {
		case class == "" && !t.Scored:
			class = "unscored" // not "-": nobody, not even the scorer, has looked at it
		case class == "":
			class = "-"
		}
		caseID := t.CaseID
		if caseID == "" {
			caseID = "-"
		}
		mdl := model.CleanLine(t.Model)
		if mdl == "" {
			mdl = "-"
		}
		outcome := string(t.Outcome)
		if t.Incomplete != "" {
			outcome += " (incomplete)" // read from a cut stream: no final answer
		}
		status := string(t.Status)
		if t.Review != "" {
			status += " (changed)" // new spans since a person confirmed it
			changed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", model.CleanLine(t.TraceID), model.CleanLine(caseID), model.CleanLine(t.Server),
			ansi.Truncate(mdl, 24, "…"), outcome, status, class, ansi.Truncate(model.CleanLine(t.Question), 60, "…"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%d traces\n", len(all)); err != nil {
		return err
	}
	if changed > 0 {
		// The machine never relabels a confirmed case; a person must look.
		_, err := fmt.Fprintf(w, "%d confirmed trace(s) changed after confirmation (new spans received): `ls --format json` says what changed; confirm them again in the workbench once you have looked\n", changed)
		return err
	}
	return nil
}
