package importers

import (
	"bytes"
	"context"
	"io"
	"strings"

	"tracelab/model"
)

// Vercel AI SDK telemetry (experimental_telemetry): OpenTelemetry spans as
// the JS SDK exports them ({name, spanContext: {traceId, spanId},
// parentSpanId, attributes, startTime: [s, ns], endTime, status}) named
// ai.generateText / ai.streamText / ai.generateObject (the call), with
// .doGenerate / .doStream children (one per model call: ai.prompt.messages,
// ai.response.text, ai.response.toolCalls, ai.usage.*, ai.model.id) and
// ai.toolCall children (ai.toolCall.name, .id, .args / .input, .result /
// .output). One trace per traceId.
func init() {
	register(Format{
		Name:     "vercel_ai",
		Priority: 45,
		Doc:      "Vercel AI SDK telemetry spans (ai.generateText, ai.streamText, ai.toolCall… with ai.prompt.messages, ai.response.*, ai.usage.*), JSON array or JSONL; emitted by the AI SDK's experimental_telemetry through any OpenTelemetry exporter",
		Detect:   detectVercelAI,
		Parse:    parseVercelAI,
	})
}

func detectVercelAI(head []byte) bool {
	m := headObject(head)
	if m == nil || m["attributes"] == nil || m["name"] == nil {
		return false
	}
	return bytes.Contains(head, []byte(`"ai.operationId"`)) || bytes.Contains(head, []byte(`"ai.prompt`)) || bytes.Contains(head, []byte(`"ai.toolCall.name"`))
}

type vercelSpan struct {
	name, id, parent string
	start, end       int64
	attrs            map[string]any
	isErr            bool
	line             int
}

func parseVercelAI(ctx context.Context, r io.Reader, file string, emit Emit) error {
	byTrace := map[string][]*vercelSpan{}
	var order []string
	err := genRecords(ctx, r, func(n int, raw []byte) error {
		return eachObject(file, n, raw, emit, "a span object", func(_ string, m map[string]any) string {
			sc := firstObj(m, "spanContext", "context")
			tid := genFirstString(gStr(sc, "traceId", "trace_id"), gStr(m, "traceId"))
			if gObj(m, "attributes") == nil || tid == "" {
				return "expected a span {name, spanContext: {traceId, spanId}, attributes}"
			}
			sp := &vercelSpan{name: gStr(m, "name"), id: genFirstString(gStr(sc, "spanId", "span_id"), gStr(m, "spanId")),
				parent: genFirstString(gStr(m, "parentSpanId"), gStr(gObj(m, "parentSpanContext"), "spanId")),
				start:  runTime(m["startTime"]), end: runTime(m["endTime"]), attrs: gObj(m, "attributes"), line: n}
			sp.isErr = gInt(gObj(m, "status")["code"]) == 2
			if _, ok := byTrace[tid]; !ok {
				order = append(order, tid)
			}
			byTrace[tid] = append(byTrace[tid], sp)
			return ""
		})
	})
	if err != nil {
		return err
	}
	emitted, skipped := 0, 0
	for _, tid := range order {
		t := vercelTrace(tid, byTrace[tid])
		if len(t.Steps) == 0 {
			skipped++ // an embedding call: no conversation
			continue
		}
		t.Source = model.Source{File: file, Format: "vercel_ai", Line: byTrace[tid][0].line}
		if err := emit(Record{Line: t.Source.Line, Trace: t}); err != nil {
			return err
		}
		emitted++
	}
	if emitted == 0 && skipped > 0 {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "no span with a prompt, a response or a tool call (embedding spans only): no conversation to import"}})
	}
	return nil
}

func vercelTrace(tid string, spans []*vercelSpan) *model.Trace {
	order := genSpanOrder(len(spans),
		func(i int) string { return spans[i].id },
		func(i int) string { return spans[i].parent },
		func(i int) int64 { return spans[i].start })
	inner := false // model calls recorded as their own spans
	for _, sp := range spans {
		if strings.HasSuffix(sp.name, ".doGenerate") || strings.HasSuffix(sp.name, ".doStream") {
			inner = true
		}
	}
	acc := newRunAcc(spans[0].line)
	t := &model.Trace{TraceID: tid}
	for _, i := range order {
		sp := spans[i]
		a := sp.attrs
		acc.span(sp.start, sp.end)
		op := genFirstString(gStr(a, "ai.operationId"), sp.name)
		switch {
		case op == "ai.toolCall":
			r, isErr := genResult(firstNonNil(a["ai.toolCall.result"], a["ai.toolCall.output"]))
			if firstNonNil(a["ai.toolCall.result"], a["ai.toolCall.output"]) == nil && !sp.isErr {
				r = nil
			}
			acc.c.execution(gStr(a, "ai.toolCall.id"), gStr(a, "ai.toolCall.name"),
				genArgs(firstNonNil(a["ai.toolCall.args"], a["ai.toolCall.input"])), r, isErr || sp.isErr)
		case strings.HasSuffix(op, ".doGenerate") || strings.HasSuffix(op, ".doStream") ||
			(!inner && (op == "ai.generateText" || op == "ai.streamText" || op == "ai.generateObject" || op == "ai.streamObject")):
			for _, tool := range genList(a["ai.prompt.tools"]) {
				if s, ok := tool.(string); ok {
					tool, _ = genMaybeJSON(s)
				}
				if tm := asObj(tool); tm != nil {
					acc.c.contract(tm)
				}
			}
			in, _ := genMessages(firstNonNil(a["ai.prompt.messages"], a["ai.prompt"]), "user")
			acc.turn(in, vercelOutput(a))
			acc.usage(gInt(firstNonNil(a["ai.usage.promptTokens"], a["ai.usage.inputTokens"])),
				gInt(firstNonNil(a["ai.usage.completionTokens"], a["ai.usage.outputTokens"])), 0)
			acc.setModel(genFirstString(gStr(a, "ai.response.model"), gStr(a, "ai.model.id")))
			if sp.isErr && sp.parent == "" {
				t.Outcome = model.OutcomeFailure
			}
		}
	}
	acc.trace(t)
	return t
}

// vercelOutput is what one model call produced: reasoning, text (or the
// generated object) and tool calls.
func vercelOutput(a map[string]any) []genMsg {
	var parts []genPart
	if s := gStr(a, "ai.response.reasoning"); s != "" {
		parts = append(parts, genPart{Kind: "reasoning", Text: s})
	}
	if s := genFirstString(gStr(a, "ai.response.text"), gStr(a, "ai.response.object")); s != "" {
		parts = append(parts, genPart{Kind: "text", Text: s})
	}
	calls := a["ai.response.toolCalls"]
	if s, ok := calls.(string); ok {
		calls, _ = genMaybeJSON(s)
	}
	for _, c := range genList(calls) {
		cm := asObj(c)
		if cm == nil {
			continue
		}
		parts = append(parts, genPart{Kind: "call", ID: gStr(cm, "toolCallId"), Name: gStr(cm, "toolName"), Args: genArgs(firstNonNil(cm["input"], cm["args"]))})
	}
	if len(parts) == 0 {
		return nil
	}
	return []genMsg{{Role: "assistant", Parts: parts}}
}
