package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// The native format: one trace per line, as DESIGN.md documents it.
func init() {
	register(Format{
		Name:     "native",
		Priority: 100,
		Doc:      "tracelab JSONL: one trace per line with trace_id, question and steps[]",
		Detect:   func(head []byte) bool { return hasKeys(firstJSONLine(head), "trace_id", "steps") },
		Parse:    parseNative,
	})
}

func parseNative(ctx context.Context, r io.Reader, file string, emit Emit) error {
	shared, owned := perRecord(file, emit, ParseNativeTrace, setTrace), perRecord(file, emit, parseNativeOwned, setTrace)
	return linesOwned(ctx, r, func(n int, line []byte, own bool) error {
		if own {
			return owned(n, line)
		}
		return shared(n, line)
	})
}

// nativeTrace is the wire shape; tools are kept raw so their fingerprint
// covers exactly what the model saw.
type nativeTrace struct {
	model.Trace
	Tools []json.RawMessage `json:"tools"`
}

// ParseNativeTrace reads and validates one native trace line.
func ParseNativeTrace(file string, line int, data []byte) (*model.Trace, *LineError) {
	return parseNativeTrace(file, line, data, decodeNative)
}

// parseNativeOwned is ParseNativeTrace for a line no one else holds or
// will change: the trace may keep a big raw value in it
// (decodeNativeInPlace).
func parseNativeOwned(file string, line int, data []byte) (*model.Trace, *LineError) {
	return parseNativeTrace(file, line, data, decodeNativeInPlace)
}

func parseNativeTrace(file string, line int, data []byte, decode func([]byte) (nativeTrace, bool)) (*model.Trace, *LineError) {
	if len(data) == 0 || data[0] != '{' {
		return nil, &LineError{File: file, Line: line, Msg: "expected a JSON object (one trace per line)"}
	}
	nt, ok := decode(data)
	if !ok {
		if lerr := decodeLine(file, line, data, &nt); lerr != nil {
			return nil, lerr
		}
	}
	t := nt.Trace
	t.Tools = nil
	bad := func(path, format string, args ...any) (*model.Trace, *LineError) {
		return nil, &LineError{File: file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}
	}
	for i, raw := range nt.Tools {
		tc, err := ParseContract(raw)
		if err != nil {
			return bad(fmt.Sprintf("tools[%d]", i), "%v", err)
		}
		t.Tools = append(t.Tools, tc)
	}
	if t.TraceID == "" {
		return bad("trace_id", "required, a non-empty string")
	}
	if t.Steps == nil {
		return bad("steps", "required, an array of steps")
	}
	if t.Outcome == "" {
		t.Outcome = model.OutcomeUnknown
	} else if !slices.Contains(model.Outcomes, t.Outcome) {
		return bad("outcome", "%q is not one of %s", t.Outcome, quoteList(model.Outcomes))
	}
	if t.StartedAt != "" && !validTime(t.StartedAt) {
		return bad("started_at", "%q is not an RFC 3339 time like 2026-07-03T09:12:00Z", t.StartedAt)
	}
	if t.Usage.InputTokens < 0 || t.Usage.OutputTokens < 0 || t.Usage.USD < 0 {
		return bad("usage", "token counts and usd must not be negative")
	}
	calls := map[string]bool{}
	for i := range t.Steps {
		s := &t.Steps[i]
		at := func(field string) string { return fmt.Sprintf("steps[%d].%s", i, field) }
		if !slices.Contains(model.StepKinds, s.Kind) {
			return bad(at("kind"), "%q is not one of %s", s.Kind, quoteList(model.StepKinds))
		}
		switch s.Kind {
		case model.KindToolCall:
			if s.Tool == "" {
				return bad(at("tool"), "required on a tool_call step")
			}
			if len(s.Args) > 0 && !isJSONObjectOrNull(s.Args) {
				return bad(at("args"), "expected an object of arguments")
			}
			if s.ID != "" {
				calls[s.ID] = true
			}
		case model.KindToolResult:
			if s.CallID != "" && !calls[s.CallID] {
				return bad(at("call_id"), "%q does not match the id of any earlier tool_call", s.CallID)
			}
		}
		if s.AsOf != "" && !validTime(s.AsOf) {
			return bad(at("as_of"), "%q is not an RFC 3339 time like 2026-07-03T08:00:00Z", s.AsOf)
		}
	}
	if t.Question == "" {
		for _, s := range t.Steps {
			if s.Kind == model.KindUser && s.Text != "" {
				t.Question = s.Text
				break
			}
		}
	}
	if t.Question == "" {
		return bad("question", "required (or a user step with text)")
	}
	return &t, nil
}

// ParseContract reads one tool definition (MCP shape: name, title,
// description, inputSchema, outputSchema, annotations) and keeps its bytes.
func ParseContract(raw json.RawMessage) (model.ToolContract, error) {
	var tc model.ToolContract
	if len(raw) == 0 || raw[0] != '{' {
		return tc, fmt.Errorf("expected a tool object with a name")
	}
	if err := json.Unmarshal(raw, &tc); err != nil {
		return tc, fmt.Errorf("expected a tool object: %v", err)
	}
	if tc.Name == "" {
		return tc, fmt.Errorf("name: required")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return tc, err
	}
	tc.Raw = buf.Bytes()
	return tc, nil
}

func validTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

func isJSONObjectOrNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && (t[0] == '{' || string(t) == "null")
}

// hasKeys reports whether line is a JSON object holding every key. The
// line may be cut short (a first record longer than the head detection
// sees): a key whose value runs past the cut still counts.
func hasKeys(line []byte, keys ...string) bool {
	if len(line) == 0 || line[0] != '{' {
		return false
	}
	m := headObject(line)
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}
