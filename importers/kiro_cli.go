package importers

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// Kiro CLI keeps a session as JSONL, one entry per line: {kind: Prompt |
// AssistantMessage | ToolResults, message_id, content: [{kind: text, data:
// "…"} | {kind: toolUse, data: {toolUseId, name, input}} | {kind:
// toolResult, data: {toolUseId, content: [{kind: text, data}], status}}],
// meta: {timestamp}}; some versions wrap the entry as {version, kind,
// data: {message_id, content, meta}}. An AssistantMessage's toolUse is
// answered by the next ToolResults entry. One trace per file.
//
// Reference: MLflow's Kiro CLI tracing (tests/kiro_cli/fixtures) and
// Kiro's session history notes (AssistantMessage → ToolResults).
func init() {
	register(Format{
		Name:     "kiro_cli",
		Priority: 25,
		Doc:      "Kiro CLI session JSONL (Prompt, AssistantMessage, ToolResults entries with text/toolUse/toolResult content); emitted by kiro-cli",
		Detect:   detectKiroCLI,
		Parse:    parseKiroCLI,
	})
}

func detectKiroCLI(head []byte) bool {
	m := headObject(head)
	if m == nil || head[0] != '{' {
		return false
	}
	var kind string
	_ = json.Unmarshal(m["kind"], &kind)
	switch kind {
	case "Prompt", "AssistantMessage", "ToolResults":
		return m["content"] != nil || m["data"] != nil
	}
	return false
}

func parseKiroCLI(ctx context.Context, r io.Reader, file string, emit Emit) error {
	run := newRunAcc(1)
	id := ""
	err := genRecords(ctx, r, func(n int, raw []byte) error {
		return eachObject(file, n, raw, emit, "a session entry {kind, content}", func(_ string, m map[string]any) string {
			kind := gStr(m, "kind")
			if d := gObj(m, "data"); d != nil && d["content"] != nil {
				m = d // the wrapped form
			}
			if kind == "" {
				return "expected a session entry with a kind (Prompt, AssistantMessage, ToolResults)"
			}
			if meta := gObj(m, "meta"); meta != nil {
				ts := runTime(meta["timestamp"])
				run.span(ts, ts)
			}
			id = genFirstString(id, gStr(m, "session_id", "conversation_id"))
			kiroEntry(run.c, kind, gArr(m, "content"))
			return ""
		})
	})
	if err != nil {
		return err
	}
	t := &model.Trace{TraceID: id, Outcome: model.OutcomeUnknown}
	run.trace(t)
	if len(t.Steps) == 0 {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "session holds no prompt or assistant message: no conversation to import"}})
	}
	if t.TraceID == "" {
		t.TraceID = genID("kiro_cli", []byte(file))
	}
	t.Source = model.Source{File: file, Format: "kiro_cli", Line: 1}
	return emit(Record{Line: 1, Trace: t})
}

// kiroEntry adds one entry's content items.
func kiroEntry(c *genConvo, kind string, content []any) {
	var parts []genPart
	var text []string
	for _, it := range content {
		im := asObj(it)
		switch gStr(im, "kind") {
		case "text":
			if s := gStr(im, "data"); s != "" {
				text = append(text, s)
				parts = append(parts, genPart{Kind: "text", Text: s})
			}
		case "toolUse":
			d := gObj(im, "data")
			parts = append(parts, genPart{Kind: "call", ID: gStr(d, "toolUseId"), Name: gStr(d, "name"), Args: genArgs(d["input"])})
		case "toolResult":
			d := gObj(im, "data")
			var out []string
			for _, ci := range gArr(d, "content") {
				cm := asObj(ci)
				if s := gStr(cm, "data"); s != "" {
					out = append(out, s)
				} else if cm["data"] != nil {
					out = append(out, string(genJSON(cm["data"])))
				}
			}
			res := convResult(strings.Join(out, "\n"))
			st := gStr(d, "status")
			parts = append(parts, genPart{Kind: "result", ID: gStr(d, "toolUseId"), Result: res, IsErr: st == "error" || st == "Error"})
		}
	}
	switch kind {
	case "Prompt":
		c.user(strings.Join(text, "\n"))
	case "AssistantMessage":
		c.message(genMsg{Role: "assistant", Parts: parts})
	case "ToolResults":
		c.message(genMsg{Role: "tool", Parts: parts})
	}
}
