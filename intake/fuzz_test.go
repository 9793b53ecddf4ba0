package intake

import (
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/importers"
)

// FuzzDecode feeds any body to both decoders: they never panic, and every
// span they accept is a record the importers' reader takes, whose trace
// rebuilds without a panic.
func FuzzDecode(f *testing.F) {
	pb, _ := proto.Marshal(chatRequest(1, 2))
	f.Add(pb)
	f.Add([]byte(`{"resourceSpans":[{"resource":{},"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"chat"}]}]}]}`))
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[null,{"traceId":"00"}]}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var bs []*batch
		var msg coltracepb.ExportTraceServiceRequest
		if proto.Unmarshal(body, &msg) == nil {
			if b, err := fromProto(&msg); err == nil {
				bs = append(bs, b)
			}
		}
		if b, err := fromJSON(body); err == nil {
			bs = append(bs, b)
		}
		for _, b := range bs {
			if checkRecords(b) != nil {
				continue
			}
			for _, sp := range b.spans {
				if err := app.CheckLiveSpan(sp.Record); err != nil {
					t.Fatalf("accepted record does not read: %v", err)
				}
				importers.LiveTrace("fuzz", sp.TraceID, [][]byte{sp.Record})
			}
		}
	})
}
