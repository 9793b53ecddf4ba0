package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
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
	if m == nil || m["attributes"] == nil || m["name"] == nil && !spanDumpHead(m) {
		return false
	}
	return bytes.Contains(head, []byte(`"ai.operationId"`)) || bytes.Contains(head, []byte(`"ai.prompt`)) || bytes.Contains(head, []byte(`"ai.toolCall.name"`))
}

func parseVercelAI(ctx context.Context, r io.Reader, file string, emit Emit) error {
	emitted, skipped := 0, 0
	// A trace with no conversation (an embedding call) is skipped and
	// listed, not an error: the export holds it beside the real calls.
	keep := func(r Record) error {
		if r.Skip != nil {
			skipped++
		} else {
			emitted++
		}
		return emit(r)
	}
	ends := map[*genSpan]int64{} // genSpan has no end time; the run's duration needs it
	g := newSpanGroups(file, otelIdle, func(id string, spans []*genSpan) Record {
		t := vercelTrace(id, spans, ends)
		for _, sp := range spans {
			delete(ends, sp)
		}
		if len(t.Steps) == 0 {
			return Record{Line: spans[0].Line, Skip: &Skip{Path: "trace " + id,
				Reason: fmt.Sprintf("no prompt, response or tool call in its %d span(s) (%s): no conversation", len(spans), spans[0].Name)}}
		}
		t.Source = model.Source{File: file, Format: "vercel_ai", Line: spans[0].Line}
		return Record{Line: t.Source.Line, Trace: t}
	})
	rec := 0
	pair := &vercelPairs{alias: map[string]string{}}
	err := genRecords(ctx, r, func(n int, raw []byte) error {
		rec++
		var spans []*genSpan
		err := eachObject(file, n, raw, emit, "a span object", func(_ string, m map[string]any) string {
			if sp := spanDump(m, genID("vercel_ai", raw), n); sp != nil {
				spans = append(spans, sp) // a span dump: a trace of its own
				return ""
			}
			sc := firstObj(m, "spanContext", "context")
			tid := genFirstString(gStr(sc, "traceId", "trace_id"), gStr(m, "traceId"))
			if gObj(m, "attributes") == nil || tid == "" {
				return "expected a span {name, spanContext: {traceId, spanId}, attributes}"
			}
			sp := &genSpan{TraceID: tid, Name: gStr(m, "name"), SpanID: genFirstString(gStr(sc, "spanId", "span_id"), gStr(m, "spanId")),
				Parent: genFirstString(gStr(m, "parentSpanId"), gStr(gObj(m, "parentSpanContext"), "spanId")),
				Start:  runTime(m["startTime"]), Attrs: gObj(m, "attributes"), Line: n,
				Error: gInt(gObj(m, "status")["code"]) == 2}
			ends[sp] = runTime(m["endTime"])
			sp.TraceID = pair.traceOf(sp, ends[sp])
			spans = append(spans, sp)
			return ""
		})
		if err != nil {
			return err
		}
		return g.add(rec, spans, keep)
	})
	if err == nil {
		err = g.flush(keep)
	}
	if err != nil {
		return err
	}
	if emitted == 0 && skipped > 0 {
		return emit(Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: "no span with a prompt, a response or a tool call (embedding spans only): no conversation to import"}})
	}
	return nil
}

// vercelPairs joins the two halves of one call that an exporter wrote
// without context: the SDK's test exporter (and a span processor started
// before the tracer provider) gives the ai.generateText span and its
// ai.generateText.doGenerate child each a traceId of its own and no
// parent. Two adjacent parentless spans, one the other's .doGenerate or
// .doStream, of the same telemetry function, the outer's time covering
// the inner's, are one conversation: the second takes the first's trace.
type vercelPairs struct {
	last       *genSpan
	start, end int64
	alias      map[string]string // traceId → the trace it joined
}

func (p *vercelPairs) traceOf(sp *genSpan, end int64) string {
	if a, ok := p.alias[sp.TraceID]; ok {
		return a
	}
	prev, pStart, pEnd := p.last, p.start, p.end
	p.last, p.start, p.end = sp, sp.Start, end
	if prev == nil || sp.Parent != "" || prev.Parent != "" || prev.TraceID == sp.TraceID ||
		gStr(prev.Attrs, "ai.telemetry.functionId") != gStr(sp.Attrs, "ai.telemetry.functionId") {
		return sp.TraceID
	}
	// Exporters write a span when it ends: the inner one usually first.
	outer, oStart, oEnd, inner, iStart, iEnd := sp, sp.Start, end, prev, pStart, pEnd
	if vercelInnerOf(sp.Name) != "" {
		outer, oStart, oEnd, inner, iStart, iEnd = prev, pStart, pEnd, sp, sp.Start, end
	}
	if vercelInnerOf(inner.Name) != outer.Name || oStart > iStart || oEnd < iEnd {
		return sp.TraceID
	}
	p.alias[sp.TraceID] = prev.TraceID
	p.last = nil // a pair is whole
	return prev.TraceID
}

// vercelInnerOf is the call span a model-call span belongs to
// ("ai.generateText" for "ai.generateText.doGenerate"), "" for others.
func vercelInnerOf(name string) string {
	for _, suf := range []string{".doGenerate", ".doStream"} {
		if strings.HasSuffix(name, suf) {
			return strings.TrimSuffix(name, suf)
		}
	}
	return ""
}

func vercelTrace(tid string, spans []*genSpan, ends map[*genSpan]int64) *model.Trace {
	order := genSpanOrder(len(spans),
		func(i int) string { return spans[i].SpanID },
		func(i int) string { return spans[i].Parent },
		func(i int) int64 { return spans[i].Start })
	inner := false // model calls recorded as their own spans
	for _, sp := range spans {
		if strings.HasSuffix(sp.Name, ".doGenerate") || strings.HasSuffix(sp.Name, ".doStream") {
			inner = true
		}
	}
	line := spans[0].Line
	for _, sp := range spans {
		line = min(line, sp.Line)
	}
	acc := newRunAcc(line)
	t := &model.Trace{TraceID: tid}
	for _, i := range order {
		sp := spans[i]
		a := sp.Attrs
		acc.span(sp.Start, ends[sp])
		op := genFirstString(gStr(a, "ai.operationId"), sp.Name)
		switch {
		case op == "ai.toolCall":
			out := firstNonNil(a["ai.toolCall.result"], a["ai.toolCall.output"])
			var r json.RawMessage
			isErr := sp.Error
			if out != nil || sp.Error {
				var e2 bool
				r, e2 = genResult(out)
				isErr = isErr || e2
			}
			acc.c.execution(gStr(a, "ai.toolCall.id"), gStr(a, "ai.toolCall.name"),
				genArgs(firstNonNil(a["ai.toolCall.args"], a["ai.toolCall.input"])), r, isErr)
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
			acc.c.turn(in, vercelOutput(a))
			acc.usage(gInt(firstNonNil(a["ai.usage.promptTokens"], a["ai.usage.inputTokens"])),
				gInt(firstNonNil(a["ai.usage.completionTokens"], a["ai.usage.outputTokens"])), 0)
			acc.setModel(genFirstString(gStr(a, "ai.response.model"), gStr(a, "ai.model.id")))
			if sp.Error && sp.Parent == "" {
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
