package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// A client of the OpenAI Chat Completions protocol, as OpenAI, Azure
// OpenAI, vLLM, Ollama, llama.cpp's server and LiteLLM speak it: one
// non-streaming request per trace, with JSON-schema structured output
// where the endpoint takes it.

// maxChatBody caps what is read of one answer: a verdict is a few hundred
// bytes, an error page a few thousand.
const maxChatBody = 4 << 20

// verdictSchema is the answer's JSON schema (strict structured output:
// every key required, nothing else allowed).
var verdictSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"correct":{"type":["boolean","null"]},"grounded":{"type":["boolean","null"]},` +
	`"failure_class":{"type":["string","null"],"enum":["entity","semantic","structural","temporal","policy","none",null]},` +
	`"rationale":{"type":"string"}},` +
	`"required":["correct","grounded","failure_class","rationale"],"additionalProperties":false}`)

type chatClient struct {
	url, model, key string
	azure           bool // the key goes in an api-key header too
	http            *http.Client
	timeout         time.Duration // per attempt
	retries         int           // after the first attempt, on 429, 5xx and timeouts
	backoff         time.Duration // the first wait; doubled per retry, capped at maxBackoff
	maxBackoff      time.Duration
	maxTokens       int
	// plain is set once the endpoint refused response_format: every later
	// request of the run asks in words and parses strictly.
	plain atomic.Bool
}

// chatURL is the endpoint's chat completions URL: a base such as
// https://api.openai.com/v1 gets /chat/completions.
func chatURL(endpoint string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--endpoint %q: expected an http(s) URL such as https://api.openai.com/v1", endpoint)
	}
	if !strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/chat/completions") {
		u.Path = strings.TrimRight(u.Path, "/") + "/chat/completions"
	}
	return u.String(), nil
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []chatMessage   `json:"messages"`
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
	MaxTokens      int             `json:"max_completion_tokens,omitempty"`
}

// chatAnswer is what tracelab keeps of a response (and caches).
type chatAnswer struct {
	Content      string `json:"content"`
	Refusal      string `json:"refusal,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
	HasUsage     bool   `json:"has_usage"`
}

// chatResponse is the part of a Chat Completions response tracelab reads.
type chatResponse struct {
	Choices []struct {
		Message struct {
			Content json.RawMessage `json:"content"`
			Refusal *string         `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// chatError is an endpoint that gave no answer: a status after the
// retries, a timeout, a body that is not a response.
type chatError struct{ msg string }

func (e *chatError) Error() string { return e.msg }

// complete asks for one verdict, retrying on 429, 5xx and timeouts with
// backoff (Retry-After honoured), and falling back once to a plain
// request when the endpoint rejects response_format.
func (c *chatClient) complete(ctx context.Context, system, user string) (chatAnswer, error) {
	for attempt := 0; ; attempt++ {
		plain := c.plain.Load()
		body, _ := json.Marshal(c.request(system, user, plain))
		a, status, wait, err := c.once(ctx, body)
		switch {
		case err == nil:
			return a, nil
		case status == http.StatusBadRequest && !plain && mentionsFormat(err.Error()):
			c.plain.Store(true) // no structured output here: ask in words
			attempt--
			continue
		case wait < 0 || attempt >= c.retries:
			if attempt > 0 {
				err = &chatError{fmt.Sprintf("%v (after %d tries)", err, attempt+1)}
			}
			return chatAnswer{}, err
		}
		if wait == 0 {
			wait = min(c.backoff<<attempt, c.maxBackoff)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return chatAnswer{}, ctx.Err()
		}
	}
}

func (c *chatClient) request(system, user string, plain bool) chatRequest {
	r := chatRequest{Model: c.model, MaxTokens: c.maxTokens,
		Messages: []chatMessage{{Role: "system", Content: system}, {Role: "user", Content: user}}}
	if !plain {
		r.ResponseFormat, _ = json.Marshal(map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": "tracelab_verdict", "strict": true, "schema": verdictSchema}})
	}
	return r
}

func mentionsFormat(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "response_format") || strings.Contains(s, "json_schema")
}

// once makes one attempt. wait says what to do on an error: -1 never
// retry, 0 retry after the backoff, >0 retry after that long (Retry-After).
func (c *chatClient) once(ctx context.Context, body []byte) (a chatAnswer, status int, wait time.Duration, err error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return a, 0, -1, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
		if c.azure {
			req.Header.Set("api-key", c.key)
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return a, 0, -1, ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return a, 0, 0, &chatError{fmt.Sprintf("no answer within %s", c.timeout)}
		}
		return a, 0, 0, &chatError{"the request failed: " + redact(err.Error(), c.key)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxChatBody+1))
	if err != nil {
		if errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return a, resp.StatusCode, 0, &chatError{fmt.Sprintf("no answer within %s", c.timeout)}
		}
		return a, resp.StatusCode, 0, &chatError{"reading the answer: " + err.Error()}
	}
	if resp.StatusCode != http.StatusOK {
		msg := fmt.Sprintf("the endpoint answered %s: %s", resp.Status, model.CleanLine(redact(string(cut(data, 300)), c.key)))
		switch {
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
			return a, resp.StatusCode, retryAfter(resp.Header.Get("Retry-After"), c.maxBackoff), &chatError{msg}
		}
		return a, resp.StatusCode, -1, &chatError{msg}
	}
	if len(data) > maxChatBody {
		return a, resp.StatusCode, -1, &chatError{fmt.Sprintf("the answer is over %d bytes", maxChatBody)}
	}
	a, err = parseChatResponse(data)
	if err != nil {
		return a, resp.StatusCode, -1, &chatError{err.Error()}
	}
	return a, resp.StatusCode, 0, nil
}

// parseChatResponse reads the first choice of a Chat Completions response.
func parseChatResponse(data []byte) (chatAnswer, error) {
	var r chatResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return chatAnswer{}, fmt.Errorf("the endpoint's answer is not a Chat Completions response: %v; it wrote %.200q", err, data)
	}
	if len(r.Choices) == 0 {
		return chatAnswer{}, fmt.Errorf("the endpoint's answer has no choices; it wrote %.200q", data)
	}
	ch := r.Choices[0]
	a := chatAnswer{FinishReason: ch.FinishReason}
	if ch.Message.Refusal != nil {
		a.Refusal = *ch.Message.Refusal
	}
	if c := ch.Message.Content; len(c) > 0 && string(c) != "null" {
		if err := json.Unmarshal(c, &a.Content); err != nil {
			return chatAnswer{}, fmt.Errorf("the message content is not a string; it wrote %.200q", c)
		}
	}
	if r.Usage != nil {
		a.InputTokens, a.OutputTokens, a.HasUsage = r.Usage.PromptTokens, r.Usage.CompletionTokens, true
	}
	return a, nil
}

// retryAfter reads a Retry-After header (seconds or an HTTP date), capped;
// 0 when absent or unreadable (the backoff applies).
func retryAfter(h string, capd time.Duration) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	var d time.Duration
	if s, err := strconv.ParseFloat(h, 64); err == nil && s >= 0 {
		d = time.Duration(s * float64(time.Second))
	} else if t, err := http.ParseTime(h); err == nil {
		d = time.Until(t)
	} else {
		return 0
	}
	if d <= 0 {
		return time.Millisecond // "now": retry at once, not after the backoff
	}
	return min(d, capd)
}

func cut(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// redact removes the key from a message, should an endpoint echo it.
func redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[key]")
}
