package importers

// VCR cassettes: HTTP exchanges recorded by vcrpy and its ports (pydantic-ai,
// OpenInference, agno, LiteLLM test suites). interactions[].request has
// {uri, headers, body} and .response {status, headers, body: {string}};
// pydantic-ai writes the decoded JSON under parsed_body instead of body.
// A body may be a JSON string, SSE text, or compressed bytes (!!binary) as
// its Content-Encoding says. Each interaction goes to the importer of the
// API its URI calls, so a cassette mixing providers imports every call;
// interactions with no model API (telemetry, auth) are skipped and listed.
// A cassette records one conversation, so an interaction whose trace is a
// prefix of the next one's is folded into it (see prefixMerger).

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
	"gopkg.in/yaml.v3"

	"github.com/tracelab-dev/tracelab/model"
)

// cassetteAPI is one model API a cassette interaction may call.
type cassetteAPI struct {
	format   string
	suffixes []string // URI path suffixes, query cut off
	// trace reads one interaction, v.raw being {"request": body,
	// "response": body}; prev is the id of the response the request
	// continues, if any (Responses API previous_response_id).
	trace func(file string, v jsonValue) (t *model.Trace, lerr *LineError, prev string)
}

var cassetteAPIs []cassetteAPI

// registerCassetteAPI lets a format's importer read the cassette
// interactions that call its API.
func registerCassetteAPI(a cassetteAPI) { cassetteAPIs = append(cassetteAPIs, a) }

// cassetteAPIOf is the API a recorded URI calls.
func cassetteAPIOf(uri string) (cassetteAPI, bool) {
	path, _, _ := strings.Cut(strings.TrimSpace(uri), "?")
	for _, a := range cassetteAPIs {
		for _, s := range a.suffixes {
			if strings.HasSuffix(path, s) {
				return a, true
			}
		}
	}
	return cassetteAPI{}, false
}

// cassetteFormat reports whether head is a VCR cassette and which format
// reads its first model API call (in the head; "" when none is known), so
// exactly one detector claims a cassette that mixes providers.
func cassetteFormat(head []byte) (format string, ok bool) {
	if !bytes.HasPrefix(head, []byte("interactions:")) {
		return "", false
	}
	for rest := head; len(rest) > 0; {
		i := bytes.Index(rest, []byte("uri: "))
		if i < 0 {
			break
		}
		rest = rest[i+5:]
		uri, _, _ := bytes.Cut(rest, []byte("\n"))
		if a, ok := cassetteAPIOf(string(uri)); ok {
			return a.format, true
		}
	}
	return "", true
}

// asCassette reports whether r holds a cassette, giving back a reader that
// still has every byte.
func asCassette(r io.Reader) (*bufio.Reader, bool) {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 64<<10 {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	head, _ := br.Peek(4096)
	head = bytes.TrimLeft(stripBOM(head), " \t\r\n")
	return br, bytes.HasPrefix(head, []byte("interactions:"))
}

type cassette struct {
	Interactions []yaml.Node `yaml:"interactions"`
}

type cassetteHalf struct {
	URI        string         `yaml:"uri"`
	Method     string         `yaml:"method"`
	Headers    map[string]any `yaml:"headers"`
	Body       yaml.Node      `yaml:"body"`
	ParsedBody yaml.Node      `yaml:"parsed_body"`
}

type cassetteInteraction struct {
	Request  cassetteHalf `yaml:"request"`
	Response cassetteHalf `yaml:"response"`
}

// maxBodyBytes caps a recorded body once decompressed: whatever its
// encoding, a body past it is refused, not read into memory.
const maxBodyBytes = 64 << 20

// maxCassetteInflate caps what all the compressed bodies of one cassette
// inflate to together: a cassette under the record cap could hold a
// thousand small bodies that each inflate to maxBodyBytes, and take
// minutes. Real cassettes' bodies are kilobytes.
const maxCassetteInflate = 16 * maxBodyBytes

// inflateBudget is what the compressed bodies of one cassette may still
// inflate to.
type inflateBudget struct{ left int64 }

// parseCassette reads a cassette and emits one record per conversation.
func parseCassette(ctx context.Context, r io.Reader, file string, emit Emit) error {
	data, err := readWhole(ctx, r, file, "VCR cassette")
	if err != nil {
		return err
	}
	var c cassette
	if err := yaml.Unmarshal(data, &c); err != nil {
		return &LineError{File: file, Msg: "invalid VCR cassette YAML: " + err.Error()}
	}
	merge := &prefixMerger{emit: emit}
	budget := &inflateBudget{left: maxCassetteInflate}
	for i, node := range c.Interactions {
		if err := ctx.Err(); err != nil {
			return err
		}
		path := fmt.Sprintf("interactions[%d]", i)
		var in cassetteInteraction
		if err := node.Decode(&in); err != nil {
			return &LineError{File: file, Line: node.Line, Path: path, Msg: "expected {request: {uri, body}, response: {body}}: " + err.Error()}
		}
		api, ok := cassetteAPIOf(in.Request.URI)
		if !ok {
			what := strings.TrimSpace(in.Request.Method + " " + in.Request.URI)
			if err := emit(Record{Line: node.Line, Skip: &Skip{Path: path, Reason: what + " is not a model API call this importer reads"}}); err != nil {
				return err
			}
			continue
		}
		req, lerr := in.Request.body(file, path+".request", budget)
		if lerr != nil {
			if err := merge.add(Record{Line: node.Line, Err: lerr}, ""); err != nil {
				return err
			}
			continue
		}
		resp, lerr := in.Response.body(file, path+".response", budget)
		if lerr != nil {
			if err := merge.add(Record{Line: node.Line, Err: lerr}, ""); err != nil {
				return err
			}
			continue
		}
		v := jsonValue{line: node.Line, path: path, cassette: true,
			raw: []byte(`{"request":` + string(req) + `,"response":` + string(resp) + `}`)}
		t, lerr, prev := api.trace(file, v)
		if err := v.emitParsed(func(r Record) error { return merge.add(r, prev) }, t, lerr); err != nil {
			return err
		}
	}
	return merge.flush()
}

// body is a recorded body as JSON: parsed_body as written, else body (or
// body.string) decoded as its Content-Encoding says; JSON text stays JSON,
// other text (SSE) becomes a JSON string, no body is null.
func (h *cassetteHalf) body(file, path string, budget *inflateBudget) (json.RawMessage, *LineError) {
	if h.ParsedBody.Kind != 0 {
		var v any
		if err := h.ParsedBody.Decode(&v); err != nil {
			return nil, &LineError{File: file, Line: h.ParsedBody.Line, Path: path + ".parsed_body", Msg: err.Error()}
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, &LineError{File: file, Line: h.ParsedBody.Line, Path: path + ".parsed_body", Msg: "not representable as JSON: " + err.Error()}
		}
		return b, nil
	}
	node := &h.Body
	bodyPath := path + ".body"
	if node.Kind == yaml.MappingNode {
		var inner struct {
			String yaml.Node `yaml:"string"`
		}
		if err := node.Decode(&inner); err != nil {
			return nil, &LineError{File: file, Line: node.Line, Path: bodyPath, Msg: err.Error()}
		}
		node, bodyPath = &inner.String, bodyPath+".string"
	}
	if node.Kind == 0 || node.Tag == "!!null" {
		return json.RawMessage("null"), nil
	}
	var s string
	if err := node.Decode(&s); err != nil {
		return nil, &LineError{File: file, Line: node.Line, Path: bodyPath, Msg: "expected the body as a string: " + err.Error()}
	}
	text, err := decodeBody([]byte(s), headerValue(h.Headers, "content-encoding"), budget)
	if err != nil {
		return nil, &LineError{File: file, Line: node.Line, Path: bodyPath, Msg: err.Error()}
	}
	if isEventStream(text) { // Bedrock's ConverseStream: binary AWS event-stream
		events, err := decodeEventStream(text)
		if err != nil {
			return nil, &LineError{File: file, Line: node.Line, Path: bodyPath, Msg: err.Error()}
		}
		return eventStreamJSON(events), nil
	}
	if t := bytes.TrimSpace(text); len(t) == 0 {
		return json.RawMessage("null"), nil
	} else if json.Valid(t) {
		return compactJSON(t), nil
	}
	q, _ := json.Marshal(string(text))
	return q, nil
}

// headerValue is the first value of a recorded header, any case.
func headerValue(h map[string]any, name string) string {
	for k, v := range h {
		if !strings.EqualFold(k, name) {
			continue
		}
		switch v := v.(type) {
		case string:
			return v
		case []any:
			if len(v) > 0 {
				s, _ := v[0].(string)
				return s
			}
		}
	}
	return ""
}

// decodeBody undoes a Content-Encoding (gzip, br, zstd; gzip and zstd are
// also recognised by their magic bytes when the header was not recorded),
// refusing a body that inflates past maxBodyBytes or past what budget
// has left, which it spends. A body that says it is compressed but does
// not decode is an error, never dropped.
func decodeBody(b []byte, encoding string, budget *inflateBudget) ([]byte, error) {
	enc := strings.ToLower(strings.TrimSpace(encoding))
	switch {
	case bytes.HasPrefix(b, []byte("\x1f\x8b")):
		enc = "gzip"
	case bytes.HasPrefix(b, []byte("\x28\xb5\x2f\xfd")):
		enc = "zstd"
	case enc == "br" && json.Valid(bytes.TrimSpace(b)):
		enc = "" // kept decoded by the recorder
	}
	var r io.Reader
	switch enc {
	case "", "identity":
		return b, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("gzip body: %v", err)
		}
		r = zr
	case "br":
		r = brotli.NewReader(bytes.NewReader(b))
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(b), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxBodyBytes))
		if err != nil {
			return nil, fmt.Errorf("zstd body: %v", err)
		}
		defer zr.Close()
		r = zr
	default:
		return nil, fmt.Errorf("body has Content-Encoding %q, which is not read (gzip, br and zstd are)", encoding)
	}
	limit := min(int64(maxBodyBytes), budget.left)
	out, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s body: %v", enc, err)
	}
	if int64(len(out)) > limit {
		if limit < maxBodyBytes {
			budget.left = 0
			return nil, fmt.Errorf("%s body: the cassette's compressed bodies inflate past %d MiB together, the cap on one cassette", enc, maxCassetteInflate>>20)
		}
		return nil, fmt.Errorf("%s body inflates past %d MiB, the cap on a recorded body", enc, maxBodyBytes>>20)
	}
	budget.left -= int64(len(out))
	return out, nil
}

// explainCassette says why a VCR cassette that no format claims is
// refused: none of its recorded URLs calls a model API tracelab reads. It
// lists them (at most eight, each once) and the API paths that are read;
// "" when head is no cassette.
func explainCassette(head []byte) string {
	if !bytes.HasPrefix(head, []byte("interactions:")) {
		return ""
	}
	var uris []string
	seen := map[string]bool{}
	more := 0
	for rest := head; ; {
		i := bytes.Index(rest, []byte("uri: "))
		if i < 0 {
			break
		}
		rest = rest[i+5:]
		line, _, _ := bytes.Cut(rest, []byte("\n"))
		uri := strings.Trim(strings.TrimSpace(string(line)), `'"`)
		if uri == "" || seen[uri] {
			continue
		}
		seen[uri] = true
		if len(uris) == 8 {
			more++
			continue
		}
		uris = append(uris, strconv.Quote(uri))
	}
	var paths []string
	for _, a := range cassetteAPIs {
		paths = append(paths, a.suffixes...)
	}
	read := "the API paths read are " + strings.Join(paths, ", ")
	if len(uris) == 0 {
		return "a VCR cassette with no recorded request URI, so no model API call to read (" + read + ")"
	}
	list := strings.Join(uris, ", ")
	if more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return fmt.Sprintf("a VCR cassette whose recorded URLs match no API tracelab reads: %s (%s)", list, read)
}

// cassetteDecoded reads a recorded call of an API whose request and
// response decode into one record type R, which traceOf turns into a trace.
func cassetteDecoded[R any](traceOf func(file string, line int, raw []byte, rec *R) (*model.Trace, *LineError)) func(string, jsonValue) (*model.Trace, *LineError, string) {
	return func(file string, v jsonValue) (*model.Trace, *LineError, string) {
		var rec R
		if lerr := decodeLine(file, v.line, v.raw, &rec); lerr != nil {
			return nil, lerr, ""
		}
		t, lerr := traceOf(file, v.line, v.raw, &rec)
		return t, lerr, ""
	}
}
