package importers

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"
)

// wildDir holds real files from public repositories that nobody here wrote
// (see its SOURCES.md).
var wildDir = filepath.Join(samplesDir, "wild")

// wildRow is what importing one wild file gave.
type wildRow struct {
	file, format string
	traces       int
	questions    int    // traces with a question
	firstQ       string // the first trace's question
	calls        int
	multiAnswer  int // traces with more than one answer step
	tokens       int64
	refusal      string   // why the file or a record of it was refused
	claimedBy    []string // every detector that claims the file
}

func importWild(t *testing.T, path string) wildRow {
	rel, _ := filepath.Rel(wildDir, path)
	row := wildRow{file: filepath.ToSlash(rel)}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head := bytes.TrimSpace(stripBOM(data[:min(len(data), HeadSize)]))
	for _, f := range Formats() {
		if len(head) > 0 && f.Detect(head) {
			row.claimedBy = append(row.claimedBy, f.Name)
		}
	}
	f, recs, err := parseFile(t, path, "")
	row.format = f.Name
	if err != nil {
		row.refusal = err.Error()
	}
	for _, r := range recs {
		if r.Err != nil {
			if row.refusal == "" {
				row.refusal = r.Err.Error()
			}
			continue
		}
		if r.Trace == nil {
			continue
		}
		if row.traces == 0 {
			row.firstQ = r.Trace.Question
		}
		row.traces++
		if r.Trace.Question != "" {
			row.questions++
		}
		answers := 0
		for _, s := range r.Trace.Steps {
			switch s.Kind {
			case "tool_call":
				row.calls++
			case "answer":
				answers++
			}
		}
		if answers > 1 {
			row.multiAnswer++
		}
		row.tokens += r.Trace.Usage.InputTokens + r.Trace.Usage.OutputTokens
	}
	if row.traces == 0 && row.refusal == "" {
		row.refusal = "no trace"
	}
	return row
}

// wildPending lists the folders of formats being added in another branch
// (issue 13, "Add what is missing"): their files may still be refused.
// Delete a folder here once its importer is merged, and give its files
// expectations in wildWant.
var wildPending = map[string]bool{}

// wildExpect is what a wild file must give: its format, how many traces,
// whether every trace has a question, how many tool calls, and
// whether it carries tokens; refused names a file that holds no
// conversation, with a substring of the reason it must be given.
type wildExpect struct {
	format  string
	traces  int
	noQ     bool // a trace may lack the question
	calls   int
	tokens  bool
	refused string
	// question: the first trace's question, where the file pins it down
	// (the turn its final answer answers, not the session's first).
	question string
}

// TestWild imports every file of ../shared/samples/wild with no flags and
// prints file × format × traces × question × calls × tokens, with the
// reason for any refusal (go test ./importers -run Wild -v).
func TestWild(t *testing.T) {
	if _, err := os.Stat(wildDir); err != nil {
		t.Skipf("wild samples not found at %s (they live beside the repository): %v", wildDir, err)
	}
	var rows []wildRow
	err := filepath.WalkDir(wildDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == "oracle" {
				return filepath.SkipDir // Langfuse's own normalisation, a reference
			}
			return err
		}
		if n := d.Name(); n == "SOURCES.md" || n == "SHA256SUMS" {
			return nil
		}
		rows = append(rows, importWild(t, path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].file < rows[j].file })
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "file\tformat\ttraces\tquestion\tcalls\ttokens\trefusal")
	imported := 0
	for _, r := range rows {
		q := fmt.Sprintf("%d/%d", r.questions, r.traces)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%d\t%s\n", r.file, orDash(r.format), r.traces, q, r.calls, r.tokens, oneLine(r.refusal))
		if r.refusal == "" {
			imported++
		}
	}
	tw.Flush()
	t.Logf("%d of %d wild files imported\n%s", imported, len(rows), b.String())
	seen := map[string]bool{}
	for _, r := range rows {
		if len(r.claimedBy) > 1 {
			t.Errorf("%s: claimed by %d formats (%s): detection must be unambiguous", r.file, len(r.claimedBy), strings.Join(r.claimedBy, ", "))
		}
		seen[r.file] = true
		folder, _, _ := strings.Cut(r.file, "/")
		w, ok := wildWant[r.file]
		if !ok {
			if !wildPending[folder] {
				t.Errorf("%s: no expectation in wildWant", r.file)
			}
			continue
		}
		checkWild(t, r, w)
	}
	for f := range wildWant {
		if !seen[f] {
			t.Errorf("%s: in wildWant but not in %s", f, wildDir)
		}
	}
}

func checkWild(t *testing.T, r wildRow, w wildExpect) {
	t.Helper()
	if r.format != w.format {
		t.Errorf("%s: detected as %q, want %q", r.file, r.format, w.format)
	}
	if w.refused != "" {
		if !strings.Contains(r.refusal, w.refused) {
			t.Errorf("%s: refusal %q, want one saying %q", r.file, r.refusal, w.refused)
		}
		return
	}
	if r.refusal != "" {
		t.Errorf("%s: refused: %s", r.file, r.refusal)
	}
	if r.traces != w.traces {
		t.Errorf("%s: %d traces, want %d", r.file, r.traces, w.traces)
	}
	if w.question != "" && r.firstQ != w.question {
		t.Errorf("%s: question %q, want %q", r.file, r.firstQ, w.question)
	}
	if !w.noQ && r.questions != r.traces {
		t.Errorf("%s: %d of %d traces have a question", r.file, r.questions, r.traces)
	}
	// Exactly: a call counted twice (one per progress event of an agent
	// framework) is lost content as much as a call dropped.
	if r.calls != w.calls {
		t.Errorf("%s: %d tool calls, want %d", r.file, r.calls, w.calls)
	}
	if r.multiAnswer > 0 {
		t.Errorf("%s: %d trace(s) with more than one final answer", r.file, r.multiAnswer)
	}
	if w.tokens && r.tokens == 0 {
		t.Errorf("%s: no token usage", r.file)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// supportedList is the list of formats a refusal names: the same in every
// row, so the table leaves it out.
var supportedList = regexp.MustCompile(` \(supported: [^)]*\)`)

func oneLine(s string) string {
	s = strings.ReplaceAll(supportedList.ReplaceAllString(s, ""), "\n", " ")
	if len(s) > 260 {
		s = s[:260] + "…"
	}
	return s
}

// wildWant: the expectations the fixes of issue 13 establish, per file.
var wildWant = map[string]wildExpect{
	// The formats added for issue 13. LiteLLM: failed calls are skipped and
	// counted; goose's title-generator call is a run of its own.
	"litellm/exgentic__appworld-0-claude-code.trajectory.jsonl": {format: "litellm", traces: 1},
	"litellm/exgentic__bfcl-0-codex.trajectory.jsonl":           {format: "litellm", traces: 1, tokens: true},
	"litellm/exgentic__gaia-0-goose.trajectory.jsonl":           {format: "litellm", traces: 2, calls: 18, tokens: true},
	"litellm/exgentic__humaneval-0-gemini-cli.trajectory.jsonl": {format: "litellm", traces: 1, tokens: true},
	// Phoenix span exports: a dict of three named span lists, and arrays.
	"openinference/phoenix__pxi_suggestion_traces.json":                {format: "openinference", traces: 3, calls: 12},
	"openinference/phoenix__pxi_turn_trace.json":                       {format: "openinference", traces: 1, calls: 11, tokens: true},
	"openinference/phoenix__pxi_turn_subagent_trace.json":              {format: "openinference", traces: 1, calls: 19, tokens: true},
	"langsmith/langsmith-sdk__langsmith_py_wrap_openai_reasoning.json": {format: "langsmith", traces: 1, tokens: true},
	// Ten spans, each with a traceId of its own and no parent: a call and
	// its .doGenerate / .doStream are one conversation; the embedding pair
	// holds none and is skipped.
	"vercel_ai/openinference__all-spans.json": {format: "vercel_ai", traces: 4, tokens: true},
	// Two turns: the final answer answers the second.
	"claude_code/cctranscripts__sample_session.jsonl":     {format: "claude_code", traces: 1, calls: 2, question: "Now add a goodbye function"},
	"codex_cli/cctranscripts__sample_codex_session.jsonl": {format: "codex_cli", traces: 1, question: "Write a hello world function"},
	// The recording starts after the prompt was sent: no question.
	"claude_agent_sdk/openinference__test_query_tool_spans_from_messages.yaml": {format: "claude_agent_sdk", traces: 1, noQ: true, calls: 1, tokens: true},
	// The instructions are all there is: the user turn is empty.
	"gemini/pydantic-ai__test_google_instructions_only_with_tool_calls.yaml": {format: "gemini", traces: 1, noQ: true, calls: 7, tokens: true},
	// An MCP session has tool calls and no question.
	"mcp/mcp-recorder__mock_session.json": {format: "mcp_recorder", traces: 1, noQ: true, calls: 4},
	"anthropic/openinference__test_anthropic_instrumentation_multiple_tool_calling_streaming.yaml": {format: "anthropic", traces: 1, calls: 2, tokens: true},
	"anthropic/openinference__test_anthropic_instrumentation_tool_use_in_input[with_blocks].yaml":  {format: "anthropic", traces: 1, calls: 1, tokens: true},
	// A recorded response stream with no request: no question to keep.
	"anthropic/openinference__thinking-streaming.json":                         {format: "anthropic", traces: 1, noQ: true, tokens: true},
	"anthropic/pydantic-ai__test_anthropic_code_execution_tool.yaml":           {format: "anthropic", traces: 2, calls: 2, tokens: true},
	"anthropic/pydantic-ai__test_anthropic_mcp_servers.yaml":                   {format: "anthropic", traces: 1, calls: 2, tokens: true},
	"anthropic/pydantic-ai__test_anthropic_model_thinking_part_stream.yaml":    {format: "anthropic", traces: 1, tokens: true},
	"anthropic/pydantic-ai__test_anthropic_tool_with_thinking.yaml":            {format: "anthropic", traces: 1, calls: 1, tokens: true},
	"inspect/2024-08-29T15-11-17+00-00_popularity_5EAmX6wjMFqea6WY7XHzZp.json": {format: "inspect", refused: "no samples"},
	"inspect/2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json": {format: "inspect", traces: 1, tokens: true},
	"inspect/2025-05-12T20-28-13-04-00_no-samples.json":                        {format: "inspect", refused: "no samples"},
	"inspect/2025-05-12T20-28-13-04-00_popularity.json":                        {format: "inspect", traces: 3, tokens: true},
	"inspect/2025-05-12T20-28-26-04-00_security-guide.json":                    {format: "inspect", traces: 3, tokens: true},
	// An Inspect test skeleton of events with an empty input: no conversation.
	"inspect/basic.json":                     {format: "", refused: "its 3 model event(s) have no input and no output and its 1 tool event(s) no result, so it holds no conversation"},
	"inspect/log_formats.eval":               {format: "inspect", traces: 1, tokens: true},
	"inspect/log_formats.json":               {format: "inspect", traces: 1, tokens: true},
	"inspect/log_images.json":                {format: "inspect", traces: 1, tokens: true},
	"inspect/log_images_tc.json":             {format: "inspect", traces: 1, tokens: true},
	"inspect/log_message_deduplication.eval": {format: "inspect", traces: 1, calls: 5},
	"inspect/log_read_sample.json":           {format: "inspect", traces: 1, tokens: true},
	"inspect/log_streaming.eval":             {format: "inspect", traces: 4, tokens: true},
	"inspect/retry-2-then-success.eval":      {format: "inspect", traces: 1},
	"langfuse/langfuse-seeder__google-vertex-tools-langchain-2025-09-19.json": {format: "langfuse", traces: 1, tokens: true},
	"langfuse/langfuse-seeder__microsoft-agent-2025-10-14.json":               {format: "langfuse", traces: 1, calls: 1, tokens: true},
	"langfuse/langfuse-seeder__openai-assistants-2024-05-29.json":             {format: "langfuse", traces: 1, tokens: true},
	"langfuse/langfuse__agno-2025-06-11.trace.json":                           {format: "langfuse", traces: 1, calls: 1, tokens: true},
	"langfuse/langfuse__autogen-2025-06-06.trace.json":                        {format: "langfuse", traces: 1, tokens: true},
	"langfuse/langfuse__beeai-2025-08-01.trace.json":                          {format: "langfuse", traces: 1, calls: 2, tokens: true},
	"langfuse/langfuse__crewai-2025-07-11.trace.json":                         {format: "langfuse", traces: 1, tokens: true},
	"langfuse/langfuse__csharp-agent-with-gemini-2026-03-09.trace.json":       {format: "langfuse", traces: 1, calls: 2, tokens: true},
	"langfuse/langfuse__koog-2025-08-26.trace.json":                           {format: "langfuse", traces: 1, calls: 2, tokens: true},
	"langfuse/langfuse__langgraph-js-2025-10-30.trace.json":                   {format: "langfuse", traces: 1, calls: 1, tokens: true},
	"langfuse/langfuse__llamaindex-2025-06-05.trace.json":                     {format: "langfuse", traces: 1, tokens: true},
	"langfuse/langfuse__pydantic-ai-with-gemini-2025-12-24.trace.json":        {format: "langfuse", traces: 1, tokens: true},
	"openai_chat/openinference__agent_with_failing_tool.yaml":                 {format: "openai_chat", traces: 1, calls: 1, tokens: true},
	"openai_chat/openinference__test_tool_calls.yaml":                         {format: "openai_chat", traces: 1, calls: 4, tokens: true},
	// Gemini and OpenAI calls in one cassette, each read by its own
	// importer; the first call is Gemini's, so the gemini detector claims
	// it. The OpenAI agent is sent the Gemini run as history: two runs.
	"openai_chat/pydantic-ai__test_multiple_agent_tool_calls.yaml": {format: "gemini", traces: 2, calls: 3, tokens: true},
	// Responses and Chat Completions calls in one cassette, each read by its
	// own importer; the first call is to /responses.
	"openai_chat/pydantic-ai__test_openai_model_thinking_part.yaml":                                 {format: "openai_responses", traces: 2, tokens: true},
	"openai_chat/pydantic-ai__test_openai_tool_output.yaml":                                         {format: "openai_chat", traces: 1, calls: 2, tokens: true},
	"openai_responses/openinference__agent_run_reasoning.yaml":                                      {format: "openai_responses", traces: 1, tokens: true},
	"openai_responses/openinference__test_agent_with_tool_calls.yaml":                               {format: "openai_responses", traces: 1, calls: 1, tokens: true},
	"openai_responses/openinference__test_multiple_tools.yaml":                                      {format: "openai_responses", traces: 1, calls: 2, tokens: true},
	"openai_responses/openinference__test_responses_input_typed_reasoning_item.yaml":                {format: "openai_responses", traces: 2, tokens: true},
	"openai_responses/pydantic-ai__test_openai_responses_model_mcp_server_tool_stream.yaml":         {format: "openai_responses", traces: 1, calls: 1, tokens: true},
	"openai_responses/pydantic-ai__test_openai_responses_model_simple_response_with_tool_call.yaml": {format: "openai_responses", traces: 1, calls: 1, tokens: true},
	"openai_responses/pydantic-ai__test_openai_responses_thinking_with_tool_calls.yaml":             {format: "openai_responses", traces: 1, calls: 1, tokens: true},
}
