package importers

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// Gemini CLI records each chat under ~/.gemini/tmp/<project_hash>/chats/.
// The current form is JSONL: a first line {sessionId, projectHash,
// startTime, lastUpdated, kind}, then message records {id, timestamp, type:
// user | gemini | info | error | warning, content, displayContent,
// thoughts: [{subject, description}], toolCalls: [{id, name, args, result:
// [functionResponse parts], status}], tokens: {input, output, cached,
// thoughts, tool}, model}, where a later record with the same id replaces
// the earlier one (a turn is rewritten as its calls finish), {"$set":
// {…}} updates the header and {"$rewindTo": id} drops that message and
// every later one. The older form is one object {sessionId, projectHash,
// startTime, lastUpdated, messages: [records]}. A resumed session goes on
// in the same file: one trace per file.
//
// Gemini CLI's tests also replay recorded model responses
// (--fake-responses): JSONL {method: generateContent |
// generateContentStream | countTokens…, response: a response or its
// chunks}. Those are the model's side only: one trace of the calls.
//
// References: gemini-cli docs/cli/session-management.md and
// packages/core/src/services/chatRecordingService.ts.
func init() {
	register(Format{
		Name:     "gemini_cli",
		Priority: 25,
		Doc:      "Gemini CLI chat recordings (~/.gemini/tmp/<hash>/chats/session-*.jsonl with $set/$rewindTo lines, or the older single JSON object) and its recorded model responses ({method, response} JSONL); emitted by gemini-cli",
		Detect:   detectGeminiCLI,
		Parse:    parseGeminiCLI,
	})
}

func detectGeminiCLI(head []byte) bool {
	m := headObject(head)
	if m == nil || head[0] != '{' {
		return false
	}
	if m["sessionId"] != nil && m["projectHash"] != nil {
		return true
	}
	var method string
	_ = json.Unmarshal(m["method"], &method)
	return m["response"] != nil && (strings.HasPrefix(method, "generateContent") || method == "countTokens" || method == "embedContent")
}

type geminiSession struct {
	header map[string]any
	order  []string                  // message ids in order
	msgs   map[string]map[string]any // by id
}

func (s *geminiSession) put(m map[string]any) {
	id := gStr(m, "id")
	if _, ok := s.msgs[id]; !ok {
		s.order = append(s.order, id)
	}
	s.msgs[id] = m
}

func (s *geminiSession) rewind(id string) {
	for i, k := range s.order {
		if k == id {
			for _, drop := range s.order[i:] {
				delete(s.msgs, drop)
			}
			s.order = s.order[:i]
			return
		}
	}
}

func parseGeminiCLI(ctx context.Context, r io.Reader, file string, emit Emit) error {
	s := &geminiSession{header: map[string]any{}, msgs: map[string]map[string]any{}}
	resp := newRunAcc(1) // the recorded responses, when the file holds them
	responses := false
	err := readValues(ctx, r, file, false, func(v jsonValue) error {
		return eachObject(file, v.line, v.raw, emit, "a chat record object", func(_ string, m map[string]any) string {
			switch {
			case m["$set"] != nil:
				for k, val := range gObj(m, "$set") {
					if k == "messages" {
						for _, e := range asArr(val) {
							if em := asObj(e); em != nil && gStr(em, "id") != "" {
								s.put(em)
							}
						}
						continue
					}
					s.header[k] = val
				}
			case gStr(m, "$rewindTo") != "":
				s.rewind(gStr(m, "$rewindTo"))
			case m["sessionId"] != nil:
				for k, val := range m {
					if k != "messages" {
						s.header[k] = val
					}
				}
				for _, e := range gArr(m, "messages") {
					if em := asObj(e); em != nil {
						s.put(em)
					}
				}
			case gStr(m, "method") != "" && m["response"] != nil:
				responses = true
				geminiRecordedResponse(resp, m)
			case gStr(m, "id") != "" && gStr(m, "type") != "":
				s.put(m)
			default:
				return "expected a chat record: the session header, a message {id, type}, {$set} or {$rewindTo}"
			}
			return ""
		})
	})
	if err != nil {
		return err
	}
	if responses && len(s.order) == 0 {
		t := &model.Trace{TraceID: genID("gemini_cli", []byte(file))}
		resp.trace(t)
		if len(t.Steps) == 0 {
			return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "recorded responses hold no text or function call: no conversation to import"}})
		}
		t.Outcome = model.OutcomeUnknown
		t.Source = model.Source{File: file, Format: "gemini_cli", Line: 1}
		return emit(Record{Line: 1, Trace: t})
	}
	return emitGeminiSession(file, s, emit)
}

func asArr(v any) []any { a, _ := v.([]any); return a }

func emitGeminiSession(file string, s *geminiSession, emit Emit) error {
	run := newRunAcc(1)
	run.span(runTime(s.header["startTime"]), runTime(s.header["lastUpdated"]))
	t := &model.Trace{TraceID: gStr(s.header, "sessionId"), Outcome: model.OutcomeUnknown}
	for _, id := range s.order {
		geminiRecord(run, s.msgs[id], t)
	}
	run.trace(t)
	if len(t.Steps) == 0 {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "chat recording holds no user or model message: no conversation to import"}})
	}
	if t.TraceID == "" {
		t.TraceID = genID("gemini_cli", []byte(file))
	}
	if ph := gStr(s.header, "projectHash"); ph != "" {
		if t.Metadata == nil {
			t.Metadata = map[string]any{}
		}
		t.Metadata["project_hash"] = ph
	}
	t.Source = model.Source{File: file, Format: "gemini_cli", Line: 1}
	return emit(Record{Line: 1, Trace: t})
}

// geminiRecord adds one message record.
func geminiRecord(run *runAcc, m map[string]any, t *model.Trace) {
	c := run.c
	ts := runTime(m["timestamp"])
	run.span(ts, ts)
	switch gStr(m, "type") {
	case "user":
		if geminiContinuation(m) {
			return // "System: Please continue." after a tool: the CLI's, not the person's
		}
		c.user(geminiText(m["content"]))
	case "gemini":
		var parts []genPart
		for _, th := range gArr(m, "thoughts") {
			tm := asObj(th)
			text := gStr(tm, "description")
			if sub := gStr(tm, "subject"); sub != "" {
				text = sub + ": " + text
			}
			if strings.TrimSpace(text) != "" {
				parts = append(parts, genPart{Kind: "reasoning", Text: text})
			}
		}
		if text := geminiText(m["content"]); strings.TrimSpace(text) != "" {
			parts = append(parts, genPart{Kind: "text", Text: text})
		}
		var results []genPart
		for _, tc := range gArr(m, "toolCalls") {
			tm := asObj(tc)
			id := gStr(tm, "id")
			parts = append(parts, genPart{Kind: "call", ID: id, Name: gStr(tm, "name"), Args: genArgs(tm["args"])})
			if tm["result"] == nil {
				continue
			}
			res := genJSON(tm["result"])
			for _, p := range genParts(asArr(tm["result"])) {
				if p.Kind == "result" {
					res = p.Result
					break
				}
			}
			results = append(results, genPart{Kind: "result", ID: id, Name: gStr(tm, "name"), Result: res, IsErr: gStr(tm, "status") == "error"})
		}
		c.message(genMsg{Role: "assistant", Parts: parts})
		if len(results) > 0 {
			c.message(genMsg{Role: "tool", Parts: results})
		}
		run.setModel(gStr(m, "model"))
		if tk := gObj(m, "tokens"); tk != nil {
			run.usage(gInt(tk["input"]), gInt(tk["output"])+gInt(tk["thoughts"]), 0)
		}
	case "error":
		if t.Metadata == nil {
			t.Metadata = map[string]any{}
		}
		t.Metadata["error"] = geminiText(m["content"])
	}
}

// geminiText is a record's content: a string or a list of {text} parts.
func geminiText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b []string
	for _, p := range asArr(v) {
		if t := gStr(asObj(p), "text"); t != "" {
			b = append(b, t)
		}
	}
	return strings.Join(b, "\n")
}

// geminiContinuation reports a user record the CLI sends on its own after
// a tool asks the model to go on: its display is only function responses.
func geminiContinuation(m map[string]any) bool {
	dc := asArr(m["displayContent"])
	if len(dc) == 0 {
		return false
	}
	for _, p := range dc {
		if asObj(p)["functionResponse"] == nil {
			return false
		}
	}
	return true
}

// geminiRecordedResponse adds one recorded model call of a
// --fake-responses file.
func geminiRecordedResponse(run *runAcc, m map[string]any) {
	if !strings.HasPrefix(gStr(m, "method"), "generateContent") {
		return // countTokens, embedContent: no turn of the conversation
	}
	resp := geminiResponse(m["response"])
	if resp == nil {
		return
	}
	msgs, _ := genMessages(resp, "assistant")
	for _, g := range msgs {
		run.c.message(g)
	}
	if u := gObj(resp, "usageMetadata"); u != nil {
		run.usage(gInt(u["promptTokenCount"]), gInt(u["candidatesTokenCount"])+gInt(u["thoughtsTokenCount"]), 0)
	}
	run.setModel(gStr(resp, "modelVersion"))
}
