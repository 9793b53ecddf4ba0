package intake

import (
	"context"
	"errors"
	"strings"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// GRPCServer is a gRPC server with the OTLP TraceService registered, its
// messages bounded by MaxBody and its calls checked for the token.
func (r *Receiver) GRPCServer() *grpc.Server {
	s := grpc.NewServer(grpc.MaxRecvMsgSize(int(r.cfg.MaxBody)), grpc.UnaryInterceptor(r.grpcAuth))
	coltracepb.RegisterTraceServiceServer(s, &traceService{r: r})
	return s
}

// grpcAuth checks the bearer token of every call in constant time.
func (r *Receiver) grpcAuth(ctx context.Context, req any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
	if r.cfg.Token != "" {
		md, _ := metadata.FromIncomingContext(ctx)
		ok := false
		for _, v := range md.Get("authorization") {
			if r.authorized(strings.TrimSpace(v)) {
				ok = true
			}
		}
		if !ok {
			return nil, status.Error(codes.Unauthenticated, "a bearer token is required: set OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<token>")
		}
	}
	return next(ctx, req)
}

type traceService struct {
	coltracepb.UnimplementedTraceServiceServer
	r *Receiver
}

// Export stores a request's spans before it answers.
func (t *traceService) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	r := t.r
	if !r.acquire() {
		return nil, retryable(codes.ResourceExhausted, errBusy.Error())
	}
	b, err := fromProto(req)
	if err == nil {
		err = checkRecords(b)
	}
	r.release()
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if err := r.submit(ctx, b); err != nil {
		if errors.Is(err, errBusy) {
			return nil, retryable(codes.ResourceExhausted, err.Error())
		}
		return nil, retryable(codes.Unavailable, "not stored: "+err.Error())
	}
	resp := &coltracepb.ExportTraceServiceResponse{}
	if b.rejected > 0 {
		resp.PartialSuccess = &coltracepb.ExportTracePartialSuccess{RejectedSpans: int64(b.rejected), ErrorMessage: b.reason}
	}
	return resp, nil
}

// retryable is a status the OTLP exporters retry, with the delay they
// should wait (RetryInfo), as the specification asks.
func retryable(c codes.Code, msg string) error {
	st := status.New(c, msg)
	if d, err := st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(retryAfter * 1e9)}); err == nil {
		st = d
	}
	return st.Err()
}
