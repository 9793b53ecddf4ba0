package intake

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/tracelab-dev/tracelab/app"
)

// The agent run the tests send: a GenAI invoke_agent span with two chat
// spans and an execute_tool span (semantic conventions v1.37+), ending
// children first as an SDK's batches carry them.
const (
	question = "How many active customers did we have in EMEA last quarter?"
	sqlText  = "SELECT COUNT(*) FROM customers WHERE is_active = true AND region_code LIKE 'EU%'"
)

func msgs(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// agentRun sends one agent run through tp and returns its trace id.
func agentRun(ctx context.Context, tp trace.TracerProvider, user string) string {
	tr := tp.Tracer("tracelab-test")
	t0 := time.Date(2026, 7, 3, 9, 12, 0, 0, time.UTC)
	at := func(s int) trace.SpanStartEventOption {
		return trace.WithTimestamp(t0.Add(time.Duration(s) * time.Second))
	}
	end := func(s int) trace.SpanEndOption { return trace.WithTimestamp(t0.Add(time.Duration(s) * time.Second)) }
	call := map[string]any{"type": "tool_call", "id": "call_1", "name": "run_sql", "arguments": map[string]any{"sql": sqlText}}
	userMsg := map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "content": question}}}
	ctx, root := tr.Start(ctx, "invoke_agent warehouse_analyst", at(0), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.name", "warehouse_analyst"),
		attribute.String("enduser.id", user),
		attribute.Int("gen_ai.usage.input_tokens", 2700),
		attribute.Int("gen_ai.usage.output_tokens", 100)))
	_, chat1 := tr.Start(ctx, "chat gpt-4", at(1), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.request.model", "gpt-4"),
		attribute.Int("gen_ai.usage.input_tokens", 1200),
		attribute.Int("gen_ai.usage.output_tokens", 80),
		attribute.StringSlice("gen_ai.response.finish_reasons", []string{"tool_calls"}),
		attribute.String("gen_ai.tool.definitions", msgs([]any{map[string]any{"type": "function", "name": "run_sql",
			"description": "Run a read-only SQL query on the warehouse.",
			"parameters":  map[string]any{"type": "object", "properties": map[string]any{"sql": map[string]any{"type": "string"}}, "required": []any{"sql"}}}})),
		attribute.String("gen_ai.input.messages", msgs([]any{userMsg})),
		attribute.String("gen_ai.output.messages", msgs([]any{map[string]any{"role": "assistant", "parts": []any{
			map[string]any{"type": "reasoning", "content": "is_active sounds like the right flag."}, call}}}))))
	chat1.End(end(2))
	_, tool := tr.Start(ctx, "execute_tool run_sql", at(2), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", "run_sql"),
		attribute.String("gen_ai.tool.call.id", "call_1"),
		attribute.String("gen_ai.tool.call.arguments", msgs(map[string]any{"sql": sqlText})),
		attribute.String("gen_ai.tool.call.result", `{"rows":[{"count":1284}],"as_of":"2026-07-03T08:00:00Z"}`),
		attribute.Float64("tracelab.test.ratio", 0.25),
		attribute.Bool("tracelab.test.flag", true)))
	tool.End(end(3))
	_, chat2 := tr.Start(ctx, "chat gpt-4", at(3), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.Int("gen_ai.usage.input_tokens", 1500),
		attribute.Int("gen_ai.usage.output_tokens", 20),
		attribute.String("gen_ai.input.messages", msgs([]any{userMsg,
			map[string]any{"role": "assistant", "parts": []any{call}},
			map[string]any{"role": "tool", "parts": []any{map[string]any{"type": "tool_call_response", "id": "call_1", "response": map[string]any{"rows": []any{map[string]any{"count": 1284}}}}}}})),
		attribute.String("gen_ai.output.messages", msgs([]any{map[string]any{"role": "assistant", "parts": []any{
			map[string]any{"type": "text", "content": "We had 1,284 active customers in EMEA last quarter."}}, "finish_reason": "stop"}}))))
	chat2.End(end(4))
	root.End(end(5))
	return root.SpanContext().TraceID().String()
}

// openEngine opens an engine on a new SQLite file.
func openEngine(t *testing.T, name string) (*app.Engine, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	// As tracelab serve opens it (cli/serve.go).
	eng, err := app.OpenWith(context.Background(), path, app.Files{}, app.OpenOptions{SmallWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, path
}

// startHTTP serves a receiver on a loopback port.
func startHTTP(t *testing.T, eng Ingester, cfg Config) (*Receiver, string) {
	t.Helper()
	r := New(eng, cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: r.Handler()}
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Shutdown(context.Background())
		r.Close()
	})
	return r, ln.Addr().String()
}

// newProvider is a tracer provider exporting every span as it ends (one
// request per span: the run arrives split across requests) and recording
// them for the file the test imports.
func newProvider(exp sdktrace.SpanExporter) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "generic-warehouse"))),
		sdktrace.WithSpanProcessor(rec),
		sdktrace.WithSyncer(exp))
	return tp, rec
}

// collectorFile writes spans as the collector's file exporter does: one
// OTLP JSON request per line, written here from the SDK's own span data.
func collectorFile(t *testing.T, spans []sdktrace.ReadOnlySpan) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spans.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range spans {
		sp := map[string]any{
			"traceId": s.SpanContext().TraceID().String(), "spanId": s.SpanContext().SpanID().String(),
			"name": s.Name(), "kind": int(s.SpanKind()),
			"startTimeUnixNano": strconv.FormatInt(s.StartTime().UnixNano(), 10),
			"endTimeUnixNano":   strconv.FormatInt(s.EndTime().UnixNano(), 10),
			"attributes":        kvs(s.Attributes()),
		}
		if s.Parent().IsValid() {
			sp["parentSpanId"] = s.Parent().SpanID().String()
		}
		if s.Status().Code == codes.Error {
			sp["status"] = map[string]any{"code": 2}
		}
		req := map[string]any{"resourceSpans": []any{map[string]any{
			"resource":   map[string]any{"attributes": kvs(s.Resource().Attributes())},
			"scopeSpans": []any{map[string]any{"scope": map[string]any{"name": s.InstrumentationScope().Name}, "spans": []any{sp}}}}}}
		b, _ := json.Marshal(req)
		fmt.Fprintf(f, "%s\n", b)
	}
	return path
}

func kvs(attrs []attribute.KeyValue) []any {
	var out []any
	for _, a := range attrs {
		out = append(out, map[string]any{"key": string(a.Key), "value": anyValue(a.Value)})
	}
	return out
}

func anyValue(v attribute.Value) map[string]any {
	switch v.Type() {
	case attribute.BOOL:
		return map[string]any{"boolValue": v.AsBool()}
	case attribute.INT64:
		return map[string]any{"intValue": strconv.FormatInt(v.AsInt64(), 10)}
	case attribute.FLOAT64:
		return map[string]any{"doubleValue": v.AsFloat64()}
	case attribute.STRINGSLICE:
		var vals []any
		for _, s := range v.AsStringSlice() {
			vals = append(vals, map[string]any{"stringValue": s})
		}
		return map[string]any{"arrayValue": map[string]any{"values": vals}}
	}
	return map[string]any{"stringValue": v.AsString()}
}

// sameAsFileImport checks the live trace equals the file import of the
// same spans (source aside: one came from a file, the other over OTLP).
func sameAsFileImport(t *testing.T, live *app.Engine, id string, spans []sdktrace.ReadOnlySpan) {
	t.Helper()
	ctx := context.Background()
	got, err := live.Traces.Trace(ctx, id)
	if err != nil {
		t.Fatalf("live trace %s: %v", id, err)
	}
	fileEng, _ := openEngine(t, "file.db")
	path := collectorFile(t, spans)
	res, err := fileEng.Imports.File(ctx, path, app.ImportOptions{Score: true})
	if err != nil {
		t.Fatalf("file import: %v", err)
	}
	if res.Format != "otel" {
		t.Fatalf("file read as %q, want otel", res.Format)
	}
	want, err := fileEng.Traces.Trace(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Source.Format != "otel" || got.Source.File != "otlp" {
		t.Errorf("live source = %+v, want otlp/otel", got.Source)
	}
	got.Source = want.Source
	gb, _ := json.MarshalIndent(got, "", " ")
	wb, _ := json.MarshalIndent(want, "", " ")
	if string(gb) != string(wb) {
		t.Errorf("live trace differs from the file import of the same spans:\nlive: %s\nfile: %s", gb, wb)
	}
	if got.Question != question || len(got.Steps) < 4 || got.AsUser == "" {
		t.Errorf("live trace lacks the run: question %q, %d steps, as_user %q", got.Question, len(got.Steps), got.AsUser)
	}
}
