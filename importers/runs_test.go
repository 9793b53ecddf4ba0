package importers

import (
	"encoding/json"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

func TestRunTime(t *testing.T) {
	tests := []struct {
		in   any
		want int64
	}{
		{json.Number("1751533920.5"), 1751533920_500000000},
		{json.Number("1751533920500"), 1751533920_500000000},                               // milliseconds
		{json.Number("1751533920500000"), 1751533920_500000000},                            // microseconds
		{json.Number("1751533920500000000"), 1751533920_500000000},                         // nanoseconds
		{"2025-07-03T09:12:00.5Z", 1751533920_500000000},                                   // RFC 3339
		{"1751533920.5", 1751533920_500000000},                                             // numeric string
		{[]any{json.Number("1751533920"), json.Number("500000000")}, 1751533920_500000000}, // HrTime
		{"yesterday", 0},
		{nil, 0},
		{json.Number("-5"), 0},
	}
	for _, tt := range tests {
		if got := runTime(tt.in); got != tt.want {
			t.Errorf("runTime(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestMachineTextAndQuestion(t *testing.T) {
	tests := []struct {
		text    string
		machine bool
		strip   string
	}{
		{"<environment_context>\n<cwd>/a</cwd>\n</environment_context>", true, "<environment_context>\n<cwd>/a</cwd>\n</environment_context>"},
		{"<system-reminder>x</system-reminder>\nFix the bug", false, "Fix the bug"},
		{"<info-msg>now</info-msg><a>b</a>", true, "<info-msg>now</info-msg><a>b</a>"},
		{"# AGENTS.md instructions for /repo", true, "# AGENTS.md instructions for /repo"},
		{"What is 2 < 3?", false, "What is 2 < 3?"},
		{"< >", false, "< >"},
		{"<b>bold</b> text", false, "text"},
		{"<unclosed> text", false, "<unclosed> text"},
	}
	for _, tt := range tests {
		if got := machineText(tt.text); got != tt.machine {
			t.Errorf("machineText(%q) = %v, want %v", tt.text, got, tt.machine)
		}
		if got := stripMachineBlocks(tt.text); got != tt.strip {
			t.Errorf("stripMachineBlocks(%q) = %q, want %q", tt.text, got, tt.strip)
		}
	}
}

// The question is the user turn the final answer answers (the last one a
// person wrote), not the first turn of the session.
func TestRunQuestion(t *testing.T) {
	u := func(s string) model.Step { return model.Step{Kind: model.KindUser, Text: s} }
	ans := func(s string) model.Step { return model.Step{Kind: model.KindAnswer, Text: s} }
	env := u("<environment_context>x</environment_context>")
	tests := []struct {
		name  string
		steps []model.Step
		want  string
	}{
		{"no user turn", []model.Step{ans("hi")}, ""},
		{"reminder stripped", []model.Step{env, u("<system-reminder>r</system-reminder> How many files?"), ans("3")}, "How many files?"},
		{"last turn", []model.Step{env, u("First question"), ans("a"), u("Later question"), ans("b")}, "Later question"},
		{"last turn unanswered", []model.Step{u("First question"), ans("a"), u("Later question"), {Kind: model.KindToolCall, Tool: "ls"}}, "Later question"},
		{"machine turn after the person's", []model.Step{u("First"), ans("a"), u("Second"), u("<info-msg>now</info-msg>"), ans("b")}, "Second"},
		{"clarification", []model.Step{u("Book a flight"), {Kind: model.KindClarification, Text: "Where to?"}, u("Paris"), ans("booked")}, "Book a flight"},
		{"only machine turns", []model.Step{env, ans("a")}, env.Text},
	}
	for _, tt := range tests {
		if q := runQuestion(tt.steps); q != tt.want {
			t.Errorf("%s: runQuestion = %q, want %q", tt.name, q, tt.want)
		}
	}
}

func TestDropRepeatedContext(t *testing.T) {
	u := func(s string) model.Step { return model.Step{Kind: model.KindUser, Text: s} }
	steps := []model.Step{u("<info-msg>a</info-msg> Answer this"), {Kind: model.KindToolCall, ID: "c1", Tool: "x"},
		u("<info-msg>b</info-msg>"), {Kind: model.KindToolResult, CallID: "c1"}, u("<other>c</other>"), u("<info-msg>d</info-msg> and a real turn")}
	got := dropRepeatedContext(append([]model.Step(nil), steps...))
	var texts []string
	for _, s := range got {
		texts = append(texts, s.Text)
	}
	want := []string{"<info-msg>a</info-msg> Answer this", "", "", "<other>c</other>", "<info-msg>d</info-msg> and a real turn"}
	if len(texts) != len(want) {
		t.Fatalf("got %q, want %q", texts, want)
	}
	for i := range want {
		if texts[i] != want[i] {
			t.Errorf("step %d = %q, want %q", i, texts[i], want[i])
		}
	}
}

func TestFinalResult(t *testing.T) {
	tests := []struct {
		tool, args, want string
		kind             model.StepKind
	}{
		{"final_result", `{"answer":"1,284"}`, "1,284", model.KindAnswer},
		{"final_result_Weather", `{"temp":4,"sky":"cloudy"}`, `{"temp":4,"sky":"cloudy"}`, model.KindAnswer},
		{"run_sql", `{"sql":"x"}`, "", model.KindToolCall},
	}
	for _, tt := range tests {
		tr := &model.Trace{Steps: []model.Step{{Kind: model.KindToolCall, ID: "c", Tool: tt.tool, Args: json.RawMessage(tt.args)}}}
		finalResult(tr)
		if s := tr.Steps[0]; s.Kind != tt.kind || s.Text != tt.want {
			t.Errorf("%s: got %s %q, want %s %q", tt.tool, s.Kind, s.Text, tt.kind, tt.want)
		}
	}
	// An answered output tool is an ordinary call.
	tr := &model.Trace{Steps: []model.Step{{Kind: model.KindToolCall, ID: "c", Tool: "final_result", Args: json.RawMessage(`{}`)}, {Kind: model.KindToolResult, CallID: "c"}}}
	finalResult(tr)
	if tr.Steps[0].Kind != model.KindToolCall {
		t.Errorf("answered final_result became %s", tr.Steps[0].Kind)
	}
}

func TestLiteLLMRunKeyAndFailure(t *testing.T) {
	obj := func(s string) map[string]any {
		v, err := genDecode([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v.(map[string]any)
	}
	keys := []struct {
		rec, want string
	}{
		{`{"metadata":{"requester_custom_headers":{"x-claude-code-session-id":"cc1"}}}`, "session:cc1"},
		{`{"metadata":{"requester_custom_headers":{"x-codex-turn-metadata":"{\"session_id\":\"cx1\"}"}}}`, "session:cx1"},
		{`{"metadata":{"litellm_session_id":"ls1"}}`, "session:ls1"},
		{`{"messages":[{"role":"user","content":"q"}]}`, ""},
	}
	for _, k := range keys {
		if got := litellmRunKey(obj(k.rec)); got != k.want {
			t.Errorf("litellmRunKey(%s) = %q, want %q", k.rec, got, k.want)
		}
	}
	a := litellmRunKey(obj(`{"messages":[{"role":"system","content":"agent A"},{"role":"user","content":"q1"}]}`))
	b := litellmRunKey(obj(`{"messages":[{"role":"system","content":"agent A"},{"role":"user","content":"q2"}]}`))
	c := litellmRunKey(obj(`{"messages":[{"role":"system","content":"title maker"}]}`))
	if a == "" || a != b || a == c {
		t.Errorf("system-prompt keys: %q %q %q; want the same agent's calls together and a side call apart", a, b, c)
	}
	fails := []struct {
		rec  string
		want bool
	}{
		{`{"status":"failure","response":{"id":"x"}}`, true},
		{`{"status":"success","response":{},"error_str":"boom"}`, true},
		{`{"status":"success","response":{"id":"x"}}`, false},
		{`{"response":{}}`, false},
	}
	for _, f := range fails {
		if got := litellmFailed(obj(f.rec)); got != f.want {
			t.Errorf("litellmFailed(%s) = %v, want %v", f.rec, got, f.want)
		}
	}
}
