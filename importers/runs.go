package importers

// Helpers of the formats that record one agent run as many pieces (LiteLLM
// call logs, LangSmith runs, Vercel AI SDK spans, OpenAI Agents SDK spans,
// Claude Code / Codex CLI / Claude Agent SDK sessions, Gemini calls): they
// read times in any of the forms those tools write and pick the question
// out of the user turns a coding agent wraps in machine-made context.

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// runTime reads a time as unix seconds, milliseconds or nanoseconds (a
// number or a numeric string), an RFC 3339 string, or an OpenTelemetry JS
// HrTime [seconds, nanoseconds]; it returns unix nanoseconds, 0 when it
// cannot.
func runTime(v any) int64 {
	switch x := v.(type) {
	case []any:
		if len(x) == 2 {
			return gInt(x[0])*1e9 + gInt(x[1])
		}
	case string:
		if t := genParseTime(x); t > 0 {
			return t
		}
		return runTime(json.Number(x))
	case json.Number, float64, int64:
		f := gFloat(x)
		switch {
		case f <= 0:
			return 0
		case f > 1e17: // nanoseconds
			return int64(f)
		case f > 1e14: // microseconds
			return int64(f * 1e3)
		case f > 1e11: // milliseconds
			return int64(f * 1e6)
		default:
			return int64(f * 1e9)
		}
	}
	return 0
}

// machineText reports whether a user turn is context a tool injected, not
// something a person typed: a message made only of <tag>…</tag> blocks
// (Claude Code's <system-reminder>, <command-name>, Codex's
// <environment_context>, <user_instructions>), or the AGENTS.md preamble.
func machineText(s string) bool {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "# AGENTS.md instructions") || strings.HasPrefix(t, "Caveat: The messages below were generated") {
		return true
	}
	for t != "" {
		if !strings.HasPrefix(t, "<") {
			return false
		}
		end := strings.IndexByte(t, '>')
		if end < 2 {
			return false
		}
		fields := strings.Fields(t[1:end])
		if len(fields) == 0 {
			return false
		}
		tag := fields[0]
		closing := "</" + tag + ">"
		i := strings.Index(t, closing)
		if i < 0 {
			return false
		}
		t = strings.TrimSpace(t[i+len(closing):])
	}
	return true
}

// runQuestion is the user turn the final answer answers (questionTurn),
// going back past the turns an agent harness wrote (a lone
// <system-reminder>, a goose <info-msg>) to the one a person wrote; when
// every user turn up to it is machine-made it is the first one, so a run
// is never left without the text it started from.
func runQuestion(steps []model.Step) string {
	u := questionTurn(steps)
	if u < 0 {
		return ""
	}
	first := ""
	for i := u; i >= 0; i-- {
		s := steps[i]
		if s.Kind != model.KindUser {
			continue
		}
		if !injectedTurn(s.Text) {
			return ownRequest(s.Text)
		}
		first = s.Text
	}
	return first
}

// stripMachineBlocks drops the leading <tag>…</tag> blocks (Claude Code's
// <system-reminder>, goose's <info-msg>) a coding agent prepends to what
// the person typed.
func stripMachineBlocks(s string) string {
	t := strings.TrimSpace(s)
	for strings.HasPrefix(t, "<") {
		end := strings.IndexByte(t, '>')
		if end < 2 {
			break
		}
		fields := strings.Fields(t[1:end])
		if len(fields) == 0 {
			break
		}
		closing := "</" + fields[0] + ">"
		i := strings.Index(t, closing)
		if i < 0 {
			break
		}
		t = strings.TrimSpace(t[i+len(closing):])
	}
	if t == "" {
		return s
	}
	return t
}

// bareTurn is a user turn without the <tag>…</tag> blocks a coding agent
// puts before or after what the person typed: goose sends its <info-msg>
// first in one call and after the text in the next call's history, and
// both are the same turn.
func bareTurn(s string) string {
	t := strings.TrimSpace(stripMachineBlocks(s))
	for strings.HasSuffix(t, ">") {
		open := strings.LastIndex(t, "</")
		if open < 0 {
			break
		}
		tag := t[open+2 : len(t)-1]
		if tag == "" || strings.ContainsAny(tag, " \t\n<>/") {
			break
		}
		start := strings.LastIndex(t[:open], "<"+tag+">")
		if start < 0 {
			break
		}
		t = strings.TrimSpace(t[:start])
	}
	if t == "" {
		return strings.TrimSpace(s)
	}
	return t
}

// runAcc gathers one agent run read piece by piece: the conversation, the
// time span, token usage, cost and the model that answered.
type runAcc struct {
	c          *genConvo
	line       int // where the run starts in the file
	start, end int64
	in, out    int64
	usd        float64
	model      string
}

func newRunAcc(line int) *runAcc { return &runAcc{c: newGenConvo(), line: line} }

// span widens the run's time span to cover [start, end] (unix ns, 0 = unknown).
func (a *runAcc) span(start, end int64) {
	if start > 0 && (a.start == 0 || start < a.start) {
		a.start = start
	}
	if end < start {
		end = start
	}
	if end > a.end {
		a.end = end
	}
}

// usage adds one model call's tokens and cost.
func (a *runAcc) usage(in, out int64, usd float64) {
	a.in += max(in, 0)
	a.out += max(out, 0)
	if usd > 0 {
		a.usd += usd
	}
}

// setModel records the model of a call; the last call's model is the one
// that gave the final answer.
func (a *runAcc) setModel(m string) {
	if m != "" {
		a.model = m
	}
}

// trace fills t from the run: steps, question, timing, usage and model.
func (a *runAcc) trace(t *model.Trace) {
	preset := t.Question != ""
	a.c.finish(t)
	t.Steps = dropRepeatedContext(t.Steps)
	finalResult(t)
	if q := runQuestion(t.Steps); q != "" && !preset {
		t.Question = q
	}
	if t.StartedAt == "" {
		t.StartedAt = genTime(a.start)
	}
	if a.end > a.start && a.start > 0 {
		if t.Metadata == nil {
			t.Metadata = map[string]any{}
		}
		t.Metadata["duration_ms"] = (a.end - a.start) / 1e6
	}
	t.Usage.InputTokens += a.in
	t.Usage.OutputTokens += a.out
	if a.usd > 0 {
		t.Usage.USD = genUSD(t.Usage.USD + a.usd)
	}
	if t.Model == "" {
		t.Model = a.model
	}
}

// asObj is v as a JSON object, nil when it is anything else.
func asObj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// asBufio reuses r when it is already buffered (Parse hands one in).
func asBufio(r io.Reader) *bufio.Reader {
	if br, ok := r.(*bufio.Reader); ok {
		return br
	}
	return bufio.NewReaderSize(r, 64<<10)
}

// eachObject decodes one record, a JSON object or an array of them, and
// calls fn with each object and its JSON path. fn returns what was wrong
// with the object ("" when nothing was); that, a record that is not JSON
// and an element that is not an object become precise errors (want names
// the object expected) and reading goes on with the next one.
func eachObject(file string, n int, raw []byte, emit Emit, want string, fn func(path string, m map[string]any) string) error {
	v, err := genDecode(raw)
	if err != nil {
		return emit(Record{Line: n, Err: jsonError(file, n, raw, err)})
	}
	items, isList := v.([]any)
	if !isList {
		items = []any{v}
	}
	for i, it := range items {
		path := ""
		if isList {
			path = "[" + strconv.Itoa(i) + "]"
		}
		msg := "expected " + want
		if m, ok := it.(map[string]any); ok {
			msg = fn(path, m)
		}
		if msg != "" {
			if err := emit(Record{Line: n, Err: &LineError{File: file, Line: n, Path: path, Msg: msg}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropRepeatedContext removes the user turns an agent harness injects again
// and again (goose's <info-msg> before every tool result, Claude Code's
// <system-reminder>): a user step made only of <tag> blocks whose tag an
// earlier user step already began with. The first one stays.
func dropRepeatedContext(steps []model.Step) []model.Step {
	seen := map[string]bool{}
	out := steps[:0]
	for _, s := range steps {
		if s.Kind == model.KindUser {
			tag := leadingTag(s.Text)
			if tag != "" && seen[tag] && machineText(s.Text) {
				continue
			}
			if tag != "" {
				seen[tag] = true
			}
		}
		out = append(out, s)
	}
	return out
}

// leadingTag is the name of the <tag> a text starts with, "" when none.
func leadingTag(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "<") {
		return ""
	}
	end := strings.IndexByte(t, '>')
	if end < 2 {
		return ""
	}
	if f := strings.Fields(t[1:end]); len(f) > 0 {
		return f[0]
	}
	return ""
}

// finalResult turns a run that ends in an unanswered call of an output
// tool (pydantic-ai's final_result: the model answers by calling it) into
// that answer: the call's single string argument, else its arguments.
func finalResult(t *model.Trace) {
	n := len(t.Steps)
	if n == 0 {
		return
	}
	last := t.Steps[n-1]
	if last.Kind != model.KindToolCall || (last.Tool != "final_result" && !strings.HasPrefix(last.Tool, "final_result_")) {
		return
	}
	text := string(last.Args)
	var args map[string]any
	if json.Unmarshal(last.Args, &args) == nil && len(args) == 1 {
		for _, v := range args {
			if s, ok := v.(string); ok {
				text = s
			}
		}
	}
	t.Steps[n-1] = model.Step{Kind: model.KindAnswer, Text: text}
}

// openRuns holds the runs of a log that are still going on, in the order
// they started, and gives back those no record has touched for otelIdle
// records, so a log of many runs is read in bounded memory.
type openRuns[T any] struct {
	byKey map[string]*openRun[T]
	order []*openRun[T]
	rec   int // records read so far
}

type openRun[T any] struct {
	key  string
	v    T
	seen int // the record that last touched it
}

func newOpenRuns[T any]() *openRuns[T] { return &openRuns[T]{byKey: map[string]*openRun[T]{}} }

// next counts one record read.
func (o *openRuns[T]) next() { o.rec++ }

// get finds the open run of key and marks it touched.
func (o *openRuns[T]) get(key string) (T, bool) {
	r := o.byKey[key]
	if r == nil {
		var zero T
		return zero, false
	}
	r.seen = o.rec
	return r.v, true
}

// add opens a run under key.
func (o *openRuns[T]) add(key string, v T) {
	r := &openRun[T]{key: key, v: v, seen: o.rec}
	o.byKey[key] = r
	o.order = append(o.order, r)
}

// rekey files an open run under another key.
func (o *openRuns[T]) rekey(from, to string) {
	if r := o.byKey[from]; r != nil {
		delete(o.byKey, from)
		r.key = to
		o.byKey[to] = r
	}
}

// latest is the run that started last, if any is open.
func (o *openRuns[T]) latest() (T, string, bool) {
	if len(o.order) == 0 {
		var zero T
		return zero, "", false
	}
	r := o.order[len(o.order)-1]
	return r.v, r.key, true
}

// idle closes and returns, in the order they started, the runs untouched
// for otelIdle records; every open run when all is set. Between those it
// looks only every rootIdle records.
func (o *openRuns[T]) idle(all bool) []T {
	if !all && o.rec%rootIdle != 0 {
		return nil
	}
	var out []T
	keep := o.order[:0]
	for _, r := range o.order {
		if !all && o.rec-r.seen <= otelIdle {
			keep = append(keep, r)
			continue
		}
		delete(o.byKey, r.key)
		out = append(out, r.v)
	}
	o.order = keep
	return out
}
