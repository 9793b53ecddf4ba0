package intake

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
)

// exportErrors collects what the SDK reports through its global error
// handler: a syncer's failed export is only told there.
type exportErrors struct{ errs []error }

func (h *exportErrors) Handle(err error) { h.errs = append(h.errs, err) }

// TestHTTPExporter sends one agent run, split across four requests, with
// the OpenTelemetry Go SDK's OTLP/HTTP exporter in each encoding; each
// request is answered only once stored, so the trace is there the moment
// the last span is acknowledged, and equals the file import of the spans.
func TestHTTPExporter(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []otlptracehttp.Option
	}{
		{"protobuf", []otlptracehttp.Option{otlptracehttp.WithEncoding(otlptracehttp.EncodingProtobuf)}},
		{"protobuf-gzip", []otlptracehttp.Option{otlptracehttp.WithCompression(otlptracehttp.GzipCompression)}},
		{"json", []otlptracehttp.Option{otlptracehttp.WithEncoding(otlptracehttp.EncodingJSON)}},
		{"json-gzip-token", []otlptracehttp.Option{otlptracehttp.WithEncoding(otlptracehttp.EncodingJSON),
			otlptracehttp.WithCompression(otlptracehttp.GzipCompression),
			otlptracehttp.WithHeaders(map[string]string{"Authorization": "Bearer s3cret"})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			eng, _ := openEngine(t, "live.db")
			cfg := Config{}
			if tc.name == "json-gzip-token" {
				cfg.Token = "s3cret"
			}
			r, addr := startHTTP(t, eng.Imports, cfg)
			h := &exportErrors{}
			otel.SetErrorHandler(h)
			exp, err := otlptracehttp.New(ctx, append([]otlptracehttp.Option{otlptracehttp.WithEndpoint(addr), otlptracehttp.WithInsecure()}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			tp, rec := newProvider(exp)
			id := agentRun(ctx, tp, "fin.analyst.02")
			if err := tp.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			if len(h.errs) > 0 {
				t.Fatalf("exporter errors: %v", h.errs)
			}
			if got := r.Stored.Load(); got != 4 {
				t.Fatalf("stored %d spans, want 4 (%s)", got, r.LogLine())
			}
			sameAsFileImport(t, eng, id, rec.Ended())
		})
	}
}
