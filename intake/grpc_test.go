package intake

import (
	"context"
	"net"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
)

// TestGRPCExporter sends the agent run with the SDK's OTLP/gRPC exporter,
// one span per call, with a token; the trace equals the file import.
func TestGRPCExporter(t *testing.T) {
	ctx := context.Background()
	eng, _ := openEngine(t, "live.db")
	r := New(eng.Imports, Config{Token: "s3cret"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := r.GRPCServer()
	go gs.Serve(ln)
	t.Cleanup(func() { gs.GracefulStop(); r.Close() })

	h := &exportErrors{}
	otel.SetErrorHandler(h)
	exp, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(ln.Addr().String()), otlptracegrpc.WithInsecure(),
		otlptracegrpc.WithHeaders(map[string]string{"authorization": "Bearer s3cret"}))
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

	// Without the token the exporter is refused and nothing is stored.
	h.errs = nil
	bad, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(ln.Addr().String()), otlptracegrpc.WithInsecure(),
		otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}))
	if err != nil {
		t.Fatal(err)
	}
	tp2, _ := newProvider(bad)
	agentRun(ctx, tp2, "someone.else")
	tp2.Shutdown(ctx)
	if len(h.errs) == 0 {
		t.Fatal("an export without the token was not refused")
	}
	if got := r.Stored.Load(); got != 4 {
		t.Fatalf("stored %d spans after the refused export, want 4", got)
	}
}
