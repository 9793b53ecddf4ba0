package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// A judge is one more rater: an external command (an LLM behind a script,
// a rules engine) that reads one trace with its scoring and answers with a
// label. It runs under the policy oracle's runner (process group, output
// cap, timeout), and what it answers is stored as rater "judge:NAME"
// beside the people's labels; it never decides the final label.

// DefaultJudgeTimeout is how long a judge may take per trace when
// JudgeOptions.Timeout does not say: a model call, not a lookup.
const DefaultJudgeTimeout = 2 * time.Minute

// DefaultJudgeMaxOutput caps what a judge may write per trace: a verdict
// and a rationale, far below this.
const DefaultJudgeMaxOutput = 1 << 20

// JudgeOptions steer a judge run.
type JudgeOptions struct {
	Command   string // run through sh -c, once per trace
	Name      string // the rater is "judge:" + Name; default JudgeName(Command)
	Timeout   time.Duration
	MaxOutput int64
	TraceIDs  []string // nil: every trace
	// Jobs is how many traces are judged at once (default 1): a judge
	// that calls a model spends its time waiting.
	Jobs int
	// Progress, when set, is called after each trace with how many are done.
	Progress func(done, total int)
}

// JudgeName is a judge's default name: the base name, without its
// extension, of the command's first word that names a file (has a slash or
// a dot), else of its first word: "./judges/gpt.sh --x" and
// "sh judges/gpt.sh" are "gpt", "myjudge --fast" is "myjudge".
func JudgeName(command string) string {
	f := strings.Fields(command)
	if len(f) == 0 {
		return ""
	}
	w := f[0]
	for _, x := range f {
		if strings.ContainsAny(x, "/.") && !strings.HasPrefix(x, "-") {
			w = x
			break
		}
	}
	b := filepath.Base(w)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// JudgeInput is what a judge reads on stdin, one JSON object: the trace as
// tracelab stores it (the native format) and its stored score (the
// scorer's fields used, markers, classes and evidence, verdict).
type JudgeInput struct {
	Trace *model.Trace    `json:"trace"`
	Score json.RawMessage `json:"score"`
}

// JudgeVerdict is what a judge writes on stdout: one JSON object with
// these keys (failure_class null or "none" for no failure; correct and
// grounded null when it cannot tell) and nothing else.
type JudgeVerdict struct {
	FailureClass *string `json:"failure_class"`
	Correct      *bool   `json:"correct"`
	Grounded     *bool   `json:"grounded"`
	Rationale    string  `json:"rationale"`
}

// JudgeError is a judge that gave no usable answer for a trace: it timed
// out, failed, wrote too much, or wrote something that is not a verdict.
// Nothing is stored for that trace. A failed dependency: exit status 2.
type JudgeError struct {
	Judge string // the rater, judge:NAME
	Trace string
	Msg   string
	Done  int // traces judged and stored before this one
}

func (e *JudgeError) Error() string {
	return fmt.Sprintf("%s on trace %s: %s (%d trace(s) judged before it are stored)", e.Judge, e.Trace, e.Msg, e.Done)
}

// JudgeResult says what a judge run stored.
type JudgeResult struct {
	Rater  string
	Judged int
}

// Run runs a judge over traces (every trace unless opts.TraceIDs names
// some), scoring what is stale first so each judge sees a current score,
// and stores each verdict as the judge's label as it comes, opts.Jobs
// traces at a time. The first trace it cannot judge stops the run (the
// judges still running are stopped) with a *JudgeError.
func (j JudgeService) Run(ctx context.Context, opts JudgeOptions) (JudgeResult, error) {
	e := j.e
	name := opts.Name
	if name == "" {
		name = JudgeName(opts.Command)
	}
	if strings.TrimSpace(opts.Command) == "" || name == "" {
		return JudgeResult{}, fmt.Errorf("a judge needs a command (--judge CMD)")
	}
	res := JudgeResult{Rater: model.JudgePrefix + name}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultJudgeTimeout
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultJudgeMaxOutput
	}
	if _, err := e.scoreStale(ctx, nil, nil); err != nil {
		return res, err
	}
	ids := opts.TraceIDs
	if ids == nil {
		var err error
		if ids, err = e.st.TraceIDs(ctx, Filter{}); err != nil {
			return res, err
		}
	}
	done, err := e.eachTrace(ctx, ids, opts.Jobs, func(ctx context.Context, id string) error {
		return e.judgeOne(ctx, opts, res.Rater, id)
	}, opts.Progress)
	res.Judged = done
	return res, err
}

// eachTrace runs fn over ids, jobs at a time (at least one), and returns
// how many succeeded, calling progress (when set) after each success
// with the count so far. The first error stops the run: the traces still
// running are cancelled, none is started after it, and a *JudgeError
// learns how many were done before it.
func (e *Engine) eachTrace(ctx context.Context, ids []string, jobs int, fn func(context.Context, string) error,
	progress func(done, total int)) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var first error
	done := 0
	work := make(chan string)
	stop := make(chan struct{}) // closed at the first error: start nothing more
	var wg sync.WaitGroup
	for range max(jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range work {
				err := fn(ctx, id)
				mu.Lock()
				switch {
				case err != nil && first == nil:
					first = err
					if je, ok := err.(*JudgeError); ok {
						je.Done = done
					}
					close(stop)
					// The budget lets the calls in flight finish: they are
					// paid for either way. Anything else stops them.
					if _, ok := err.(*BudgetStop); !ok {
						cancel()
					}
				case err == nil:
					done++
					if progress != nil {
						progress(done, len(ids))
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, id := range ids {
		select {
		case work <- id:
		case <-stop:
			break feed
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return done, first
}

// judgeOne runs the judge on one trace and stores its verdict.
func (e *Engine) judgeOne(ctx context.Context, opts JudgeOptions, rater, id string) error {
	t, err := e.st.Trace(ctx, id)
	if err != nil {
		return err
	}
	score, err := e.st.Score(ctx, id)
	if err != nil {
		return err
	}
	in, err := json.Marshal(JudgeInput{Trace: t, Score: score})
	if err != nil {
		return err
	}
	out, msg := commandRun{Command: opts.Command, Stdin: in, Timeout: opts.Timeout, MaxOutput: opts.MaxOutput,
		CapFlag: "--max-output", Stop: ctx.Done()}.run()
	var rl RaterLabel
	if msg == "" {
		rl, msg = parseVerdict(out)
	}
	if msg != "" {
		if err := ctx.Err(); err != nil {
			return err // stopped: another trace failed first, or the run was interrupted
		}
		return &JudgeError{Judge: rater, Trace: id, Msg: msg}
	}
	rl.Rater = rater
	return e.Raters.PutRaterLabel(ctx, id, rl)
}

// parseVerdict reads a judge's stdout: exactly one JudgeVerdict object
// (unknown keys, a second value or a class tracelab does not know are
// errors, so a typo never passes as "not rated").
func parseVerdict(out []byte) (RaterLabel, string) {
	bad := func(format string, a ...any) (RaterLabel, string) {
		return RaterLabel{}, fmt.Sprintf(format, a...) + fmt.Sprintf("; it wrote %.200q", out)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(out), &keys); err != nil {
		return bad(`expected one JSON object {"failure_class","correct","grounded","rationale"} on stdout`)
	}
	for _, k := range []string{"failure_class", "correct", "grounded"} {
		if _, ok := keys[k]; !ok {
			return bad("the verdict has no %q (null when the judge cannot tell)", k)
		}
	}
	var v JudgeVerdict
	if err := dec.Decode(&v); err != nil {
		return bad("the verdict is malformed: %v", err)
	}
	l := model.Label{Correct: v.Correct, Grounded: v.Grounded}
	if c := v.FailureClass; c != nil && *c != "" && *c != "none" {
		if !model.ValidClass(*c) {
			return bad("failure_class %q is not one of entity, semantic, structural, temporal, policy, none or null", *c)
		}
		fc := model.FailureClass(*c)
		l.FailureClass = &fc
	}
	return RaterLabel{Kind: model.RaterJudge, Label: l, Status: model.StatusSuggested, Rationale: v.Rationale}, ""
}
