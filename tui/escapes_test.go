package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// evil is what a hostile trace puts in a text field: an OSC 8 hyperlink,
// an OSC title, a DCS string, raw C1 controls (CSI and OSC as U+009B and
// U+009D), a clear screen, a cursor move and bidi overrides.
func evil(field string) string {
	return field + "\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\" + "\x1b]0;owned\x07" +
		"\x1bPq#0;2;0;0;0\x1b\\" + "\u009b2J\u009d0;c1\u009c" + "\x1b[2J\x1b[10;10H" + "\u202e" + field + "\u202c\u2066x\u2069"
}

// hostileTraceFile is one trace whose every text field (ids, server,
// role, user, question, model, each step's text, tool, call id,
// credential, arguments and result, each tool's name and description)
// carries evil(), scored by the real scorer.
func hostileTraceFile(t *testing.T) string {
	t.Helper()
	call := evil("call")
	tr := map[string]any{
		"trace_id": "evil-" + evil("id"), "server": evil("server"), "run_id": evil("run"),
		"user_role": evil("role"), "as_user": evil("user"), "question": evil("question") + " probably",
		"started_at": "2026-07-03T09:12:00Z", "outcome": "failure", "model": evil("model"),
		"tools": []map[string]any{{"name": evil("tool"), "description": evil("description"),
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{evil("prop"): map[string]any{"type": "string", "description": evil("propdesc")}}}}},
		"steps": []map[string]any{
			{"kind": "user", "text": evil("user-text")},
			{"kind": "reasoning", "text": evil("reasoning") + " sounds like " + evil("more")},
			{"kind": "tool_call", "id": call, "tool": evil("tool"), "credential": evil("cred"),
				"args": map[string]any{"sql": "SELECT " + evil("sql") + " FROM t", evil("key"): evil("value")}},
			{"kind": "tool_result", "call_id": call, "as_of": "2026-07-03T08:00:00Z",
				"result": map[string]any{"columns": []string{evil("col")}, "rows": [][]string{{evil("cell")}}, "note": evil("note")}},
			{"kind": "tool_call", "id": "c2", "tool": evil("tool"), "args": map[string]any{"q": evil("plain-args")}},
			{"kind": "tool_result", "call_id": "c2", "is_error": true, "result": evil("error")},
			{"kind": "assistant", "text": evil("assistant")},
			{"kind": "clarification", "text": evil("clarify")},
			{"kind": "answer", "text": evil("answer")},
		},
	}
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "evil.jsonl")
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// unsafeOnScreen says what of a rendered screen would reach the terminal
// besides the workbench's own styles (SGR): any other escape sequence,
// BEL, a C0 or C1 control, or a raw bidi control.
func unsafeOnScreen(v string) string {
	rest := sgr.ReplaceAllString(v, "")
	for i, r := range rest {
		if r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || model.IsBidiControl(r) {
			return fmt.Sprintf("%U at %d: %q", r, i, rest[max(0, i-30):min(len(rest), i+30)])
		}
	}
	return ""
}

// TestEveryScreenStripsTraceEscapes fills every text field of a trace
// with escapes and walks every screen (queue, trace with each step
// selected, detail scrolled, report, drift, help, filter and sort
// dialogs) at three sizes: nothing but the workbench's styles reaches
// the terminal. The step list printed tool names unsanitized.
func TestEveryScreenStripsTraceEscapes(t *testing.T) {
	ctx := context.Background()
	eng, err := app.Open(ctx, filepath.Join(t.TempDir(), "t.db"), app.Files{})
	if err != nil {
		t.Fatal(err)
	}
	eng.SetClock(func() time.Time { return time.Date(2026, 8, 20, 9, 0, 0, 0, time.UTC) })
	t.Cleanup(func() { eng.Close() })
	if _, err := eng.Imports.File(ctx, hostileTraceFile(t), app.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Scores.Rescore(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{60, 20}, {100, 30}, {200, 60}} {
		d := newDriver(t, eng, size[0], size[1])
		seen := 0
		check := func(where string) {
			t.Helper()
			seen++
			if bad := unsafeOnScreen(d.view()); bad != "" {
				t.Errorf("%dx%d %s: %s", size[0], size[1], where, bad)
			}
		}
		check("queue")
		d.key("?")
		check("help")
		d.key("esc")
		d.key("f")
		check("filter dialog")
		d.key("esc")
		d.key("s")
		check("sort dialog")
		d.key("esc")
		d.key("enter")
		check("trace")
		for i := 0; i < 10; i++ {
			d.key("j")
			check(fmt.Sprintf("trace, step %d", i+1))
			d.key("J")
			check(fmt.Sprintf("trace, step %d scrolled", i+1))
		}
		d.key("]")
		check("trace, next marker")
		d.key("e")
		check("gold editor")
		d.key("esc")
		d.key("R")
		check("report")
		d.key("j")
		check("report, next row")
		d.key("D")
		check("drift")
		d.key("Q")
		check("queue again")
		if !strings.Contains(d.plain(), "evil-") {
			t.Errorf("%dx%d: the trace is not listed:\n%s", size[0], size[1], d.plain())
		}
	}
}

// TestStepSummaryCleansToolNames: the step list is clean at its source
// too, not only through safeScreen.
func TestStepSummaryCleansToolNames(t *testing.T) {
	for _, s := range []model.Step{
		{Kind: model.KindToolCall, Tool: evil("tool"), Args: json.RawMessage(`{"sql":"SELECT 1"}`)},
		{Kind: model.KindToolCall, Tool: evil("tool"), Args: json.RawMessage(`{"q":1}`)},
		{Kind: model.KindToolResult, IsError: true, Result: json.RawMessage(`{}`)},
	} {
		if bad := unsafeOnScreen(stepSummary(s, evil("tool"))); bad != "" {
			t.Errorf("stepSummary(%s): %s", s.Kind, bad)
		}
	}
}

// TestSafeScreenKeepsOwnStyles: the screen's own SGR styles pass, every
// other sequence and control goes, and the visible text stays.
func TestSafeScreenKeepsOwnStyles(t *testing.T) {
	in := "\x1b[1;38;2;10;20;30mtitle\x1b[m " + evil("x") + " \x1b[4mend\x1b[0m"
	out := safeScreen(in)
	if bad := unsafeOnScreen(out); bad != "" {
		t.Errorf("safeScreen left %s", bad)
	}
	for _, keep := range []string{"\x1b[1;38;2;10;20;30mtitle\x1b[m", "\x1b[4mend\x1b[0m", "xlink", "x\u202c"[:1]} {
		if !strings.Contains(out, keep) {
			t.Errorf("safeScreen dropped %q: %q", keep, out)
		}
	}
}
