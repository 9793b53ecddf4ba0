package intake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"google.golang.org/grpc"

	"github.com/tracelab-dev/tracelab/app"
)

// Serve receives on the listeners given (nil: not that protocol) until
// ctx ends, then drains: the listeners stop accepting, the requests in
// flight get their answers once their spans are committed, and the
// writer finishes. It is what `tracelab serve` runs; main hands it to the
// command line, which talks to the engine only.
func Serve(ctx context.Context, eng *app.Engine, o app.ServeOptions, httpLn, grpcLn net.Listener, log io.Writer) error {
	r := New(eng.Imports, Config{Token: o.Token, MaxBody: o.MaxBody, QueueBytes: o.QueueBytes, LogEvery: o.LogEvery, Log: o.Log})
	errc := make(chan error, 2)
	var hs *http.Server
	if httpLn != nil {
		hs = &http.Server{Handler: r.Handler(), ReadHeaderTimeout: 10 * time.Second}
		go func() { errc <- hs.Serve(httpLn) }()
	}
	var gs *grpc.Server
	if grpcLn != nil {
		gs = r.GRPCServer()
		go func() { errc <- gs.Serve(grpcLn) }()
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
