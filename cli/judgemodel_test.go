package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
)

// ruleModel is a Chat Completions endpoint started in the test that
// answers as OpenAI does with structured output (the body's shape is
// app/testdata/judge/openai-structured.json), its verdict decided by a
// rule: a trace with a guess marker is a semantic failure, any other is
// correct and grounded.
func ruleModel(t *testing.T, calls *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer sk-e2e" {
			http.Error(w, `{"error":{"message":"no key"}}`, http.StatusUnauthorized)
			return
		}
		data, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct{ Role, Content string }
		}
		if err := json.Unmarshal(data, &req); err != nil || len(req.Messages) != 2 || req.Messages[1].Role != "user" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		verdict := `{"correct":true,"grounded":true,"failure_class":"none","rationale":"uses the governed fields"}`
		if strings.Contains(req.Messages[1].Content, "⟦guess: ") {
			verdict = `{"correct":true,"grounded":false,"failure_class":"semantic","rationale":"a guess before the call"}`
		}
		content, _ := json.Marshal(verdict)
		fmt.Fprintf(w, `{"id":"chatcmpl-e2e","object":"chat.completion","created":1741569952,"model":"gpt-4o-mini-2024-07-18",`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":%s,"refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":1800,"completion_tokens":40,"total_tokens":1840},"system_fingerprint":"fp_06737a9306"}`, content)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The built-in judge end to end: judge the bundled traces through an
// endpoint, rerun from the cache, calibrate it against a person (agree
// --judge), export the suite with its labels, and gate check on the
// judge's kappa, passing and failing.
func TestBuiltinJudgeEndToEnd(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	traces, _ := filepath.Glob("testdata/traces/*.jsonl")
	steps := [][]string{
		append([]string{"import", "--db", db, "--policy", "testdata/policy.json"}, traces...),
		{"import", "--db", db, "testdata/cases.jsonl"},
		{"import", "--db", db, "testdata/raters/ana.cases.jsonl"},
	}
	for _, args := range steps {
		if out, errs, code := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	var calls atomic.Int64
	srv := ruleModel(t, &calls)
	t.Setenv("TRACELAB_E2E_KEY", "sk-e2e")
	judge := []string{"judge", "--db", db, "--policy", "testdata/policy.json", "--endpoint", srv.URL + "/v1", "--model", "gpt-4o-mini",
		"--api-key-env", "TRACELAB_E2E_KEY", "--max-usd", "1"}
	out, errs, code := run(t, judge...)
	if code != 0 || !strings.Contains(out, "judge:gpt-4o-mini (gpt-4o-mini, prompt sha256 ") || strings.Contains(out+errs, "sk-e2e") {
		t.Fatalf("judge: exit %d\n%s%s", code, out, errs)
	}
	first := calls.Load()
	out, errs, code = run(t, judge...)
	if code != 0 || calls.Load() != first || !strings.Contains(out, fmt.Sprintf("%d from the cache, $0.0000", first)) {
		t.Fatalf("rerun: exit %d, %d calls after %d\n%s%s", code, calls.Load(), first, out, errs)
	}
	if _, errs, code := run(t, append(judge[:len(judge)-2], "--judge", "sh x.sh")...); code != 2 || !strings.Contains(errs, "exclusive") {
		t.Errorf("--judge with --endpoint: exit %d %s", code, errs)
	}

	out, errs, code = run(t, "agree", "--db", db, "--judge", "gpt-4o-mini")
	if code != 0 || !strings.Contains(out, "judge:gpt-4o-mini against people: ") || !strings.Contains(out, "Per class (this class or not)") ||
		!strings.Contains(out, "Confusion: judge (rows) by people (columns)") {
		t.Fatalf("agree --judge: exit %d\n%s%s", code, out, errs)
	}
	t.Logf("agree --judge:\n%s", out)
	if !strings.Contains(out, "Disagreements") || !strings.Contains(out, "acme-open-tickets-031") && !strings.Contains(out, "trace_0c9d4e") {
		t.Errorf("agree --judge lists no disagreement (ana's entity case is judged none by the rule):\n%s", out)
	}
	var cal app.JudgeCalibration
	out, _, _ = run(t, "agree", "--db", db, "--judge", "judge:gpt-4o-mini", "--format", "json")
	if err := json.Unmarshal([]byte(out), &cal); err != nil || cal.Cases != 10 || len(cal.Classes) != 6 || len(cal.Disagreements) == 0 {
		t.Errorf("agree --judge --format json: %v %+v", err, cal)
	}
	if out, _, code := run(t, "agree", "--db", db, "--judge", "gpt-4o-mini", "--format", "markdown"); code != 0 ||
		!strings.Contains(out, "## judge:gpt-4o-mini against people") || !strings.Contains(out, "| semantic |") {
		t.Errorf("agree --judge --format markdown: exit %d\n%s", code, out)
	}
	if _, errs, code := run(t, "agree", "--db", db, "--judge", "nobody"); code != 2 || !strings.Contains(errs, "no case has a label of judge:nobody") {
		t.Errorf("agree --judge nobody: exit %d %s", code, errs)
	}
	if out, errs, code := run(t, "sample", "--db", db, "--judge-disagreements"); code != 0 || !strings.Contains(out, "queued ") {
		t.Errorf("sample --judge-disagreements: exit %d\n%s%s", code, out, errs)
	}

	suiteDir := filepath.Join(dir, "suite")
	if _, errs, code := run(t, "export", "--db", db, "--out", suiteDir, "--labels", "all"); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	manifest, err := os.ReadFile(filepath.Join(suiteDir, "suite.json"))
	if err != nil || !strings.Contains(string(manifest), `"rater": "judge:gpt-4o-mini"`) || !strings.Contains(string(manifest), `"gpt-4o-mini"`) {
		t.Fatalf("suite.json names no judge: %v\n%s", err, manifest)
	}
	good := writeIn(t, dir, "good.jsonl", newRunLines(t, "emea-active-q2-017", "revenue-q3-fy26-011", "na-avg-deal-q2-013"))
	check := []string{"check", "--suite", filepath.Join(suiteDir, "cases.jsonl"), "--policy", "testdata/policy.json", "--allow-missing"}
	out, errs, code = run(t, append(check, "--min-judge-kappa", "-1", good)...)
	if code != 0 || !strings.Contains(out, "JUDGES (kappa against the suite's people, at least -1)") {
		t.Fatalf("check --min-judge-kappa -1: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = run(t, append(check, "--min-judge-kappa", "0.99", good)...)
	if code != 1 || !strings.Contains(out, "FAIL: judges: judge:gpt-4o-mini below kappa 0.99 on all classes, entity, structural, temporal, policy, none") {
		t.Fatalf("check --min-judge-kappa 0.99: exit %d\n%s%s", code, out, errs)
	}
	t.Logf("check --min-judge-kappa 0.99:\n%s", out)
	if _, errs, code := run(t, append(check, "--min-judge-kappa", "2", good)...); code != 2 {
		t.Errorf("--min-judge-kappa 2: exit %d %s", code, errs)
	}
}
