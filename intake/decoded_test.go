package intake

import (
	"reflect"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/tracelab-dev/tracelab/importers"
)

// checkedBatch is benchRequest's spans of traces traces, checked as a
// handler checks them.
func checkedBatch(t *testing.T, traces int) *batch {
	t.Helper()
	var msg coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(benchRequest(0, traces), &msg); err != nil {
		t.Fatal(err)
	}
	b, err := fromProto(&msg)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkRecords(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// The spans the handler read rebuild the trace the records do.
func TestDecodedSpansRebuildTheSameTrace(t *testing.T) {
	b := checkedBatch(t, 1)
	var recs [][]byte
	var dec []*importers.LiveDecoded
	for _, sp := range b.spans {
		recs = append(recs, sp.Record)
		d, ok := sp.Decoded.(*importers.LiveDecoded)
		if !ok {
			t.Fatalf("span %s: not decoded (%T)", sp.SpanID, sp.Decoded)
		}
		dec = append(dec, d)
	}
	id := b.spans[0].TraceID
	// Decoded for some records only, and in another order than read.
	recs[0], recs[3] = recs[3], recs[0]
	dec[0], dec[3] = dec[3], dec[0]
	dec[1] = nil
	want, wantFormat := importers.LiveTrace("otlp", id, recs)
	got, gotFormat := importers.LiveTraceFrom("otlp", id, recs, dec)
	if want.Trace == nil || !reflect.DeepEqual(got, want) || gotFormat != wantFormat {
		t.Fatalf("from decoded spans:\n%+v (%s)\nfrom records:\n%+v (%s)", got, gotFormat, want, wantFormat)
	}
}

// A request whose decoded spans would not fit the queue goes with its
// records alone; one that fits keeps them.
func TestFitDropsDecodedSpansThatCouldNeverQueue(t *testing.T) {
	for _, tc := range []struct {
		name string
		max  func(records, all int) int64
		kept bool
	}{
		{"fits", func(_, all int) int64 { return int64(all) }, true},
		{"records only fit", func(records, _ int) int64 { return int64(records) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := checkedBatch(t, 3)
			records, all := b.bytes-b.decoded, b.bytes
			b.fit(tc.max(records, all))
			for _, sp := range b.spans {
				if (sp.Decoded != nil) != tc.kept {
					t.Fatalf("span %s decoded %v, want kept %v", sp.SpanID, sp.Decoded != nil, tc.kept)
				}
			}
			if want := map[bool]int{true: all, false: records}[tc.kept]; b.bytes != want {
				t.Fatalf("batch counts %d bytes, want %d", b.bytes, want)
			}
		})
	}
}
