package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
)

func newJudgeCmd() *cobra.Command {
	var files app.Files
	var opts app.JudgeOptions
	cmd := &cobra.Command{
		Use:   "judge --judge CMD [--name NAME] [--trace ID]...",
		Short: "Run a judge command over the traces and store its verdicts as one more rater",
		Long: `Judge runs CMD (through sh -c) once per trace, every trace unless --trace names some.
CMD reads one JSON object on stdin, {"trace": the trace in tracelab's native format,
"score": its stored scoring (fields used, guess markers, classes with evidence, the
scorer's verdict)}, and writes one JSON object on stdout:

  {"failure_class": "semantic", "correct": false, "grounded": false, "rationale": "..."}

failure_class is one of entity, semantic, structural, temporal, policy, or null (or
"none") for no failure; correct and grounded are null when the judge cannot tell; every
key but rationale must be there and no other key may be. Each verdict is stored as
the label of rater judge:NAME (NAME from --name, else the command's first word without
its folder and extension) beside the people's labels: tracelab agree treats the judge
like a person, and a judge never decides a case's final label. Running a judge again
replaces its earlier verdicts.

--jobs traces are judged at once. Each judge runs in its own process group, like the
policy oracle: a judge that fails,
runs past --timeout, writes more than --max-output, or writes anything but a verdict
stops the run (the judges still running are stopped) with exit status 2, naming the
judge and the trace; no label is stored for that trace (the traces judged before it keep
theirs).`,
		Example: `  tracelab judge --judge ./judges/llm.sh
  tracelab judge --judge 'python3 judge.py --model small' --name small
  tracelab judge --judge ./judges/llm.sh --trace trace_9f31c2 --timeout 5m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Command == "" {
				return withCode(2, fmt.Errorf("--judge CMD is required: the command that judges one trace"))
			}
			eng, err := openEngine(cmd, files)
			if err != nil {
				return err
			}
			defer eng.Close()
			res, err := eng.Judge(cmd.Context(), opts)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s judged %d traces\n", res.Rater, res.Judged)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Command, "judge", "", "judge command: reads {trace, score} as JSON on stdin, writes {failure_class, correct, grounded, rationale}")
	fl.StringVar(&opts.Name, "name", "", "the judge's name: its labels are rater judge:NAME (default: from the command)")
	fl.DurationVar(&opts.Timeout, "timeout", app.DefaultJudgeTimeout, "how long the judge may take per trace")
	fl.Int64Var(&opts.MaxOutput, "max-output", app.DefaultJudgeMaxOutput, "bytes the judge may write per trace")
	fl.IntVar(&opts.Jobs, "jobs", 4, "how many traces to judge at once")
	fl.StringArrayVar(&opts.TraceIDs, "trace", nil, "judge only this trace (repeatable)")
	addScoringFlags(cmd, &files)
	return cmd
}
