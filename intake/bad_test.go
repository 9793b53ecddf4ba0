package intake

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/tracelab-dev/tracelab/app"
)

// chatRequest is a protobuf request of one chat span per trace id n
// (question and answer: a trace of its own).
func chatRequest(ids ...int) *coltracepb.ExportTraceServiceRequest {
	var spans []*tracepb.Span
	for _, n := range ids {
		tid := make([]byte, 16)
		tid[0], tid[13], tid[14], tid[15] = 0x42, byte(n>>16), byte(n>>8), byte(n)
		spans = append(spans, &tracepb.Span{TraceId: tid, SpanId: []byte{1, 2, 3, 4, 5, 6, 7, 8}, Name: "chat",
			StartTimeUnixNano: 1751533921000000000,
			Attributes: []*commonpb.KeyValue{
				{Key: "gen_ai.operation.name", Value: str("chat")},
				{Key: "gen_ai.input.messages", Value: str(fmt.Sprintf(`[{"role":"user","parts":[{"type":"text","content":"question %d?"}]}]`, n))},
				{Key: "gen_ai.output.messages", Value: str(`[{"role":"assistant","parts":[{"type":"text","content":"42"}]}]`)},
			}})
	}
	return &coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans}}}}}
}

func str(s string) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
}

func mustProto(t *testing.T, m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// post sends a body and returns the status, the Retry-After and the body.
func post(t *testing.T, url, ct, enc, auth string, body []byte) (int, string, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	if enc != "" {
		req.Header.Set("Content-Encoding", enc)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), b
}

// TestBadInput: every bad request gets its status and writes nothing.
func TestBadInput(t *testing.T) {
	eng, _ := openEngine(t, "live.db")
	r, addr := startHTTP(t, eng.Imports, Config{Token: "s3cret", MaxBody: 1 << 20})
	url := "http://" + addr + "/v1/traces"
	good := mustProto(t, chatRequest(1))
	zeros := make([]byte, 64<<20)
	badInt := `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174",` +
		`"attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"lots"}}]}]}]}]}`
	const bearer = "Bearer s3cret"
	for _, tc := range []struct {
		name, ct, enc, auth string
		body                []byte
		code                int
		says                string
	}{
		{"garbage protobuf", ctProto, "", bearer, []byte("\xff\xff\xff\xff garbage"), 400, "not an OTLP protobuf"},
		{"truncated protobuf", ctProto, "", bearer, good[:len(good)-7], 400, "not an OTLP protobuf"},
		{"garbage json", ctJSON, "", bearer, []byte(`{"resourceSpans": [`), 400, "not an OTLP JSON"},
		{"bad attribute value", ctJSON, "", bearer, []byte(badInt), 400, "expected an integer"},
		{"gzip bomb", ctProto, "gzip", bearer, gz(zeros), 413, "after decompression"},
		{"too large", ctProto, "", bearer, zeros[:2<<20], 413, "over"},
		{"broken gzip", ctProto, "gzip", bearer, []byte("not gzip at all"), 400, "gzip"},
		{"unknown encoding", ctProto, "br", bearer, good, 415, "content encoding"},
		{"unknown content type", "text/plain", "", bearer, good, 415, "content type"},
		{"missing token", ctProto, "", "", good, 401, "bearer token"},
		{"wrong token", ctProto, "", "Bearer s3cre", good, 401, "bearer token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := post(t, url, tc.ct, tc.enc, tc.auth, tc.body)
			if code != tc.code || !strings.Contains(string(body), tc.says) {
				t.Fatalf("got %d %q, want %d saying %q", code, body, tc.code, tc.says)
			}
		})
	}
	mark, err := eng.Traces.ChangeMark(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if mark[1] != 0 || r.Stored.Load() != 0 {
		t.Fatalf("bad requests wrote %d trace(s), %d span(s)", mark[1], r.Stored.Load())
	}
	// A good request with one unusable span: stored, the span counted.
	req := chatRequest(2)
	req.ResourceSpans[0].ScopeSpans[0].Spans = append(req.ResourceSpans[0].ScopeSpans[0].Spans, &tracepb.Span{TraceId: make([]byte, 16), SpanId: []byte{1}})
	code, _, body := post(t, url, ctProto, "", bearer, mustProto(t, req))
	var resp coltracepb.ExportTraceServiceResponse
	if code != 200 || proto.Unmarshal(body, &resp) != nil || resp.GetPartialSuccess().GetRejectedSpans() != 1 ||
		!strings.Contains(resp.GetPartialSuccess().GetErrorMessage(), "trace id must be 16 bytes") {
		t.Fatalf("partial success: %d %v", code, resp.GetPartialSuccess())
	}
	if r.Stored.Load() != 1 || r.Rejected.Load() != 1 {
		t.Fatalf("stored %d rejected %d, want 1 and 1", r.Stored.Load(), r.Rejected.Load())
	}
}

// gated holds the writer until released, so a test can fill the queue.
type gated struct {
	eng  *app.Engine
	gate chan struct{}
}

func (g *gated) IngestLive(ctx context.Context, file string, spans []app.LiveSpan) (app.LiveResult, error) {
	<-g.gate
	return g.eng.Imports.IngestLive(ctx, file, spans)
}

// TestFlood: a flood of spans with unique trace ids while the database is
// held is refused with 429 and Retry-After past the queue's bound, the
// admitted requests are all stored once it is released, and the heap
// stays bounded.
func TestFlood(t *testing.T) {
	eng, _ := openEngine(t, "live.db")
	g := &gated{eng: eng, gate: make(chan struct{})}
	const queue = 64 << 10
	r, addr := startHTTP(t, g, Config{QueueBytes: queue, Decoders: 8})
	url := "http://" + addr + "/v1/traces"
	var mu sync.Mutex
	codes := map[int]int{}
	var maxQueued int64
	var wg sync.WaitGroup
	var release sync.Once
	const senders, each, perReq = 8, 25, 40
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				ids := make([]int, perReq)
				for k := range ids {
					ids[k] = (s*each+i)*perReq + k
				}
				code, retry, _ := post(t, url, ctProto, "", "", mustProto(t, chatRequest(ids...)))
				mu.Lock()
				codes[code]++
				if q := r.Queued(); q > maxQueued {
					maxQueued = q
				}
				mu.Unlock()
				if code == 429 && retry == "" {
					t.Errorf("429 without Retry-After")
				}
				if code == 429 {
					release.Do(func() { close(g.gate) }) // the database comes back
				}
			}
		}()
	}
	wg.Wait()
	release.Do(func() { close(g.gate) })
	if codes[429] == 0 || codes[200] == 0 || codes[200]+codes[429]+codes[503] != senders*each {
		t.Fatalf("statuses %v: want both 200 and 429, nothing else", codes)
	}
	if maxQueued > queue {
		t.Fatalf("queue held %d bytes, bound %d", maxQueued, queue)
	}
	if got := r.Stored.Load(); got != int64(codes[200]*perReq) {
		t.Fatalf("stored %d spans, want %d (every acknowledged one)", got, codes[200]*perReq)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > 128<<20 {
		t.Fatalf("heap in use %d MiB after the flood", ms.HeapInuse>>20)
	}
}
