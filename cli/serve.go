package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/intake"
)

func newServeCmd() *cobra.Command {
	var files app.Files
	var httpAddr, grpcAddr, token string
	var maxBody, queue int64
	var logEvery time.Duration
	cmd := &cobra.Command{
		Use:   "serve [--otlp-http ADDR] [--otlp-grpc ADDR] [--token T]",
		Short: "Receive traces live over OpenTelemetry (OTLP/HTTP and OTLP/gRPC)",
		Long: `Serve receives OpenTelemetry spans from running agents, as any OTLP exporter sends
them: OTLP/HTTP on POST /v1/traces (application/x-protobuf or application/json, gzip
or not) and, with --otlp-grpc, the OTLP/gRPC TraceService. Spans of one trace may
arrive in many requests; each arrival rebuilds that trace from all its spans so far
(GenAI semantic conventions, OpenInference, the Vercel AI SDK: the same readers as
tracelab import) and rescores it. A request is answered 200 only once its spans are
committed; when the database cannot keep up, 429 with Retry-After.

A case a person confirmed is never relabelled: new spans for its trace say what
changed on the case, for review. The workbench open on the same database shows new
traces as they arrive.

Listening on an address other than loopback requires a token (--token or
TRACELAB_TOKEN), which every request must send as "Authorization: Bearer <token>".
GET /healthz answers with the counts. SIGINT or SIGTERM stop accepting, finish the
batches in flight, and exit 0.`,
		Example: `  # receive on 127.0.0.1:4318 into ./tracelab.db
  tracelab serve

  # then, in the agent's environment
  export OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318

  # gRPC too, reachable from other machines
  TRACELAB_TOKEN=$(openssl rand -hex 16) tracelab serve --otlp-http 0.0.0.0:4318 --otlp-grpc 0.0.0.0:4317`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if token == "" {
				token = os.Getenv("TRACELAB_TOKEN")
			}
			for _, a := range []string{httpAddr, grpcAddr} {
				if a != "" && token == "" && !loopback(a) {
					return withCode(2, fmt.Errorf("%s is not a loopback address: set --token or TRACELAB_TOKEN so only your exporters can write", a))
				}
			}
			if httpAddr == "" && grpcAddr == "" {
				return withCode(2, errors.New("nothing to listen on: give --otlp-http or --otlp-grpc"))
			}
			eng, err := openEngine(cmd, files)
			if err != nil {
				return err
			}
			defer eng.Close()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cfg := intake.Config{Token: token, MaxBody: maxBody, QueueBytes: queue, LogEvery: logEvery, Log: cmd.ErrOrStderr()}
			return serve(ctx, eng, cfg, httpAddr, grpcAddr, cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&httpAddr, "otlp-http", "127.0.0.1:4318", `OTLP/HTTP address ("" for none)`)
	fl.StringVar(&grpcAddr, "otlp-grpc", "", "OTLP/gRPC address, such as 127.0.0.1:4317 (default none)")
	fl.StringVar(&token, "token", "", "bearer token every request must carry (default $TRACELAB_TOKEN; required off loopback)")
	fl.Int64Var(&maxBody, "max-body", 16<<20, "bytes of one request, compressed and decompressed, at most")
	fl.Int64Var(&queue, "queue", 64<<20, "bytes of spans waiting for the database, at most; past that senders are told to retry")
	fl.DurationVar(&logEvery, "log-every", 5*time.Second, "how often to log the received, stored and rejected counts (0: never)")
	addScoringFlags(cmd, &files)
	return cmd
}

// loopback reports whether a listen address is on this machine only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serve listens until ctx ends, then drains: the listeners stop
// accepting, the requests in flight get their answers once their spans
// are committed, and the writer finishes.
func serve(ctx context.Context, eng *app.Engine, cfg intake.Config, httpAddr, grpcAddr string, log io.Writer) error {
	r := intake.New(eng, cfg)
	errc := make(chan error, 2)
	var hs *http.Server
	if httpAddr != "" {
		ln, err := net.Listen("tcp", httpAddr)
		if err != nil {
			r.Close()
			return withCode(2, err)
		}
		hs = &http.Server{Handler: r.Handler(), ReadHeaderTimeout: 10 * time.Second}
		fmt.Fprintf(log, "serve: OTLP/HTTP on http://%s/v1/traces\n", ln.Addr())
		go func() { errc <- hs.Serve(ln) }()
	}
	var gs *grpc.Server
	if grpcAddr != "" {
		ln, err := net.Listen("tcp", grpcAddr)
		if err != nil {
			if hs != nil {
				hs.Close()
			}
			r.Close()
			return withCode(2, err)
		}
		gs = r.GRPCServer()
		fmt.Fprintf(log, "serve: OTLP/gRPC on %s\n", ln.Addr())
		go func() { errc <- gs.Serve(ln) }()
	}
	logCtx, stopLog := context.WithCancel(ctx)
	go r.LogLoop(logCtx)
	var failed error
	select {
	case <-ctx.Done():
	case err := <-errc:
		failed = err
	}
	stopLog()
	fmt.Fprintln(log, "serve: stopping: finishing the requests in flight")
	if hs != nil {
		sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		hs.Shutdown(sctx)
		cancel()
	}
	if gs != nil {
		gs.GracefulStop()
	}
	r.Close()
	fmt.Fprintln(log, r.LogLine())
	if failed != nil && !errors.Is(failed, http.ErrServerClosed) {
		return failed
	}
	return nil
}
