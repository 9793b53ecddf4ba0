package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
)

// The built-in judge: tracelab calls a model behind an OpenAI-compatible
// Chat Completions endpoint with its own prompt, and stores the answer as
// the label of rater judge:NAME with the model and the prompt's sha256,
// as a command judge's labels are stored. Bounded: a timeout per attempt,
// retries with backoff, a concurrency cap, a cost budget checked before
// each call, and a cache so a rerun over unchanged traces costs nothing.

// ModelJudgeOptions steer a built-in judge run.
type ModelJudgeOptions struct {
	Endpoint string // an OpenAI-compatible base URL or its /chat/completions
	Model    string
	// APIKeyEnv names the environment variable holding the key ("": none,
	// as a local Ollama needs). The key itself is never a flag value.
	APIKeyEnv string
	Prompt    string // a prompt file; "" for the built-in one
	Name      string // the rater is "judge:" + Name; default the model
	TraceIDs  []string
	Jobs      int
	Timeout   time.Duration // per attempt
	Retries   int
	// Backoff is the first wait before a retry (doubled each time);
	// MaxBackoff caps it and any Retry-After.
	Backoff, MaxBackoff time.Duration
	// MaxUSD stops the run before a call that could take the spending past
	// it (0: no budget). Costs come from the price table.
	MaxUSD float64
	// MaxTokens stops the run before a call that could take the tokens
	// used (input and output, as the endpoint counts them) past it (0: no
	// budget). It needs no price table, so it bounds a local model too.
	MaxTokens int64
	// MaxOutputTokens is sent as max_completion_tokens (0: not sent) and
	// bounds a call's cost; DefaultJudgeOutputTokens is assumed otherwise.
	MaxOutputTokens int
	HTTPClient      *http.Client // nil: a default client
	Progress        func(done, total int)
}

// DefaultJudgeOutputTokens is the output a call is assumed to cost at most
// when no --max-output-tokens bounds it: a verdict is under a hundred
// tokens, a reasoning model's thinking can be far more.
const DefaultJudgeOutputTokens = 2048

// ModelJudgeResult says what a built-in judge run did.
type ModelJudgeResult struct {
	Rater        string
	Model        string
	PromptSHA256 string
	Judged       int // labels stored (NoLabel included)
	NoLabel      int // stored as "no label, because …"
	Cached       int // answered from the cache, at no cost
	USD          float64
	Tokens       int64 // input and output tokens the calls used
	// Budget is set when the run stopped at --max-usd or --max-tokens,
	// with how many traces were left unjudged.
	Budget *BudgetStop
}

// BudgetStop says the budget stopped a run before a call.
type BudgetStop struct {
	Spent, Max             float64
	TokensSpent, MaxTokens int64
	ByTokens               bool // --max-tokens stopped it, not --max-usd
	Left                   int
}

func (b *BudgetStop) Error() string {
	var at string
	if b.ByTokens {
		at = fmt.Sprintf("%d tokens used of --max-tokens %d", b.TokensSpent, b.MaxTokens)
	} else {
		at = fmt.Sprintf("$%.4f spent of --max-usd %.4f", b.Spent, b.Max)
	}
	return fmt.Sprintf("stopped at the budget: %s; %d trace(s) not judged (run again with a larger budget: judged traces come from the cache)",
		at, b.Left)
}

// spend is what one call costs, or may cost at most.
type spend struct {
	usd    float64
	tokens int64
}

// budget is a run's spending: what calls cost, and what calls in flight
// may cost at most, in dollars and in tokens.
type budget struct {
	mu              sync.Mutex
	max             spend // a zero field: no budget of that kind
	spent, reserved spend
}

// reserve books est for one call; a BudgetStop (which limit, filled in by
// the run) when that could exceed either max.
func (b *budget) reserve(est spend) *BudgetStop {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.max.usd > 0 && b.spent.usd+b.reserved.usd+est.usd > b.max.usd {
		return &BudgetStop{}
	}
	if b.max.tokens > 0 && b.spent.tokens+b.reserved.tokens+est.tokens > b.max.tokens {
		return &BudgetStop{ByTokens: true}
	}
	b.reserved.usd += est.usd
	b.reserved.tokens += est.tokens
	return nil
}

func (b *budget) settle(est, actual spend) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reserved.usd -= est.usd
	b.reserved.tokens -= est.tokens
	b.spent.usd += actual.usd
	b.spent.tokens += actual.tokens
}

// modelJudge is one run's fixed parts.
type modelJudge struct {
	opts   ModelJudgeOptions
	rater  string
	prompt *JudgePrompt
	client *chatClient
	price  importers.Price
	budget *budget
}

// RunModel runs the built-in judge over traces (every trace unless
// opts.TraceIDs names some), opts.Jobs at a time.
func (js JudgeService) RunModel(ctx context.Context, opts ModelJudgeOptions) (ModelJudgeResult, error) {
	e := js.e
	j, err := newModelJudge(opts)
	if err != nil {
		return ModelJudgeResult{}, err
	}
	res := ModelJudgeResult{Rater: j.rater, Model: opts.Model, PromptSHA256: j.prompt.SHA256}
	if _, err := e.scoreStale(ctx, nil, nil); err != nil {
		return res, err
	}
	ids := opts.TraceIDs
	if ids == nil {
		if ids, err = e.st.TraceIDs(ctx, Filter{}); err != nil {
			return res, err
		}
	}
	var mu sync.Mutex
	done, err := e.eachTrace(ctx, ids, opts.Jobs, func(ctx context.Context, id string) error {
		o, err := j.judgeOne(ctx, e, id)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		res.USD += o.usd
		res.Tokens += o.tokens
		if o.cached {
			res.Cached++
		}
		if o.noLabel {
			res.NoLabel++
		}
		return nil
	}, opts.Progress)
	res.Judged = done
	var bs *BudgetStop
	if errors.As(err, &bs) {
		bs.Spent, bs.Max, bs.Left = j.budget.spent.usd, opts.MaxUSD, len(ids)-done
		bs.TokensSpent, bs.MaxTokens = j.budget.spent.tokens, opts.MaxTokens
		res.Budget = bs
	}
	return res, err
}

func newModelJudge(opts ModelJudgeOptions) (*modelJudge, error) {
	if strings.TrimSpace(opts.Model) == "" {
		return nil, fmt.Errorf("--model NAME is required with --endpoint")
	}
	u, err := chatURL(opts.Endpoint)
	if err != nil {
		return nil, err
	}
	var key string
	if opts.APIKeyEnv != "" {
		if key = strings.TrimSpace(os.Getenv(opts.APIKeyEnv)); key == "" {
			return nil, fmt.Errorf("--api-key-env %s: that environment variable is empty or unset", opts.APIKeyEnv)
		}
	}
	p, err := LoadJudgePrompt(opts.Prompt)
	if err != nil {
		return nil, err
	}
	price, priced := importers.PriceOf(opts.Model)
	if opts.MaxUSD > 0 && !priced {
		return nil, fmt.Errorf("--max-usd: the price table has no price for model %q, so its cost cannot be bounded (add it with --prices FILE)", opts.Model)
	}
	name := opts.Name
	if name == "" {
		name = opts.Model
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultJudgeTimeout
	}
	if opts.Retries < 0 {
		opts.Retries = 0
	}
	if opts.Backoff <= 0 {
		opts.Backoff = time.Second
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = time.Minute
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	c := &chatClient{url: u, model: opts.Model, key: key, azure: strings.HasSuffix(hostOf(u), ".azure.com"), http: hc,
		timeout: opts.Timeout, retries: opts.Retries, backoff: opts.Backoff, maxBackoff: opts.MaxBackoff, maxTokens: opts.MaxOutputTokens}
	return &modelJudge{opts: opts, rater: model.JudgePrefix + name, prompt: p, client: c, price: price,
		budget: &budget{max: spend{usd: opts.MaxUSD, tokens: opts.MaxTokens}}}, nil
}

func hostOf(u string) string {
	_, rest, _ := strings.Cut(u, "://")
	h, _, _ := strings.Cut(rest, "/")
	h, _, _ = strings.Cut(h, ":")
	return strings.ToLower(h)
}

// outcome is what judging one trace did.
type outcome struct {
	usd             float64
	tokens          int64
	cached, noLabel bool
}

// judgeOne judges one trace: from the cache, else by a call within the
// budget; stores the label (or "no label, because …").
func (j *modelJudge) judgeOne(ctx context.Context, e *Engine, id string) (outcome, error) {
	var o outcome
	system, user, err := e.judgeMessages(ctx, j.prompt, id)
	if err != nil {
		return o, err
	}
	key := j.cacheKey(system, user)
	cached, ok, err := e.st.JudgeCached(ctx, key)
	if err != nil {
		return o, err
	}
	var a chatAnswer
	if ok && json.Unmarshal([]byte(cached.Answer), &a) == nil {
		o.cached = true
	} else {
		// The bound: a token is at least three bytes of prompt, and the
		// output is capped.
		in, out := int64(len(system)+len(user))/3+1, int64(j.outputBound())
		est := spend{usd: j.cost(in, out), tokens: in + out}
		if stop := j.budget.reserve(est); stop != nil {
			return o, stop
		}
		a, err = j.client.complete(ctx, system, user)
		actual := est
		if err == nil && a.HasUsage {
			actual = spend{usd: j.cost(a.InputTokens, a.OutputTokens), tokens: a.InputTokens + a.OutputTokens}
		}
		if err != nil {
			actual = spend{} // an attempt that got no answer is not billed by the providers tracelab knows
		}
		j.budget.settle(est, actual)
		if err != nil {
			if ctx.Err() != nil {
				return o, ctx.Err()
			}
			return o, &JudgeError{Judge: j.rater, Trace: id, Msg: err.Error()}
		}
		o.usd, o.tokens = actual.usd, actual.tokens
		ans, _ := json.Marshal(a)
		if err := e.st.PutJudgeAnswer(ctx, store.JudgeAnswer{Key: key, Model: j.opts.Model, PromptSHA256: j.prompt.SHA256,
			Answer: string(ans), USD: actual.usd}); err != nil {
			return o, err
		}
	}
	rl := verdictOf(a)
	o.noLabel = strings.HasPrefix(rl.Rationale, noLabelPrefix)
	rl.Rater, rl.Model, rl.PromptSHA256 = j.rater, j.opts.Model, j.prompt.SHA256
	return o, e.Raters.PutRaterLabel(ctx, id, rl)
}

func (j *modelJudge) outputBound() int {
	if j.opts.MaxOutputTokens > 0 {
		return j.opts.MaxOutputTokens
	}
	return DefaultJudgeOutputTokens
}

// cost is the USD of a call from its tokens and the price table.
func (j *modelJudge) cost(in, out int64) float64 {
	return (float64(in)*j.price.Input + float64(out)*j.price.Output) / 1e6
}

// cacheKey is the sha256 over the model, the prompt's hash and what was
// rendered from the trace, its gold and its score: a change to any of
// them asks the model again.
func (j *modelJudge) cacheKey(system, user string) string {
	h := sha256.New()
	for _, s := range []string{j.opts.Model, j.prompt.SHA256, system, user} {
		fmt.Fprintf(h, "%d:%s\x00", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// judgeMessages renders the prompt for one trace from the stored trace,
// score and gold (the case's, else nothing).
func (e *Engine) judgeMessages(ctx context.Context, p *JudgePrompt, id string) (system, user string, err error) {
	t, err := e.st.Trace(ctx, id)
	if err != nil {
		return "", "", err
	}
	raw, err := e.st.Score(ctx, id)
	if err != nil {
		return "", "", err
	}
	sc, err := parseScore(raw)
	if err != nil {
		return "", "", fmt.Errorf("trace %s: its stored score: %w", id, err)
	}
	// The gold is the case's; a trace with no case yet gets the gold
	// tracelab suggests, which is what the trace screen shows a person.
	var gold model.Gold
	rec, err := e.st.CaseForTrace(ctx, id)
	switch {
	case err != nil:
		return "", "", err
	case rec != nil:
		gold = rec.Case.Gold
	default:
		sugg, err := e.Scores.SuggestGold(ctx, id)
		if err != nil {
			return "", "", err
		}
		if sugg != nil {
			gold = sugg.Gold
		}
	}
	return p.render(promptData(t, sc, gold))
}

// noLabelPrefix starts the rationale of a judge label that is no label.
const noLabelPrefix = "no label, because "

// verdictOf turns a model's answer into a judge label: a refusal or an
// answer that is not exactly a verdict is an all-null label saying why,
// never a guess.
func verdictOf(a chatAnswer) RaterLabel {
	none := func(why string) RaterLabel {
		return RaterLabel{Kind: model.RaterJudge, Status: model.StatusSuggested, Rationale: noLabelPrefix + model.CleanLine(why)}
	}
	switch {
	case a.Refusal != "":
		return none("the model refused: " + cutUTF8(a.Refusal, 300))
	case strings.TrimSpace(a.Content) == "":
		return none(fmt.Sprintf("the model answered nothing (finish_reason %q)", a.FinishReason))
	}
	rl, msg := parseVerdict(unfence([]byte(a.Content)))
	if msg != "" {
		if a.FinishReason == "length" {
			msg += " (the answer was cut at the output token limit)"
		}
		return none("the answer is not a verdict: " + msg)
	}
	rl.Rationale = model.CleanLine(rl.Rationale)
	return rl
}

// unfence takes a verdict out of one Markdown code fence, the way local
// models often wrap JSON when not held to a schema; anything else is left
// as it is for the strict parse.
func unfence(b []byte) []byte {
	s := bytes.TrimSpace(b)
	if !bytes.HasPrefix(s, []byte("```")) || !bytes.HasSuffix(s, []byte("```")) || len(s) < 6 {
		return s
	}
	s = s[3 : len(s)-3]
	if i := bytes.IndexByte(s, '\n'); i >= 0 && !bytes.ContainsAny(s[:i], "{") {
		s = s[i+1:] // the fence's language tag
	}
	return bytes.TrimSpace(s)
}
