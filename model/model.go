// Package model holds tracelab's domain types: traces and their steps, the
// tool contracts a trace saw, and the labeled case in the seed's cases.jsonl
// shape. Every other package speaks in these types; none of them does I/O.
package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Outcome is how a run ended, as the agent framework recorded it.
type Outcome string

const (
	OutcomePass          Outcome = "pass"
	OutcomeRetry         Outcome = "retry"
	OutcomeClarification Outcome = "clarification"
	OutcomeFailure       Outcome = "failure"
	OutcomeUnknown       Outcome = "unknown"
)

// Outcomes lists the valid outcomes in documentation order.
var Outcomes = []Outcome{OutcomePass, OutcomeRetry, OutcomeClarification, OutcomeFailure, OutcomeUnknown}

// StepKind says what a step of a trace is.
type StepKind string

const (
	KindUser      StepKind = "user"
	KindReasoning StepKind = "reasoning"
	// KindAssistant is visible model text that is not the final answer (text
	// written before a tool call); only real thinking blocks are reasoning.
	KindAssistant     StepKind = "assistant"
	KindToolCall      StepKind = "tool_call"
	KindToolResult    StepKind = "tool_result"
	KindClarification StepKind = "clarification"
	KindAnswer        StepKind = "answer"
)

// StepKinds lists the valid step kinds in documentation order.
var StepKinds = []StepKind{KindUser, KindReasoning, KindAssistant, KindToolCall, KindToolResult, KindClarification, KindAnswer}

// Trace is one agent run answering one question.
type Trace struct {
	TraceID   string         `json:"trace_id"`
	Server    string         `json:"server"`
	RunID     string         `json:"run_id,omitempty"`
	UserRole  string         `json:"user_role,omitempty"`
	AsUser    string         `json:"as_user,omitempty"`
	Question  string         `json:"question"`
	StartedAt string         `json:"started_at,omitempty"` // RFC 3339, kept as written
	Outcome   Outcome        `json:"outcome,omitempty"`
	Model     string         `json:"model,omitempty"`  // the model that answered, as the source names it
	Answer    string         `json:"answer,omitempty"` // final answer text; the last answer step when not given
	Tools     []ToolContract `json:"tools,omitempty"`
	Steps     []Step         `json:"steps"`
	Usage     Usage          `json:"usage"`
	// Metadata is free-form; a "case_id" key ties the trace to a suite
	// case, and MetaIncomplete marks a trace read from a cut stream.
	Metadata map[string]any `json:"metadata,omitempty"`
	Source   Source         `json:"-"`
}

// Usage is what the run cost.
type Usage struct {
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	USD          float64 `json:"usd"`
	// Estimated says USD was computed from a price table by model, not
	// recorded by the source.
	Estimated bool `json:"estimated,omitempty"`
}

// Source says where a trace or case was read from.
type Source struct {
	File   string
	Format string
	Line   int
}

// Step is one event of a trace, in order.
type Step struct {
	Kind       StepKind        `json:"kind"`
	ID         string          `json:"id,omitempty"`      // a tool_call's id
	CallID     string          `json:"call_id,omitempty"` // the tool_call a tool_result answers
	Text       string          `json:"text,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	AsOf       string          `json:"as_of,omitempty"`
	IsError    bool            `json:"is_error,omitempty"`
	Credential string          `json:"credential,omitempty"` // identity the call ran as
	NextCursor string          `json:"next_cursor,omitempty"`
	HasMore    bool            `json:"has_more,omitempty"`
}

// ToolContract is a tool definition as the model saw it (MCP shape).
type ToolContract struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	// Raw is the exact object the model saw, when the source format had
	// one; fingerprints are computed over it so nothing the model read is lost.
	Raw json.RawMessage `json:"-"`
}

// StartTime parses StartedAt; ok is false when it is absent or malformed.
// (Year 1 is a time like any other: the zero time.Time cannot stand for
// "missing".)
func (t *Trace) StartTime() (ts time.Time, ok bool) {
	ts, err := time.Parse(time.RFC3339Nano, t.StartedAt)
	if err != nil {
		return time.Time{}, false
	}
	return ts, true
}

// FinalAnswer is the explicit answer, else the text of the last answer step.
func (t *Trace) FinalAnswer() string {
	if t.Answer != "" {
		return t.Answer
	}
	for i := len(t.Steps) - 1; i >= 0; i-- {
		if t.Steps[i].Kind == KindAnswer {
			return t.Steps[i].Text
		}
	}
	return ""
}

// CaseID is the suite case a trace was run for, from its metadata.
func (t *Trace) CaseID() string {
	if s, ok := t.Metadata["case_id"].(string); ok {
		return s
	}
	return ""
}

// ToolCalls counts the tool_call steps.
func (t *Trace) ToolCalls() int {
	n := 0
	for _, s := range t.Steps {
		if s.Kind == KindToolCall {
			n++
		}
	}
	return n
}

// Turns counts the model's turns: one per run of consecutive non-user steps
// that the user's input or a clarification answer starts anew. A trace with
// no user steps is one turn, plus one per clarification the user answered.
func (t *Trace) Turns() int {
	turns := 1
	for _, s := range t.Steps {
		if s.Kind == KindClarification {
			turns++
		}
	}
	return turns
}

// RecordError is a precise complaint about one record of a file: which
// file, which line, which JSON path, and what was expected there. Readers
// of outside input and the store raise it alike.
type RecordError struct {
	File string
	Line int
	Path string // JSON path such as steps[3].kind; empty for the whole record
	Msg  string
}

func (e *RecordError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Path != "" {
		b.WriteString(": ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// MetaIncomplete is the Metadata key an importer sets on a trace read from
// a stream cut before its end event; its value says what was missing.
const MetaIncomplete = "incomplete"
