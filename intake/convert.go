package intake

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/tracelab-dev/tracelab/app"
)

// A received span is kept as one OTLP JSON record: an
// ExportTraceServiceRequest holding that span, its scope and its resource,
// with hex trace and span ids as the OTLP JSON encoding has them. The
// importers' OTLP reader takes exactly these records (one per line in a
// collector's file export), so a trace is rebuilt from live spans and from
// a file by the same code.

// batch is what one request carries after checking: its usable spans and
// the count and reason of the others (OTLP partial success).
type batch struct {
	spans    []app.LiveSpan
	rejected int
	reason   string
	bytes    int // records' and decoded's
	decoded  int // bytes counted for what checkRecords read
}

func (b *batch) reject(why string) {
	b.rejected++
	if b.reason == "" {
		b.reason = why
	}
}

var protoJSON = protojson.MarshalOptions{}

// fromProto converts a decoded protobuf request (HTTP or gRPC).
func fromProto(req *coltracepb.ExportTraceServiceRequest) (*batch, error) {
	b := &batch{}
	for i, rs := range req.GetResourceSpans() {
		res := []byte("{}")
		if rs.GetResource() != nil {
			var err error
			if res, err = protoJSON.Marshal(rs.GetResource()); err != nil {
				return nil, fmt.Errorf("resourceSpans[%d].resource: %w", i, err)
			}
		}
		for j, ss := range rs.GetScopeSpans() {
			scope := []byte("{}")
			if ss.GetScope() != nil {
				var err error
				if scope, err = protoJSON.Marshal(ss.GetScope()); err != nil {
					return nil, fmt.Errorf("resourceSpans[%d].scopeSpans[%d].scope: %w", i, j, err)
				}
			}
			for k, sp := range ss.GetSpans() {
				at := fmt.Sprintf("resourceSpans[%d].scopeSpans[%d].spans[%d]", i, j, k)
				tid, sid, why := checkIDs(hex.EncodeToString(sp.GetTraceId()), hex.EncodeToString(sp.GetSpanId()))
				if why != "" {
					b.reject(at + ": " + why)
					continue
				}
				body, err := spanJSON(sp)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", at, err)
				}
				b.add(tid, sid, res, scope, body)
			}
		}
	}
	return b, nil
}

// spanJSON is a span's OTLP JSON with hex ids: protojson writes bytes as
// base64, so the ids are taken out for the marshal and written by hand.
func spanJSON(sp *tracepb.Span) ([]byte, error) {
	tid, sid, pid := sp.TraceId, sp.SpanId, sp.ParentSpanId
	sp.TraceId, sp.SpanId, sp.ParentSpanId = nil, nil, nil
	body, err := protoJSON.Marshal(sp)
	sp.TraceId, sp.SpanId, sp.ParentSpanId = tid, sid, pid
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, `{"traceId":%q,"spanId":%q`, hex.EncodeToString(tid), hex.EncodeToString(sid))
	if len(pid) > 0 {
		fmt.Fprintf(&out, `,"parentSpanId":%q`, hex.EncodeToString(pid))
	}
	rest := bytes.TrimSpace(body)
	rest = bytes.TrimSpace(rest[1:]) // after "{"
	if len(rest) > 0 && rest[0] != '}' {
		out.WriteByte(',')
	}
	out.Write(rest)
	return out.Bytes(), nil
}

// jsonRequest is an OTLP JSON request with each span kept raw.
type jsonRequest struct {
	ResourceSpans []struct {
		Resource   json.RawMessage `json:"resource"`
		ScopeSpans []struct {
			Scope json.RawMessage   `json:"scope"`
			Spans []json.RawMessage `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

// fromJSON converts an OTLP JSON request body.
func fromJSON(body []byte) (*batch, error) {
	var req jsonRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("not an OTLP JSON ExportTraceServiceRequest: %w", err)
	}
	b := &batch{}
	for i, rs := range req.ResourceSpans {
		res := orEmpty(rs.Resource)
		for j, ss := range rs.ScopeSpans {
			scope := orEmpty(ss.Scope)
			for k, raw := range ss.Spans {
				at := fmt.Sprintf("resourceSpans[%d].scopeSpans[%d].spans[%d]", i, j, k)
				var ids struct {
					TraceID string `json:"traceId"`
					SpanID  string `json:"spanId"`
				}
				if err := json.Unmarshal(raw, &ids); err != nil {
					return nil, fmt.Errorf("%s: expected a span object: %w", at, err)
				}
				tid, sid, why := checkIDs(ids.TraceID, ids.SpanID)
				if why != "" {
					b.reject(at + ": " + why)
					continue
				}
				b.add(tid, sid, res, scope, raw)
			}
		}
	}
	return b, nil
}

func orEmpty(raw json.RawMessage) []byte {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return []byte("{}")
	}
	return raw
}

// checkIDs lowercases the hex ids and says why they are unusable ("" when
// they are usable): OTLP ids are 16 and 8 bytes, never all zero.
func checkIDs(tid, sid string) (string, string, string) {
	tid, sid = strings.ToLower(tid), strings.ToLower(sid)
	switch {
	case !validID(tid, 32):
		return "", "", "trace id must be 16 bytes (32 hex digits), not all zero"
	case !validID(sid, 16):
		return "", "", "span id must be 8 bytes (16 hex digits), not all zero"
	}
	return tid, sid, ""
}

func validID(s string, n int) bool {
	if len(s) != n || strings.Trim(s, "0") == "" {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// add keeps one span as its record.
func (b *batch) add(tid, sid string, res, scope, span []byte) {
	var rec bytes.Buffer
	rec.Grow(len(res) + len(scope) + len(span) + 64)
	rec.WriteString(`{"resourceSpans":[{"resource":`)
	rec.Write(res)
	rec.WriteString(`,"scopeSpans":[{"scope":`)
	rec.Write(scope)
	rec.WriteString(`,"spans":[`)
	rec.Write(span)
	rec.WriteString(`]}]}]}`)
	b.bytes += rec.Len()
	b.spans = append(b.spans, app.LiveSpan{TraceID: tid, SpanID: sid, Record: rec.Bytes()})
}
