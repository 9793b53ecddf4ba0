package intake

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/tracelab-dev/tracelab/app"
)

// Handler serves OTLP/HTTP: POST /v1/traces and GET /healthz.
func (r *Receiver) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/traces", r.traces)
	mux.HandleFunc("/healthz", r.healthz)
	return mux
}

const (
	ctProto = "application/x-protobuf"
	ctJSON  = "application/json"
)

// httpError is a refusal with its status.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func (r *Receiver) traces(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST an OTLP ExportTraceServiceRequest here", http.StatusMethodNotAllowed)
		return
	}
	ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if !r.authorized(req.Header.Get("Authorization")) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="tracelab"`)
		writeStatus(w, ct, http.StatusUnauthorized, codes.Unauthenticated, "a bearer token is required: set OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<token>")
		return
	}
	if ct != ctProto && ct != ctJSON {
		http.Error(w, fmt.Sprintf("content type %q: expected %s or %s", req.Header.Get("Content-Type"), ctProto, ctJSON), http.StatusUnsupportedMediaType)
		return
	}
	if !r.acquire() {
		r.busy(w, ct, errBusy)
		return
	}
	b, herr := r.decodeHTTP(req, ct)
	r.release()
	if herr != nil {
		writeStatus(w, ct, herr.code, codes.InvalidArgument, herr.msg)
		return
	}
	if err := r.submit(req.Context(), b); err != nil {
		r.busy(w, ct, err)
		return
	}
	resp := &coltracepb.ExportTraceServiceResponse{}
	if b.rejected > 0 {
		resp.PartialSuccess = &coltracepb.ExportTracePartialSuccess{RejectedSpans: int64(b.rejected), ErrorMessage: b.reason}
	}
	writeMsg(w, ct, http.StatusOK, resp)
}

// busy answers a request the writer could not take (or failed to write)
// with a retryable status, as the OTLP specification asks.
func (r *Receiver) busy(w http.ResponseWriter, ct string, err error) {
	w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	switch {
	case errors.Is(err, errBusy):
		writeStatus(w, ct, http.StatusTooManyRequests, codes.ResourceExhausted, err.Error())
	case errors.Is(err, context.Canceled):
		writeStatus(w, ct, http.StatusServiceUnavailable, codes.Unavailable, "request cancelled")
	default:
		writeStatus(w, ct, http.StatusServiceUnavailable, codes.Unavailable, "not stored: "+err.Error())
	}
}

// authorized checks the bearer token in constant time.
func (r *Receiver) authorized(header string) bool {
	if r.cfg.Token == "" {
		return true
	}
	got, ok := strings.CutPrefix(header, "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(r.cfg.Token)) == 1
}

// decodeHTTP reads, inflates and decodes a body, every step bounded by
// MaxBody.
func (r *Receiver) decodeHTTP(req *http.Request, ct string) (*batch, *httpError) {
	body, herr := r.readBody(req)
	if herr != nil {
		return nil, herr
	}
	var b *batch
	var err error
	if ct == ctProto {
		var msg coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &msg); err != nil {
			return nil, &httpError{http.StatusBadRequest, "not an OTLP protobuf ExportTraceServiceRequest: " + err.Error()}
		}
		b, err = fromProto(&msg)
	} else {
		b, err = fromJSON(body)
	}
	if err != nil {
		return nil, &httpError{http.StatusBadRequest, err.Error()}
	}
	if err := checkRecords(b); err != nil {
		return nil, &httpError{http.StatusBadRequest, err.Error()}
	}
	return b, nil
}

// checkRecords reads every span record as the importers will, so a
// request with a malformed span is refused whole and writes nothing. What
// it read goes with the span to the writer, which need not read it again
// (on this side, requests are read beside each other); it counts in the
// batch's bytes, as decodedBytes of each record byte (see fit).
func checkRecords(b *batch) error {
	for i := range b.spans {
		sp := &b.spans[i]
		if err := app.DecodeLiveSpan(sp); err != nil {
			return fmt.Errorf("span %d (trace %s, span %s): %w", i, sp.TraceID, sp.SpanID, err)
		}
		b.decoded += decodedBytes * len(sp.Record)
	}
	b.bytes += b.decoded
	return nil
}

// fit drops what checkRecords read when, with it, the batch could never
// be admitted to a queue of max bytes: such a request is admitted as its
// records alone would be, and the writer reads them again.
func (b *batch) fit(max int64) {
	if int64(b.bytes) <= max || b.decoded == 0 {
		return
	}
	for i := range b.spans {
		b.spans[i].Decoded = nil
	}
	b.bytes -= b.decoded
	b.decoded = 0
}

// decodedBytes is about what a decoded span holds in memory per byte of
// its record (1.8 for BenchmarkServe's GenAI spans), rounded up.
const decodedBytes = 2

// readBody reads the request body, inflating gzip, at most MaxBody bytes
// either way (a gzip bomb stops at the limit).
func (r *Receiver) readBody(req *http.Request) ([]byte, *httpError) {
	max := r.cfg.MaxBody
	var src io.Reader = http.MaxBytesReader(nil, req.Body, max)
	switch enc := strings.ToLower(strings.TrimSpace(req.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(src)
		if err != nil {
			if tooLarge(err) {
				return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", max)}
			}
			return nil, &httpError{http.StatusBadRequest, "gzip: " + err.Error()}
		}
		defer zr.Close()
		src = zr
	default:
		return nil, &httpError{http.StatusUnsupportedMediaType, fmt.Sprintf("content encoding %q: expected gzip or none", enc)}
	}
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(src, max+1))
	switch {
	case tooLarge(err) || n > max:
		return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes (after decompression)", max)}
	case err != nil:
		return nil, &httpError{http.StatusBadRequest, "reading the body: " + err.Error()}
	}
	return buf.Bytes(), nil
}

func tooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}

// writeStatus writes an OTLP error body: a google.rpc.Status in the
// request's encoding.
func writeStatus(w http.ResponseWriter, ct string, code int, c codes.Code, msg string) {
	writeMsg(w, ct, code, &status.Status{Code: int32(c), Message: msg})
}

func writeMsg(w http.ResponseWriter, ct string, code int, m proto.Message) {
	var body []byte
	if ct == ctJSON {
		body, _ = protojson.Marshal(m)
	} else {
		ct = ctProto
		body, _ = proto.Marshal(m)
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(code)
	w.Write(body)
}

// healthz says the receiver is up, with its counts.
func (r *Receiver) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", ctJSON)
	json.NewEncoder(w).Encode(map[string]any{
		"status": "ok", "received": r.Received.Load(), "stored": r.Stored.Load(),
		"rejected": r.Rejected.Load(), "refused": r.Refused.Load(), "queued_bytes": r.queued.Load(),
	})
}
