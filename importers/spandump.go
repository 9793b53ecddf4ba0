package importers

// Span dumps: one span outside any OTLP envelope, written as {scopeName,
// spanName, attributes} (LangWatch's canonicalisation fixtures, span
// processors that log what they see), its attributes a plain map whose
// values may still be OTLP AnyValue objects ({"values": [{"stringValue":
// …}]} for an array, as the AI SDK's ai.prompt.tools). The span goes to the
// span readers as it is: otel.go for gen_ai.* attributes (the newest
// gen_ai.input.messages / gen_ai.output.messages included), vercel_ai.go
// for the AI SDK's ai.* ones, so a dump and an OTLP export of the same
// span give the same steps.

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// spanDumpHead reports whether a head object is a span dump.
func spanDumpHead(m map[string]json.RawMessage) bool {
	if m == nil || m["spanName"] == nil || m["traceId"] != nil {
		return false
	}
	a := bytes.TrimSpace(m["attributes"])
	return len(a) > 0 && a[0] == '{'
}

// spanDump reads a decoded span dump into a span of its own trace (a dump
// has no trace id: traceID names it); nil when m is no span dump.
func spanDump(m map[string]any, traceID string, line int) *genSpan {
	if m == nil || gStr(m, "spanName") == "" || m["traceId"] != nil {
		return nil
	}
	attrs := gObj(m, "attributes")
	if attrs == nil {
		return nil
	}
	plain := make(map[string]any, len(attrs))
	for k, v := range attrs {
		plain[k] = anyValue(v)
	}
	res := map[string]any{}
	if s := gStr(m, "scopeName"); s != "" {
		res["otel.scope.name"] = s
	}
	return &genSpan{TraceID: traceID, SpanID: traceID, Name: gStr(m, "spanName"), Attrs: plain, Res: res, Line: line}
}

// anyValue turns an OTLP AnyValue object left in a plain attribute map
// into the value it holds; anything else is returned as it is.
func anyValue(v any) any {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return v
	}
	for k, x := range m {
		switch k {
		case "stringValue", "boolValue", "bytesValue":
			return x
		case "intValue", "doubleValue":
			if s, ok := x.(string); ok {
				if _, err := strconv.ParseFloat(s, 64); err == nil {
					return json.Number(s)
				}
			}
			return x
		case "arrayValue":
			return anyValue(x)
		case "values": // the inside of an arrayValue
			items, ok := x.([]any)
			if !ok {
				return v
			}
			out := make([]any, len(items))
			for i, it := range items {
				out[i] = anyValue(it)
			}
			return out
		case "kvlistValue":
			kv := asObj(x)
			out := map[string]any{}
			for _, e := range gArr(kv, "values") {
				em := asObj(e)
				out[gStr(em, "key")] = anyValue(em["value"])
			}
			return out
		}
	}
	return v
}
