package importers

import (
	"os"
	"path/filepath"
	"testing"

	"tracelab/model"
)

// wildNewDir holds real files nobody here wrote (SOURCES.md names the
// repository, commit and path of each).
const wildNewDir = "../../shared/samples/wild"

// TestWildNewFormats imports every real file of the formats added for
// issue 13 with no flags and states what each must give: the format
// detected, how many traces, whether the question is there, and at least
// how many tool calls. A folder that is absent skips visibly.
func TestWildNewFormats(t *testing.T) {
	type want struct {
		format   string
		traces   int
		question bool // every trace has a question
		calls    int  // tool calls over all traces, at least
		tokens   bool // token usage recorded
	}
	files := map[string]want{
		"litellm/exgentic__appworld-0-claude-code.trajectory.jsonl":                {"litellm", 1, true, 0, false},
		"litellm/exgentic__bfcl-0-codex.trajectory.jsonl":                          {"litellm", 1, true, 0, true},
		"litellm/exgentic__gaia-0-goose.trajectory.jsonl":                          {"litellm", 2, true, 15, true},
		"litellm/exgentic__humaneval-0-gemini-cli.trajectory.jsonl":                {"litellm", 1, true, 0, true},
		"openinference/phoenix__pxi_suggestion_traces.json":                        {"openinference", 3, true, 0, false},
		"openinference/phoenix__pxi_turn_trace.json":                               {"openinference", 1, true, 1, false},
		"openinference/phoenix__pxi_turn_subagent_trace.json":                      {"openinference", 1, true, 1, false},
		"langsmith/langsmith-sdk__langsmith_py_wrap_openai_reasoning.json":         {"langsmith", 1, true, 0, true},
		"vercel_ai/openinference__all-spans.json":                                  {"vercel_ai", 8, true, 0, true},
		"claude_code/cctranscripts__sample_session.jsonl":                          {"claude_code", 1, true, 2, false},
		"codex_cli/cctranscripts__sample_codex_session.jsonl":                      {"codex_cli", 1, true, 0, false},
		"claude_agent_sdk/openinference__test_query_tool_spans_from_messages.yaml": {"claude_agent_sdk", 1, false, 1, true},
		"gemini/pydantic-ai__test_google_instructions_only_with_tool_calls.yaml":   {"gemini", 1, false, 2, true},
		"mcp/mcp-recorder__mock_session.json":                                      {"mcp_recorder", 1, false, 1, false},
	}
	if _, err := os.Stat(wildNewDir); err != nil {
		t.Skipf("real-world samples not found at %s (they live beside the repository): %v", wildNewDir, err)
	}
	t.Logf("%-72s %-16s %6s %8s %5s %s", "file", "format", "traces", "question", "calls", "tokens in/out")
	for rel, w := range files {
		path := filepath.Join(wildNewDir, rel)
		if _, err := os.Stat(path); err != nil {
			t.Logf("SKIP %s: %v", rel, err)
			continue
		}
		got, recs, err := parseFile(t, path, "")
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		traces, calls, withQ := 0, 0, 0
		var in, out int64
		for _, r := range recs {
			if r.Err != nil {
				t.Errorf("%s: %v", rel, r.Err)
				continue
			}
			if msg := checkTrace(r.Trace); msg != "" {
				t.Errorf("%s line %d: %s", rel, r.Line, msg)
			}
			traces++
			if r.Trace.Question != "" {
				withQ++
			}
			for _, s := range r.Trace.Steps {
				if s.Kind == model.KindToolCall {
					calls++
				}
			}
			in += r.Trace.Usage.InputTokens
			out += r.Trace.Usage.OutputTokens
		}
		t.Logf("%-72s %-16s %6d %5d/%-2d %5d %d/%d", rel, got.Name, traces, withQ, traces, calls, in, out)
		if got.Name != w.format {
			t.Errorf("%s: detected as %s, want %s", rel, got.Name, w.format)
		}
		if traces != w.traces {
			t.Errorf("%s: %d traces, want %d", rel, traces, w.traces)
		}
		if w.question && withQ != traces {
			t.Errorf("%s: %d of %d traces have a question", rel, withQ, traces)
		}
		if calls < w.calls {
			t.Errorf("%s: %d tool calls, want at least %d", rel, calls, w.calls)
		}
		if w.tokens && in+out == 0 {
			t.Errorf("%s: no token usage", rel)
		}
	}
}
