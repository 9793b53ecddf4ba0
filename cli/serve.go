package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tracelab-dev/tracelab/app"
)

func newServeCmd(p Program) *cobra.Command {
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
			// The receiver commits a small transaction per batch of
			// requests (store.Options.SmallWrites).
			eng, err := openEngine(cmd, files, func(o *app.OpenOptions) { o.SmallWrites = true })
			if err != nil {
				return err
			}
			defer eng.Close()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			o := app.ServeOptions{Token: token, MaxBody: maxBody, QueueBytes: queue, LogEvery: logEvery, Log: cmd.ErrOrStderr()}
			return listen(ctx, p, eng, o, httpAddr, grpcAddr, cmd.ErrOrStderr())
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

// listen opens the listeners serve was given and hands them to the
// receiver main wired in (intake.Serve). A listener that cannot open is a
// usage error (exit 2), and closes the one opened before it.
func listen(ctx context.Context, p Program, eng *app.Engine, o app.ServeOptions, httpAddr, grpcAddr string, log io.Writer) error {
	if p.Serve == nil {
		return errors.New("this build has no live receiver")
	}
	var httpLn, grpcLn net.Listener
	if httpAddr != "" {
		ln, err := net.Listen("tcp", httpAddr)
		if err != nil {
			return withCode(2, err)
		}
		httpLn = ln
		fmt.Fprintf(log, "serve: OTLP/HTTP on http://%s/v1/traces\n", ln.Addr())
	}
	if grpcAddr != "" {
		ln, err := net.Listen("tcp", grpcAddr)
		if err != nil {
			if httpLn != nil {
				httpLn.Close()
			}
			return withCode(2, err)
		}
		grpcLn = ln
		fmt.Fprintf(log, "serve: OTLP/gRPC on %s\n", ln.Addr())
	}
	return p.Serve(ctx, eng, o, httpLn, grpcLn, log)
}
