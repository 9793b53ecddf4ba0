package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
)

func newJudgeCmd() *cobra.Command {
	var files app.Files
	var opts app.JudgeOptions
	var mopts app.ModelJudgeOptions
	cmd := &cobra.Command{
		Use:   "judge (--judge CMD | --endpoint URL --model NAME) [--name NAME] [--trace ID]...",
		Short: "Run a judge (a model, or a command) over the traces and store its verdicts as one more rater",
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
theirs).

The built-in judge: --endpoint URL --model NAME calls an OpenAI-compatible Chat
Completions endpoint (OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp's server, LiteLLM)
once per trace with tracelab's prompt (or --prompt FILE), asking for the same verdict
with JSON-schema structured output, or in words with a strict parse where the endpoint
does not take response_format. The key is read from the environment variable that
--api-key-env names, never from a flag, and never printed. The rater is judge:NAME
(--name, default the model); each label keeps the model and the prompt's sha256.
A refusal or an answer that is not exactly a verdict is stored as "no label, because
...", never guessed. Each attempt may take --timeout; 429 and 5xx answers and timeouts
are retried --retries times with backoff (Retry-After honoured); an endpoint that still
does not answer stops the run with exit status 2. --max-usd stops the run before a call
that could take the spending past it (the cost from the answer's usage and the price
table, --prices adds models); --max-tokens does the same for the tokens used, with no
price needed. Answers are cached in the database by the model, the
prompt's hash and the trace, gold and evidence sent, so a rerun costs nothing.`,
		Example: `  OPENAI_API_KEY=... tracelab judge --endpoint https://api.openai.com/v1 --model gpt-4o-mini --api-key-env OPENAI_API_KEY --max-usd 2
  tracelab judge --endpoint http://localhost:11434/v1 --model llama3.1:8b --jobs 1
  tracelab judge --judge ./judges/llm.sh
  tracelab judge --judge 'python3 judge.py --model small' --name small
  tracelab judge --judge ./judges/llm.sh --trace trace_9f31c2 --timeout 5m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if mopts.Endpoint != "" || mopts.Model != "" {
				if opts.Command != "" {
					return withCode(2, fmt.Errorf("--judge CMD and --endpoint URL are exclusive: one judge per run"))
				}
				mopts.Name, mopts.TraceIDs, mopts.Jobs, mopts.Timeout = opts.Name, opts.TraceIDs, opts.Jobs, opts.Timeout
				return runModelJudge(cmd, files, mopts)
			}
			if opts.Command == "" {
				return withCode(2, fmt.Errorf("--judge CMD is required, or --endpoint URL --model NAME for the built-in judge: the judge of one trace"))
			}
			eng, err := openEngine(cmd, files)
			if err != nil {
				return err
			}
			defer eng.Close()
			res, err := eng.Judges.Run(cmd.Context(), opts)
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
	fl.StringVar(&mopts.Endpoint, "endpoint", "", "built-in judge: an OpenAI-compatible base URL (https://api.openai.com/v1, http://localhost:11434/v1)")
	fl.StringVar(&mopts.Model, "model", "", "built-in judge: the model to ask")
	fl.StringVar(&mopts.APIKeyEnv, "api-key-env", "", "built-in judge: the environment variable holding the API key (none: no key sent)")
	fl.StringVar(&mopts.Prompt, "prompt", "", "built-in judge: a prompt template file instead of tracelab's (see app/prompts/judge-v1.tmpl)")
	fl.Float64Var(&mopts.MaxUSD, "max-usd", 0, "built-in judge: stop before spending more than this many USD (0: no budget)")
	fl.Int64Var(&mopts.MaxTokens, "max-tokens", 0, "built-in judge: stop before the calls use more than this many tokens, input and output (0: no budget)")
	fl.IntVar(&mopts.MaxOutputTokens, "max-output-tokens", 0, "built-in judge: max_completion_tokens per call (0: not sent)")
	fl.IntVar(&mopts.Retries, "retries", 3, "built-in judge: retries of a call answered 429 or 5xx, or timed out")
	fl.StringVar(&files.Prices, "prices", "", "built-in judge: a price table over the embedded one (the shape of importers/prices.json)")
	addScoringFlags(cmd, &files)
	return cmd
}

// runModelJudge runs the built-in judge and says what it did and cost.
func runModelJudge(cmd *cobra.Command, files app.Files, opts app.ModelJudgeOptions) error {
	eng, err := openEngine(cmd, files)
	if err != nil {
		return err
	}
	defer eng.Close()
	res, err := eng.Judges.RunModel(cmd.Context(), opts)
	if res.Rater != "" {
		fmt.Fprintf(cmd.OutOrStdout(), "%s (%s, prompt sha256 %.12s) judged %d traces: %d with no label, %d from the cache, $%.4f\n",
			res.Rater, res.Model, res.PromptSHA256, res.Judged, res.NoLabel, res.Cached, res.USD)
	}
	var je *app.JudgeError
	switch {
	case res.Budget != nil:
		return withCode(1, err)
	case errors.As(err, &je):
		return withCode(2, err)
	case err != nil && res.Rater == "":
		return withCode(2, err) // bad settings: no endpoint, no key, no prompt
	}
	return err
}
