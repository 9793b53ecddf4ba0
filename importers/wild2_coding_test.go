package importers

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// wild2Dir holds the second set of real files from public repositories
// (see its SOURCES.md).
var wild2Dir = filepath.Join(samplesDir, "wild2")

// TestWild2CodingAgents imports the real coding-agent files of wild2 with
// no flags: each must be detected as its format and give the traces, calls
// and question read from the file by hand.
func TestWild2CodingAgents(t *testing.T) {
	if _, err := os.Stat(wild2Dir); err != nil {
		t.Skipf("real-world samples not found at %s (they live beside the repository): %v", wild2Dir, err)
	}
	tests := []struct {
		file, format string
		traces       int
		calls        int    // tool calls over all traces (counted from the file by a script; 0: none expected)
		question     string // the first trace's question starts with it
		model        string // the first trace's model
		skipped      int    // parts read past on purpose
	}{
		{"openhands/openhands__basic.json", "openhands", 1, 1, "Please create a simple 2048 game", "claude-3-5-sonnet-20241022", 0},
		{"openhands/openhands__basic_gui_mode.json", "openhands", 1, 4, "I want to create a VueJS app", "claude-3-5-sonnet-20241022", 0},
		{"openhands/openhands__wrong_initial_state.json", "openhands", 1, 3, "Please rename game_2048.py to 2048.py", "claude-3-5-sonnet-20241022", 0},
		{"openhands/openhands__multi_swe_bench_output.jsonl", "openhands", 3, 101, "I've uploaded a C code repository", "openai/openrouter-llama-4-maverick", 0},
		{"mini_swe_agent/mini-swe-agent__github_issue.traj.json", "swe_agent", 1, 10, "Please solve this issue: GitHub Issue: SyntaxError", "", 0},
		{"gemini_cli_session/vct__gemini.jsonl", "gemini_cli", 1, 12, "幫我做一個小修改", "gemini-3.1-pro-preview", 0},
		{"gemini_cli_session/vct__test_conversation_gemini.json", "gemini_cli", 1, 7, "請幫我依照專案實際狀況更新 README.md", "gemini-3.1-pro-preview-customtools", 0},
		{"gemini_cli_responses/gemini-cli__tool-success.json", "gemini_cli", 1, 4, "", "", 0},
		{"copilot_cli/vct__copilot.jsonl", "copilot_cli", 1, 11, "請不要修改任何代碼", "claude-sonnet-4.6", 0},
		{"copilot_cli/vct__test_conversation_copilot.json", "copilot_cli", 1, 15, "## 任務：將專案描述中的", "", 0},
		{"kiro_cli/mlflow__session_multi_turn_with_tools.jsonl", "kiro_cli", 1, 2, "Now write a test for it", "", 0},
		{"aider/aider__chat-history.md", "aider", 589, 0, "# Fix any errors below, if possible.", "", 545},
		// Sessions read before issue 29: a resumed session is one trace, and
		// the question is the person's request, not the wrapper around it.
		{"claude_code/vct__claude_code.jsonl", "claude_code", 1, 31, "不對 幫我查一下pydantic文檔的Field用法", "claude-sonnet-4-20250514", 0},
		{"codex_cli/vct__codex.jsonl", "codex_cli", 1, 19, "幫我檢查一下 go.mod 裡面", "aide-gpt-5", 0},
		{"crewai/crewai__test_azure_agent_with_native_tool_calling.yaml", "openai_chat", 1, 1, "Calculate what is 15 * 8", "gpt-5-nano-2025-08-07", 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, recs, err := parseFile(t, filepath.Join(wild2Dir, tt.file), "")
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if f.Name != tt.format {
				t.Fatalf("detected as %s, want %s", f.Name, tt.format)
			}
			var traces, calls, skipped int
			first := ""
			model := ""
			for _, r := range recs {
				switch {
				case r.Err != nil:
					t.Errorf("line %d: %v", r.Line, r.Err)
				case r.Skip != nil:
					skipped++
				case r.Trace != nil:
					if msg := checkTrace(r.Trace); msg != "" {
						t.Errorf("line %d: %s", r.Line, msg)
					}
					if traces == 0 {
						first, model = r.Trace.Question, r.Trace.Model
					}
					traces++
					for _, s := range r.Trace.Steps {
						if s.Kind == "tool_call" {
							calls++
						}
					}
				}
			}
			if traces != tt.traces {
				t.Errorf("%d traces, want %d", traces, tt.traces)
			}
			if calls != tt.calls {
				t.Errorf("%d tool calls, want %d", calls, tt.calls)
			}
			if !strings.HasPrefix(first, tt.question) || (tt.question == "" && first != "") {
				t.Errorf("question %q, want it to start with %q", first, tt.question)
			}
			if model != tt.model {
				t.Errorf("model %q, want %q", model, tt.model)
			}
			if skipped != tt.skipped {
				t.Errorf("%d parts skipped, want %d", skipped, tt.skipped)
			}
			t.Logf("%s: %s, %d traces, %d calls, %d skipped; question %.60q", tt.file, f.Name, traces, calls, skipped, first)
		})
	}
}

// TestSamplesNotClaimedCoding: the coding-agent detectors claim no real
// file outside their own folders, so detection stays unambiguous.
func TestSamplesNotClaimedCoding(t *testing.T) {
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skipf("real-world samples not found at %s (they live beside the repository): %v", samplesDir, err)
	}
	own := map[string]string{ // format -> the wild2 folders it may claim
		"openhands": "openhands", "swe_agent": "mini_swe_agent", "gemini_cli": "gemini_cli_session gemini_cli_responses",
		"copilot_cli": "copilot_cli", "kiro_cli": "kiro_cli", "aider": "aider", "cline": "cline",
	}
	checked := 0
	err := filepath.WalkDir(samplesDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(samplesDir, path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		head := bytes.TrimSpace(stripBOM(data[:min(len(data), HeadSize)]))
		checked++
		for name, dirs := range own {
			fm, _ := Lookup(name)
			mine := len(parts) == 3 && parts[0] == "wild2" && slices.Contains(strings.Fields(dirs), parts[1])
			if len(head) > 0 && fm.Detect(head) && !mine {
				t.Errorf("%s claims %s", name, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files checked", checked)
}

// TestBareMessagesForced: a bare array of messages forced to a chat
// format is read as one conversation, not refused element by element.
func TestBareMessagesForced(t *testing.T) {
	tests := []struct{ path, format, question string }{
		{filepath.Join(formatsDir, "openai_chat", "bare_messages.json"), "openai_chat", "How many metres is 3 feet?"},
		{filepath.Join(formatsDir, "anthropic", "cline_api_history.json"), "anthropic", "Which port does the dev server use?"},
		{filepath.Join(formatsDir, "swe_agent", "mini.traj.json"), "openai_chat", ""},
	}
	for _, tt := range tests {
		_, recs, err := parseFile(t, tt.path, tt.format)
		if err != nil {
			t.Fatalf("%s as %s: %v", tt.path, tt.format, err)
		}
		if len(recs) != 1 || recs[0].Trace == nil {
			t.Fatalf("%s as %s: %d records, want one trace: %+v", tt.path, tt.format, len(recs), recs)
		}
		tr := recs[0].Trace
		if msg := checkTrace(tr); msg != "" {
			t.Errorf("%s: %s", tt.path, msg)
		}
		if tt.format == "openai_chat" && strings.HasSuffix(tt.path, "mini.traj.json") {
			// Forced to plain chat, mini-SWE-agent's observations are user
			// turns; its own format reads them as tool results.
			if tr.Source.Format != "openai_chat" || len(tr.Steps) != 7 {
				t.Errorf("%s forced: format %s, %d steps (%s)", tt.path, tr.Source.Format, len(tr.Steps), kinds(tr))
			}
			continue
		}
		if tr.Question != tt.question {
			t.Errorf("%s as %s: question %q, want %q", tt.path, tt.format, tr.Question, tt.question)
		}
	}
}
