package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

func newSampleCmd() *cobra.Command {
	var opts app.SampleOptions
	var by, over, format string
	var judgeDis bool
	cmd := &cobra.Command{
		Use:   "sample --n N [--seed S] [--by tool,user_role,outcome] [--oversample retry=3,clarification=3]",
		Short: "Draw a stratified sample of traces into the labeling queue",
		Long: `Sample draws N traces, stratified by the tools they called, the user's role and the
outcome (or the dimensions --by names: tool, user_role, outcome, server), and makes them
the labeling queue: the workbench's queue can be limited to them. The previous queue is
replaced. Traces whose case a person already confirmed are not drawn again.

Every stratum gets at least one trace when N allows; the rest is shared in proportion to
the strata's sizes, with retries and clarifications weighted up by --oversample (where
grounding failures hide: the agent recovers and the top-line metric never sees it).
The same seed over the same traces draws the same sample.

The seed's rule: two hundred traces is enough to start, fewer than fifty is not. Sample
refuses when the database holds fewer than 50 traces unless --force.

--judge-disagreements instead queues every trace a judge labeled (tracelab judge) where
the judge and tracelab's suggestion disagree on correct, grounded or the class, or the
judge is unsure (left correct or grounded open, or gave no label): the traces a person
should check first.`,
		Example: `  tracelab sample --n 200
  tracelab sample --n 50 --seed 7 --by tool,outcome --oversample retry=4,clarification=4
  tracelab sample --n 20 --force   # a small pilot
  tracelab sample --judge-disagreements`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return withCode(2, fmt.Errorf("--format %q is not one of text, json", format))
			}
			if judgeDis {
				return queueJudgeDisagreements(cmd, format)
			}
			if opts.N <= 0 {
				return withCode(2, fmt.Errorf("--n N is required: how many traces to queue (the seed: two hundred is enough to start)"))
			}
			opts.By = nil
			for _, d := range strings.Split(by, ",") {
				if d = strings.TrimSpace(d); d != "" {
					opts.By = append(opts.By, d)
				}
			}
			var err error
			if opts.Oversample, err = app.ParseOversample(over); err != nil {
				return withCode(2, err)
			}
			st, err := openEngine(cmd, app.Files{})
			if err != nil {
				return err
			}
			defer st.Close()
			res, err := st.Suite.Sample(cmd.Context(), opts)
			if errors.Is(err, app.ErrTooFewTraces) {
				return withCode(1, err)
			}
			if err != nil {
				return withCode(2, err)
			}
			if format == "json" {
				return jsonIndent(cmd.OutOrStdout(), res)
			}
			w := cmd.OutOrStdout()
			tw := newTable(w, 0)
			fmt.Fprintf(tw, "STRATUM (%s)\tTRACES\tWEIGHT\tQUEUED\n", strings.Join(orDefault(opts.By), ", "))
			for _, s := range res.Strata {
				fmt.Fprintf(tw, "%s\t%d\t%g\t%d\n", model.CleanLine(s.Key), s.Population, s.Weight, s.Sampled)
			}
			tw.Flush()
			fmt.Fprintf(w, "queued %d of %d traces (seed %d", len(res.TraceIDs), res.Population, opts.Seed)
			if res.Skipped > 0 {
				fmt.Fprintf(w, "; %d already confirmed, not drawn", res.Skipped)
			}
			fmt.Fprintln(w, "); the workbench queue can be limited to them")
			if len(res.TraceIDs) < opts.N {
				fmt.Fprintf(w, "asked for %d: there are only %d traces to draw from\n", opts.N, res.Population)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.N, "n", 0, "how many traces to queue")
	f.Uint64Var(&opts.Seed, "seed", 1, "random seed: the same seed draws the same sample")
	f.StringVar(&by, "by", "tool,user_role,outcome", "stratify by these attributes: "+strings.Join(app.SampleDims, ", "))
	f.StringVar(&over, "oversample", "retry=3,clarification=3", `weight per outcome, OUTCOME=FACTOR,... ("none" for none)`)
	f.BoolVar(&opts.Force, "force", false, "sample even when fewer than 50 traces exist")
	f.StringVar(&format, "format", "text", "output format: text or json")
	f.BoolVar(&judgeDis, "judge-disagreements", false, "queue the traces where a judge and the scorer disagree or the judge is unsure")
	return cmd
}

// queueJudgeDisagreements is sample --judge-disagreements.
func queueJudgeDisagreements(cmd *cobra.Command, format string) error {
	eng, err := openEngine(cmd, app.Files{})
	if err != nil {
		return err
	}
	defer eng.Close()
	ids, err := eng.Judges.QueueDisagreements(cmd.Context())
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if format == "json" {
		if ids == nil {
			ids = []string{}
		}
		return jsonIndent(w, map[string]any{"trace_ids": ids})
	}
	for _, id := range ids {
		fmt.Fprintln(w, model.CleanLine(id))
	}
	fmt.Fprintf(w, "queued %d traces where a judge disagrees with the scorer or is unsure; the workbench queue can be limited to them\n", len(ids))
	return nil
}

func orDefault(by []string) []string {
	if len(by) == 0 {
		return []string{"tool", "user_role", "outcome"}
	}
	return by
}
