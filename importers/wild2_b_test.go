package importers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wild2B lists the folders of shared/samples/wild2 whose formats this
// part of the importers reads, with the format each file must be
// detected as.
var wild2B = map[string]string{
	"bedrock_converse":       "bedrock_converse",
	"cohere":                 "cohere",
	"ollama":                 "ollama",
	"otel_genai_span":        "otel",
	"vercel_ai_v5":           "vercel_ai",
	"codex_otel":             "otel",
	"adk_session":            "adk_session",
	"adk_evalset":            "adk_evalset",
	"tau2_bench":             "tau2_bench",
	"claude_agent_sdk":       "claude_agent_sdk",
	"bfcl":                   "",
	"openai_agents_runstate": "openai_agents_runstate",
	"autogen":                "autogen",
}

// wild2BRefused gives, for a real file that is refused on purpose, the
// words its refusal must hold.
var wild2BRefused = map[string]string{
	// Codex's turn span carries token counts only.
	"codex_otel/langwatch__codex-B.session_task_turn.json": "holds no conversation",
	// BFCL's questions with the tools to call, and no answer.
	"bfcl/gorilla__BFCL_v4_live_simple.json": "holds no conversation: a benchmark's question list",
}

// wild2BNoQuestion lists real files whose traces have no user message:
// the recording starts after it.
var wild2BNoQuestion = map[string]bool{
	// The request replays an assistant tool call and its result only.
	"ollama/openllmetry__test_ollama_chat_tool_calls_legacy.yaml": true,
}

// TestWild2B imports every real file of wild2B's folders: detected as its
// format, no record in error, at least one trace with steps and a
// question; or refused with the words wild2BRefused names.
func TestWild2B(t *testing.T) {
	dir := filepath.Join(samplesDir, "wild2")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real-world samples not found at %s (they live beside the repository): %v", dir, err)
	}
	for folder, format := range wild2B {
		files, _ := filepath.Glob(filepath.Join(dir, folder, "*"))
		if len(files) == 0 {
			t.Errorf("%s: no files", folder)
		}
		for _, path := range files {
			rel := folder + "/" + filepath.Base(path)
			t.Run(rel, func(t *testing.T) {
				got, recs, err := parseFile(t, path, "")
				if want, ok := wild2BRefused[rel]; ok {
					refusal := ""
					if err != nil {
						refusal = err.Error()
					}
					for _, r := range recs {
						if r.Trace != nil {
							t.Errorf("line %d: imported a trace, want a refusal", r.Line)
						}
						if r.Err != nil {
							refusal += r.Err.Error()
						}
					}
					if !strings.Contains(refusal, want) {
						t.Fatalf("refusal %q, want one saying %q", refusal, want)
					}
					t.Logf("refused: %s", refusal)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if got.Name != format {
					t.Fatalf("detected as %s, want %s", got.Name, format)
				}
				traces := 0
				for _, r := range recs {
					if r.Err != nil {
						t.Errorf("line %d: %v", r.Line, r.Err)
					}
					if r.Trace == nil {
						continue
					}
					if msg := checkTrace(r.Trace); msg != "" {
						t.Errorf("line %d: %s", r.Line, msg)
					}
					if r.Trace.Question == "" && !wild2BNoQuestion[rel] {
						t.Errorf("line %d: trace %s has no question", r.Line, r.Trace.TraceID)
					}
					traces++
					t.Logf("trace %s: %d steps, question %.60q", r.Trace.TraceID, len(r.Trace.Steps), r.Trace.Question)
				}
				if traces == 0 {
					t.Error("no trace")
				}
			})
		}
	}
}
