package app

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// chatServer is a Chat Completions endpoint started in the test: answer
// decides each response from the request number (from 0) and the body.
type chatServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	auth   []string
}

func newChatServer(t *testing.T, answer func(n int, body map[string]any, w http.ResponseWriter, r *http.Request)) *chatServer {
	t.Helper()
	cs := &chatServer{}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(data, &body); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		cs.mu.Lock()
		n := len(cs.bodies)
		cs.bodies = append(cs.bodies, body)
		cs.auth = append(cs.auth, r.Header.Get("Authorization"))
		cs.mu.Unlock()
		answer(n, body, w, r)
	}))
	t.Cleanup(cs.Close)
	return cs
}

func (cs *chatServer) calls() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.bodies)
}

// reply writes a recorded response body from testdata/judge.
func reply(t *testing.T, name string) func(int, map[string]any, http.ResponseWriter, *http.Request) {
	data, err := os.ReadFile("testdata/judge/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return func(_ int, _ map[string]any, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	}
}

func fastOpts(cs *chatServer, model string) ModelJudgeOptions {
	return ModelJudgeOptions{Endpoint: cs.URL + "/v1", Model: model, Jobs: 4, Timeout: 5 * time.Second, Retries: 2,
		Backoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond}
}

// OpenAI with structured output: every trace gets the judge's label with
// the model and the prompt's hash; the key goes in the header; a rerun
// is answered from the cache and calls nothing.
func TestJudgeModelOpenAIStructured(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	cs := newChatServer(t, reply(t, "openai-structured.json"))
	t.Setenv("TRACELAB_TEST_KEY", "sk-test-123")
	opts := fastOpts(cs, "gpt-4o-mini")
	opts.APIKeyEnv = "TRACELAB_TEST_KEY"
	res, err := e.Judges.RunModel(ctx, opts)
	if err != nil || res.Judged != 32 || res.Cached != 0 || res.NoLabel != 0 || res.Rater != "judge:gpt-4o-mini" {
		t.Fatalf("first run: %+v %v", res, err)
	}
	// 32 calls of 1843 in and 41 out at gpt-4o-mini's price.
	if want := 32 * (1843*0.15 + 41*0.6) / 1e6; abs(res.USD-want) > 1e-9 {
		t.Errorf("cost %.6f, want %.6f", res.USD, want)
	}
	if cs.calls() != 32 || cs.auth[0] != "Bearer sk-test-123" {
		t.Fatalf("%d calls, auth %q", cs.calls(), cs.auth[0])
	}
	rf, _ := cs.bodies[0]["response_format"].(map[string]any)
	if rf["type"] != "json_schema" || cs.bodies[0]["model"] != "gpt-4o-mini" {
		t.Errorf("request: %v", cs.bodies[0])
	}
	msgs, _ := cs.bodies[0]["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages: %v", msgs)
	}
	tr, err := e.Raters.Of(ctx, "trace_9f31c2")
	if err != nil {
		t.Fatal(err)
	}
	j := tr.Rater("judge:gpt-4o-mini")
	p, _ := LoadJudgePrompt("")
	if j == nil || classStr(j.Label.FailureClass) != "semantic" || boolStr(j.Label.Grounded) != "no" ||
		j.Model != "gpt-4o-mini" || j.PromptSHA256 != p.SHA256 || !strings.Contains(j.Rationale, "subscription_status") {
		t.Fatalf("judge label: %+v", j)
	}
	res, err = e.Judges.RunModel(ctx, opts)
	if err != nil || res.Cached != 32 || res.USD != 0 || cs.calls() != 32 {
		t.Errorf("rerun: %+v %v, %d calls", res, err, cs.calls())
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// What the prompt shows the model: the question, the steps with the guess
// markers marked, the fields each call used, the gold and the evidence.
func TestJudgePromptShowsWhatAPersonSees(t *testing.T) {
	e := labelEngine(t)
	p, err := LoadJudgePrompt("")
	if err != nil {
		t.Fatal(err)
	}
	system, user, err := e.judgeMessages(context.Background(), p, "trace_9f31c2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"entity:", "semantic:", "structural:", "temporal:", "policy:", "rationale"} {
		if !strings.Contains(system, want) {
			t.Errorf("system message lacks %q", want)
		}
	}
	for _, want := range []string{"Question: How many active customers", "⟦guess: ", "fields used: ", "required fields: ",
		"Scorer's evidence", "semantic (confidence", "BEGIN TRACE", "END TRACE"} {
		if !strings.Contains(user, want) {
			t.Errorf("user message lacks %q:\n%s", want, user)
		}
	}
}

// A local Ollama or llama.cpp that rejects response_format: the judge asks
// in words from then on and parses strictly (a fenced verdict is read, prose
// is no label).
func TestJudgeModelPlainFallback(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	reject, _ := os.ReadFile("testdata/judge/llamacpp-no-schema.json")
	fenced := reply(t, "ollama-fenced.json")
	prose := reply(t, "ollama-prose.json")
	cs := newChatServer(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		switch {
		case body["response_format"] != nil:
			w.WriteHeader(http.StatusBadRequest)
			w.Write(reject)
		case n == 1:
			fenced(n, body, w, r)
		default:
			prose(n, body, w, r)
		}
	})
	opts := fastOpts(cs, "llama3.1:8b")
	opts.Jobs, opts.TraceIDs = 1, []string{"trace_9f31c2", "trace_5c0d91"}
	res, err := e.Judges.RunModel(ctx, opts)
	if err != nil || res.Judged != 2 || res.NoLabel != 1 || res.USD != 0 {
		t.Fatalf("run: %+v %v", res, err)
	}
	if cs.calls() != 3 || cs.bodies[2]["response_format"] != nil {
		t.Errorf("%d calls; the third asked %v", cs.calls(), cs.bodies[2]["response_format"])
	}
	tr, _ := e.Raters.Of(ctx, "trace_9f31c2")
	if j := tr.Rater("judge:llama3.1:8b"); j == nil || classStr(j.Label.FailureClass) != "temporal" {
		t.Errorf("fenced verdict: %+v", j)
	}
	tr, _ = e.Raters.Of(ctx, "trace_5c0d91")
	j := tr.Rater("judge:llama3.1:8b")
	if j == nil || j.Label != (model.Label{}) || !strings.HasPrefix(j.Rationale, "no label, because the answer is not a verdict") {
		t.Errorf("prose answer: %+v", j)
	}
}

// The failures: 429 then success (Retry-After honoured), a refusal, a
// malformed body, a timeout, a bad key that is never printed.
func TestJudgeModelFailures(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	t.Run("429 then success", func(t *testing.T) {
		one := []string{"trace_5c0d91"}
		ok := reply(t, "openai-plain.json")
		cs := newChatServer(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
			if n < 2 {
				w.Header().Set("Retry-After", "0")
				http.Error(w, `{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"requests","code":"rate_limit_exceeded"}}`, http.StatusTooManyRequests)
				return
			}
			ok(n, body, w, r)
		})
		opts := fastOpts(cs, "gpt-4o-mini")
		opts.TraceIDs, opts.Name = one, "retry"
		res, err := e.Judges.RunModel(ctx, opts)
		if err != nil || res.Judged != 1 || cs.calls() != 3 {
			t.Fatalf("%+v %v, %d calls", res, err, cs.calls())
		}
	})
	t.Run("5xx past the retries", func(t *testing.T) {
		one := []string{"trace_e7c3b5"}
		cs := newChatServer(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
			http.Error(w, "upstream down", http.StatusBadGateway)
		})
		opts := fastOpts(cs, "gpt-4o-mini")
		opts.TraceIDs, opts.Name = one, "down"
		_, err := e.Judges.RunModel(ctx, opts)
		var je *JudgeError
		if !errors.As(err, &je) || !strings.Contains(err.Error(), "502") || !strings.Contains(err.Error(), "after 3 tries") || cs.calls() != 3 {
			t.Fatalf("%v, %d calls", err, cs.calls())
		}
	})
	t.Run("refusal", func(t *testing.T) {
		one := []string{"trace_b82e11"}
		cs := newChatServer(t, reply(t, "openai-refusal.json"))
		opts := fastOpts(cs, "gpt-4o")
		opts.TraceIDs, opts.Name = one, "refuses"
		res, err := e.Judges.RunModel(ctx, opts)
		if err != nil || res.NoLabel != 1 {
			t.Fatalf("%+v %v", res, err)
		}
		tr, _ := e.Raters.Of(ctx, one[0])
		j := tr.Rater("judge:refuses")
		if j == nil || j.Label != (model.Label{}) || j.Rationale != "no label, because the model refused: I'm sorry, I can't assist with that request." {
			t.Errorf("%+v", j)
		}
	})
	t.Run("malformed body", func(t *testing.T) {
		one := []string{"trace_c5e812"}
		cs := newChatServer(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"id":"chatcmpl-1","choices":[{"message":{"content":`))
		})
		opts := fastOpts(cs, "gpt-4o-mini")
		opts.TraceIDs, opts.Name = one, "malformed"
		_, err := e.Judges.RunModel(ctx, opts)
		var je *JudgeError
		if !errors.As(err, &je) || !strings.Contains(err.Error(), "not a Chat Completions response") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		one := []string{"trace_7a18cb"}
		cs := newChatServer(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // never answers
		})
		opts := fastOpts(cs, "gpt-4o-mini")
		opts.TraceIDs, opts.Name, opts.Timeout, opts.Retries = one, "slow", 50*time.Millisecond, 1
		_, err := e.Judges.RunModel(ctx, opts)
		var je *JudgeError
		if !errors.As(err, &je) || !strings.Contains(err.Error(), "no answer within 50ms (after 2 tries)") {
			t.Fatalf("%v", err)
		}
		tr, _ := e.Raters.Of(ctx, one[0])
		if tr.Rater("judge:slow") != nil {
			t.Error("a timeout stored a label")
		}
	})
	t.Run("the key is never printed", func(t *testing.T) {
		one := []string{"trace_f0d84c"}
		cs := newChatServer(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":{"message":"Incorrect API key provided: `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}}`,
				http.StatusUnauthorized)
		})
		t.Setenv("TRACELAB_TEST_KEY", "sk-secret-987")
		opts := fastOpts(cs, "gpt-4o-mini")
		opts.TraceIDs, opts.Name, opts.APIKeyEnv = one, "badkey", "TRACELAB_TEST_KEY"
		_, err := e.Judges.RunModel(ctx, opts)
		if err == nil || strings.Contains(err.Error(), "sk-secret-987") || !strings.Contains(err.Error(), "401") || cs.calls() != 1 {
			t.Fatalf("%v, %d calls", err, cs.calls())
		}
		opts.APIKeyEnv = "TRACELAB_TEST_UNSET_KEY"
		if _, err := e.Judges.RunModel(ctx, opts); err == nil || !strings.Contains(err.Error(), "TRACELAB_TEST_UNSET_KEY") {
			t.Errorf("unset key: %v", err)
		}
	})
}

// A budget reached mid-run stops before the call that could exceed it;
// what was judged stays, and a rerun with a larger budget pays only for
// the rest.
func TestJudgeModelBudget(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	cs := newChatServer(t, reply(t, "openai-structured.json"))
	opts := fastOpts(cs, "gpt-4o-mini")
	opts.Jobs, opts.MaxOutputTokens = 1, 100
	// A call costs 1843*0.15e-6 + 41*0.6e-6 = 0.00030105; it is booked
	// beforehand at its bound (prompt bytes/3 in, 100 out).
	opts.MaxUSD = 0.003
	res, err := e.Judges.RunModel(ctx, opts)
	var bs *BudgetStop
	if !errors.As(err, &bs) || res.Budget == nil || res.Judged == 0 || res.Judged >= 32 || res.USD > opts.MaxUSD {
		t.Fatalf("%+v %v", res, err)
	}
	if bs.Left != 32-res.Judged || cs.calls() != res.Judged || !strings.Contains(err.Error(), "not judged") {
		t.Errorf("%+v, %d calls", bs, cs.calls())
	}
	first := res.Judged
	opts.MaxUSD = 1
	res, err = e.Judges.RunModel(ctx, opts)
	if err != nil || res.Cached != first || cs.calls() != 32 {
		t.Errorf("rerun: %+v %v, %d calls", res, err, cs.calls())
	}
	opts.Model = "no-such-model-anywhere"
	if _, err := e.Judges.RunModel(ctx, opts); err == nil || !strings.Contains(err.Error(), "no price") {
		t.Errorf("unpriced model under a budget: %v", err)
	}
}

// A token budget stops the same way, with no price table needed: a
// local model's run is bounded too.
func TestJudgeModelTokenBudget(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	cs := newChatServer(t, reply(t, "openai-structured.json"))
	opts := fastOpts(cs, "a-local-model-with-no-price")
	opts.Jobs, opts.MaxOutputTokens = 1, 100
	// Each call is booked at its bound (prompt bytes/3 in, 100 out) and
	// settled at the usage the answer reports (1843 in, 41 out).
	opts.MaxTokens = 20000
	res, err := e.Judges.RunModel(ctx, opts)
	var bs *BudgetStop
	if !errors.As(err, &bs) || !bs.ByTokens || res.Judged == 0 || res.Judged >= 32 || res.Tokens > opts.MaxTokens {
		t.Fatalf("%+v %v", res, err)
	}
	if res.Tokens != int64(res.Judged)*(1843+41) || bs.TokensSpent != res.Tokens || bs.Left != 32-res.Judged ||
		!strings.Contains(err.Error(), "tokens used of --max-tokens 20000") {
		t.Errorf("%+v %+v: %v", res, bs, err)
	}
	opts.MaxTokens = 0
	if res, err = e.Judges.RunModel(ctx, opts); err != nil || cs.calls() != 32 {
		t.Errorf("rerun without a budget: %+v %v, %d calls", res, err, cs.calls())
	}
}

func TestChatURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.openai.com/v1":                 "https://api.openai.com/v1/chat/completions",
		"http://localhost:11434/v1/":                "http://localhost:11434/v1/chat/completions",
		"http://localhost:8080/v1/chat/completions": "http://localhost:8080/v1/chat/completions",
		"https://x.openai.azure.com/openai/v1":      "https://x.openai.azure.com/openai/v1/chat/completions",
		"ftp://example.com":                         "",
		"localhost:11434":                           "",
	} {
		got, err := chatURL(in)
		if (err != nil) != (want == "") || got != want && want != "" {
			t.Errorf("chatURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	for h, want := range map[string]time.Duration{"": 0, "2": 2 * time.Second, "0": time.Millisecond, "999": time.Minute,
		"soon": 0} {
		if got := retryAfter(h, time.Minute); got != want {
			t.Errorf("retryAfter(%q) = %s, want %s", h, got, want)
		}
	}
}

// FuzzVerdictOf: whatever a model answers is a label of a known class or
// "no label, because …", never a panic and never both.
func FuzzVerdictOf(f *testing.F) {
	f.Add("```json\n{\"correct\":true,\"grounded\":true,\"failure_class\":\"none\",\"rationale\":\"x\"}\n```", "")
	f.Add("semantic", "")
	f.Add("", "I can't help with that")
	f.Fuzz(func(t *testing.T, content, refusal string) {
		rl := verdictOf(chatAnswer{Content: content, Refusal: refusal})
		noLabel := strings.HasPrefix(rl.Rationale, noLabelPrefix)
		if noLabel && rl.Label != (model.Label{}) {
			t.Fatalf("no label with a label: %+v", rl)
		}
		if c := rl.Label.FailureClass; c != nil && !model.ValidClass(string(*c)) {
			t.Fatalf("class %q accepted", *c)
		}
	})
}

// FuzzParseChatResponse: any body is an answer or an error, never a panic.
func FuzzParseChatResponse(f *testing.F) {
	for _, name := range []string{"openai-structured.json", "openai-refusal.json", "ollama-fenced.json"} {
		data, err := os.ReadFile("testdata/judge/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := parseChatResponse(data)
		if err != nil && a != (chatAnswer{}) {
			t.Fatalf("an error with an answer: %v %+v", err, a)
		}
	})
}
