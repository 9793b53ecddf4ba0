package importers

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// Live intake (tracelab serve) keeps each received span as one OTLP JSON
// record, an ExportTraceServiceRequest holding that span and its
// resource, exactly what the collector's file exporter writes. Rebuilding
// a trace from its records goes through the same decoder and the same
// conventions as a file of those records, so a trace received live and
// the same spans imported from a file are one trace.

// LiveTrace rebuilds trace id from the OTLP JSON records of its spans
// (any order, any number of requests). The convention follows the spans'
// attributes: OpenInference (openinference.span.kind, llm.*), the Vercel
// AI SDK (ai.operationId, ai.prompt…), else the GenAI semantic
// conventions, current and deprecated (OpenAI Agents, Logfire and
// pydantic-ai, OpenLLMetry…). The record has a Trace when the spans hold
// a conversation, else an Err saying what is missing so far. format is
// the importer format the trace was read as.
func LiveTrace(file, id string, records [][]byte) (Record, string) {
	return LiveTraceFrom(file, id, records, nil)
}

// LiveTraceFrom is LiveTrace where decoded[i], when set, is records[i]
// as LiveDecode read it: a receiver decodes each span as it checks the
// request, beside the others, and its one writer need not read it again.
// The decoded spans are copied, their attribute maps shared and only read.
func LiveTraceFrom(file, id string, records [][]byte, decoded []*LiveDecoded) (Record, string) {
	rec, format := liveTrace(file, id, records, decoded)
	return finishRecord(file, rec), format
}

func liveTrace(file, id string, records [][]byte, decoded []*LiveDecoded) (rec Record, format string) {
	var spans []*genSpan
	var ends map[*genSpan]int64
	for i, raw := range records {
		var got []*genSpan
		if i < len(decoded) && decoded[i] != nil {
			got = decoded[i].at(i + 1)
		} else {
			var lerr *LineError
			if got, _, lerr = otelDecode(file, i+1, raw); lerr != nil {
				return Record{Line: i + 1, Err: lerr}, "otel"
			}
		}
		for _, sp := range got {
			if sp.TraceID == id {
				spans = append(spans, sp)
			}
		}
	}
	if len(spans) == 0 {
		return Record{Line: 1, Err: &LineError{File: file, Line: 1, Msg: fmt.Sprintf("trace %s: no span", id)}}, "otel"
	}
	switch liveConvention(spans) {
	case "openinference":
		for _, sp := range spans {
			sp.Attrs = genTree(sp.Attrs)
		}
		return spanRecord(file, "openinference", id, spans, oiTrace), "openinference"
	case "vercel_ai":
		ends = liveEnds(records, spans)
		t := vercelTrace(id, spans, ends)
		if len(t.Steps) == 0 {
			return Record{Line: 1, Err: &LineError{File: file, Line: 1,
				Msg: fmt.Sprintf("trace %s: no prompt, response or tool call in its %d span(s) yet", id, len(spans))}}, "vercel_ai"
		}
		t.Source = model.Source{File: file, Format: "vercel_ai", Line: 1}
		return Record{Line: 1, Trace: t}, "vercel_ai"
	}
	return spanRecord(file, "otel", id, spans, otelTrace), "otel"
}

// liveConvention names the span convention a trace's spans follow.
func liveConvention(spans []*genSpan) string {
	for _, sp := range spans {
		if sp.Attrs["openinference.span.kind"] != nil || hasAnyPrefix(sp.Attrs, "llm.") {
			return "openinference"
		}
	}
	for _, sp := range spans {
		if sp.Attrs["ai.operationId"] != nil || hasAnyPrefix(sp.Attrs, "ai.prompt") || sp.Attrs["ai.toolCall.name"] != nil {
			return "vercel_ai"
		}
	}
	return "otel"
}

// liveEnds reads the spans' end times, which the Vercel convention uses
// for the run's duration (genSpan carries only the start).
func liveEnds(records [][]byte, spans []*genSpan) map[*genSpan]int64 {
	type end struct {
		SpanID string  `json:"spanId"`
		End    otlpInt `json:"endTimeUnixNano"`
	}
	var req struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []end `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	byID := map[string]int64{}
	for _, raw := range records {
		req.ResourceSpans = nil
		if json.Unmarshal(raw, &req) != nil {
			continue
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, e := range ss.Spans {
					byID[strings.ToLower(e.SpanID)] = e.End.N
				}
			}
		}
	}
	out := make(map[*genSpan]int64, len(spans))
	for _, sp := range spans {
		out[sp] = byID[sp.SpanID]
	}
	return out
}

// LiveCheck reads one span record as LiveTrace will, so a receiver can
// refuse a malformed one before storing it.
func LiveCheck(raw []byte) error {
	_, err := LiveDecode(raw)
	return err
}

// LiveDecoded is one span record as read by LiveDecode, for
// LiveTraceFrom.
type LiveDecoded struct{ spans []*genSpan }

// LiveDecode is LiveCheck keeping what it read.
func LiveDecode(raw []byte) (*LiveDecoded, error) {
	got, _, lerr := otelDecode("request", 1, raw)
	if lerr != nil {
		return nil, lerr
	}
	return &LiveDecoded{spans: got}, nil
}

// at is the decoded spans as the record's reading at position line of a
// trace's records makes them: the same spans, that line.
func (d *LiveDecoded) at(line int) []*genSpan {
	out := make([]*genSpan, len(d.spans))
	for i, sp := range d.spans {
		c := *sp
		c.Line = line
		out[i] = &c
	}
	return out
}
