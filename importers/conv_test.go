package importers

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// steps builds steps from "kind:text" specs; a tool_call spec is
// "tool_call:name" and a tool_result "tool_result:".
func stepsOf(specs ...string) []model.Step {
	var out []model.Step
	for i, sp := range specs {
		kind, text, _ := strings.Cut(sp, ":")
		s := model.Step{Kind: model.StepKind(kind)}
		switch s.Kind {
		case model.KindToolCall:
			s.ID, s.Tool, s.Args = "c"+string(rune('0'+i)), text, json.RawMessage(`{"a":1}`)
		case model.KindToolResult:
			s.CallID, s.Result = "c"+string(rune('0'+i-1)), json.RawMessage(`"ok"`)
		default:
			s.Text = text
		}
		out = append(out, s)
	}
	return out
}

func TestSettleTurns(t *testing.T) {
	tests := []struct {
		name     string
		in       []string
		question string
		kinds    string
	}{
		{"one turn", []string{"user:q", "answer:a"}, "q", "user,answer"},
		{"history: the last turn's question",
			[]string{"user:q1", "answer:a1", "user:q2", "tool_call:f", "tool_result:", "answer:a2"},
			"q2", "user,assistant,user,tool_call,tool_result,answer"},
		{"last response only calls tools: no final answer",
			[]string{"user:q1", "answer:a1", "user:q2", "tool_call:f"},
			"q2", "user,assistant,user,tool_call"},
		{"reply to a clarifying question",
			[]string{"user:sales by region?", "clarification:which year?", "user:2024", "answer:north"},
			"sales by region?", "user,clarification,user,answer"},
		{"output tool is the answer",
			[]string{"user:q", "tool_call:final_result", "tool_result:"},
			"q", "user,tool_call,tool_result,answer"},
		{"no user step", []string{"answer:a"}, "", "answer"},
		{"two replies in the last turn: the last is the answer",
			[]string{"user:q", "answer:sorry", "answer:here it is"}, "q", "user,assistant,answer"},
		{"two replies and no user step", []string{"answer:a", "answer:b"}, "", "assistant,answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := stepsOf(tt.in...)
			q := settleTurns(&steps)
			var kinds []string
			for _, s := range steps {
				kinds = append(kinds, string(s.Kind))
			}
			if q != tt.question || strings.Join(kinds, ",") != tt.kinds {
				t.Errorf("question %q kinds %s, want %q %s", q, strings.Join(kinds, ","), tt.question, tt.kinds)
			}
		})
	}
}

// TestIDIndex covers the small (slice) and large (map) forms alike.
func TestIDIndex(t *testing.T) {
	for _, n := range []int{3, idIndexSmall, idIndexSmall + 5} {
		var x idIndex
		for i := range n {
			x.set("id"+string(rune('a'+i)), i)
		}
		x.set("ida", 100) // overwrite keeps one entry
		x.shift(2)
		count := 0
		for id, pos := range x.all {
			count++
			want := int(id[2]-'a') + 2
			if id == "ida" {
				want = 102
			}
			if pos != want {
				t.Errorf("n=%d: %s at %d, want %d", n, id, pos, want)
			}
		}
		if count != n {
			t.Errorf("n=%d: %d entries", n, count)
		}
		if _, ok := x.get("nope"); ok {
			t.Errorf("n=%d: found an id never set", n)
		}
		if p, ok := x.get("idb"); !ok || p != 3 {
			t.Errorf("n=%d: idb at %d %v, want 3", n, p, ok)
		}
	}
}

// A coding agent (goose) re-sends the question in later calls' history
// with its <info-msg> block moved from before the text to after it, or
// dropped: that is the same turn, kept once, not a new user step.
func TestRepeatedQuestionKeptOnce(t *testing.T) {
	text := func(role, s string) genMsg { return genMsg{Role: role, Parts: []genPart{{Kind: "text", Text: s}}} }
	call := genMsg{Role: "assistant", Parts: []genPart{{Kind: "call", ID: "c1", Name: "shell", Args: json.RawMessage(`{"cmd":"ls"}`)}}}
	result := genMsg{Role: "tool", Parts: []genPart{{Kind: "result", ID: "c1", Result: json.RawMessage(`"a.txt"`)}}}
	sys := text("system", "You are goose")
	q := "Which file is there?"
	tests := []struct {
		name    string
		resent  string
		wantUsr int
	}{
		{"block moved after", q + "\n<info-msg>\ntasks: none\n</info-msg>", 1},
		{"block dropped", q, 1},
		{"a new turn", "And now?", 2},
	}
	for _, tt := range tests {
		c := newGenConvo()
		c.turn([]genMsg{sys, text("user", "<info-msg>\nIt is now\n</info-msg>\n"+q)}, []genMsg{call})
		c.turn([]genMsg{sys, text("user", tt.resent), call, result}, []genMsg{text("assistant", "a.txt")})
		var tr model.Trace
		c.finish(&tr)
		users := 0
		for _, s := range tr.Steps {
			if s.Kind == model.KindUser {
				users++
			}
		}
		if users != tt.wantUsr {
			t.Errorf("%s: %d user steps, want %d: %+v", tt.name, users, tt.wantUsr, tr.Steps)
		}
	}
	if got := bareTurn("<a>x</a>\nQ\n<b k>y</b>"); got != "Q\n<b k>y</b>" {
		// An opening tag with attributes is not a block bareTurn strips
		// from the end: it only strips what it can match exactly.
		t.Errorf("bareTurn = %q", got)
	}
	if got := bareTurn("Q\n<info-msg>y</info-msg>"); got != "Q" {
		t.Errorf("bareTurn = %q, want Q", got)
	}
}
