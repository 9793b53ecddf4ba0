package intake

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// benchRequest is one request of traces × 5 GenAI spans (an agent span,
// two chat spans, a tool span with SQL the scorer parses, and a second
// tool span), trace ids starting at first.
func benchRequest(first, traces int) []byte {
	var spans []*tracepb.Span
	for n := first; n < first+traces; n++ {
		tid := make([]byte, 16)
		tid[0], tid[12], tid[13], tid[14], tid[15] = 0x7a, byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
		sid := func(k byte) []byte { return []byte{0x11, k, 0, 0, 0, 0, byte(n >> 8), byte(n)} }
		// Every statement distinct, as real agents' are: literals differ.
		q := fmt.Sprintf("How many active customers did region %d have since day %d?", n%50, n%365)
		sql := fmt.Sprintf(`{"sql":"SELECT COUNT(*) FROM customers c JOIN regions r ON r.id = c.region_id WHERE c.is_active AND r.code = 'R%d' AND c.created_at >= DATE '2026-01-01' + %d"}`, n, n)
		user := fmt.Sprintf(`[{"role":"user","parts":[{"type":"text","content":%q}]}]`, q)
		call := `{"type":"tool_call","id":"call_1","name":"run_sql","arguments":` + sql + `}`
		kv := func(k, v string) *commonpb.KeyValue { return &commonpb.KeyValue{Key: k, Value: str(v)} }
		at := uint64(1751533920000000000)
		spans = append(spans,
			&tracepb.Span{TraceId: tid, SpanId: sid(1), Name: "invoke_agent", StartTimeUnixNano: at, Attributes: []*commonpb.KeyValue{
				kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "bench"), kv("enduser.id", "fin.analyst.02")}},
			&tracepb.Span{TraceId: tid, SpanId: sid(2), ParentSpanId: sid(1), Name: "chat", StartTimeUnixNano: at + 1e9, Attributes: []*commonpb.KeyValue{
				kv("gen_ai.operation.name", "chat"), kv("gen_ai.request.model", "gpt-4"), kv("gen_ai.input.messages", user),
				kv("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"reasoning","content":"is_active probably is the flag"},`+call+`]}]`)}},
			&tracepb.Span{TraceId: tid, SpanId: sid(3), ParentSpanId: sid(1), Name: "execute_tool", StartTimeUnixNano: at + 2e9, Attributes: []*commonpb.KeyValue{
				kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "run_sql"), kv("gen_ai.tool.call.id", "call_1"),
				kv("gen_ai.tool.call.arguments", sql), kv("gen_ai.tool.call.result", `{"rows":[{"count":1284}],"as_of":"2026-07-03T08:00:00Z"}`)}},
			&tracepb.Span{TraceId: tid, SpanId: sid(4), ParentSpanId: sid(1), Name: "chat", StartTimeUnixNano: at + 3e9, Attributes: []*commonpb.KeyValue{
				kv("gen_ai.operation.name", "chat"), kv("gen_ai.input.messages", user),
				kv("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"1,284"}]}]`)}},
			&tracepb.Span{TraceId: tid, SpanId: sid(5), ParentSpanId: sid(1), Name: "execute_tool", StartTimeUnixNano: at + 4e9, Attributes: []*commonpb.KeyValue{
				kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "log"), kv("gen_ai.tool.call.arguments", `{"msg":"done"}`)}},
		)
	}
	req := &coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource:   &resourcepb.Resource{Attributes: []*commonpb.KeyValue{{Key: "service.name", Value: str("bench-warehouse")}}},
		ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans}}}}}
	b, _ := proto.Marshal(req)
	return b
}

func send(url string, body []byte) (int, time.Duration, error) {
	start := time.Now()
	resp, err := http.Post(url, ctProto, bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, time.Since(start), nil
}

func peakRSS() string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return fmt.Sprintf("%d MiB", kb>>10)
		}
	}
	return "?"
}

// BenchmarkServe measures the receiver over real HTTP into SQLite with
// scoring: spans per second sustained by 4 senders as fast as they are
// answered (each request 100 traces × 5 spans, about an SDK's batch), then the acknowledgement
// latency at a steady 1,000 spans/s for 10 s, then the process's peak RSS
// (senders included). Run: go test -run XXX -bench BenchmarkServe -benchtime 1x ./intake
func BenchmarkServe(b *testing.B) {
	for range b.N {
		eng, _ := openEngine(&testing.T{}, "bench.db")
		_ = eng
		tb := &testing.T{}
		r, addr := startHTTP(tb, eng.Imports, Config{})
		url := "http://" + addr + "/v1/traces"
		const perReq, senders, reqs = 100, 4, 25 // 500 spans a request (the SDK's batch is 512), 50,000 spans
		var next atomic.Int64
		var refused atomic.Int64
		start := time.Now()
		var wg sync.WaitGroup
		for range senders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1) - 1
					if i >= reqs*senders {
						return
					}
					body := benchRequest(int(i)*perReq, perReq)
					for {
						code, _, err := send(url, body)
						if err != nil {
							b.Error(err)
							return
						}
						if code == 200 {
							break
						}
						refused.Add(1)
						time.Sleep(100 * time.Millisecond)
					}
				}
			}()
		}
		wg.Wait()
		el := time.Since(start)
		spans := float64(reqs * senders * perReq * 5)
		fmt.Printf("sustained: %.0f spans stored and scored in %.1fs = %.0f spans/s (%d refused-and-retried requests)\n",
			spans, el.Seconds(), spans/el.Seconds(), refused.Load())
		b.ReportMetric(spans/el.Seconds(), "spans/s")

		// Steady 1,000 spans/s: 20 requests of 50 spans a second.
		var lat []time.Duration
		var mu sync.Mutex
		tick := time.NewTicker(50 * time.Millisecond)
		base := reqs * senders * perReq
		const steadyPer = 10 // traces a request: 50 spans, 20 requests a second
		var wg2 sync.WaitGroup
		for i := range 200 {
			<-tick.C
			wg2.Add(1)
			go func() {
				defer wg2.Done()
				code, d, err := send(url, benchRequest(base+i*steadyPer, steadyPer))
				if err != nil || code != 200 {
					b.Errorf("steady request: %d %v", code, err)
					return
				}
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}()
		}
		tick.Stop()
		wg2.Wait()
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		if len(lat) > 0 {
			p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
			fmt.Printf("steady 1,000 spans/s for 10 s: ack latency p50 %v, p99 %v, max %v\n", p50.Round(time.Millisecond), p99.Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
			b.ReportMetric(float64(p50.Milliseconds()), "p50-ms")
			b.ReportMetric(float64(p99.Milliseconds()), "p99-ms")
		}
		fmt.Printf("peak RSS of the process (receiver and senders): %s; %s\n", peakRSS(), r.LogLine())
	}
}
