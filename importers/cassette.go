package importers

// VCR cassettes: HTTP exchanges recorded by vcrpy and its ports.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// VCR cassettes (vcrpy and its ports record HTTP exchanges in YAML:
// interactions[].request.{uri, body} and .response.body.string, the body a
// JSON string, SSE text, or gzip bytes as !!binary) are read as one
// {request, response} value per interaction. A cassette records one
// conversation, so an interaction whose trace is a prefix of the next one's
// is not emitted again (see prefixMerger).

// isCassette reports whether head is a VCR cassette calling an API whose
// URI path ends with one of suffixes.
func isCassette(head []byte, suffixes ...string) bool {
	if !bytes.HasPrefix(head, []byte("interactions:")) {
		return false
	}
	for rest := head; len(rest) > 0; {
		i := bytes.Index(rest, []byte("uri: "))
		if i < 0 {
			return false
		}
		rest = rest[i+5:]
		uri, _, _ := bytes.Cut(rest, []byte("\n"))
		uri, _, _ = bytes.Cut(bytes.TrimSpace(uri), []byte("?"))
		for _, s := range suffixes {
			if bytes.HasSuffix(uri, []byte(s)) {
				return true
			}
		}
	}
	return false
}

type cassette struct {
	Interactions []yaml.Node `yaml:"interactions"`
}

type cassetteInteraction struct {
	Request struct {
		URI  string `yaml:"uri"`
		Body string `yaml:"body"`
	} `yaml:"request"`
	Response struct {
		Body struct {
			String string `yaml:"string"`
		} `yaml:"body"`
	} `yaml:"response"`
}

// cassetteValues reads a cassette whole (cassettes are test recordings,
// small) and calls fn with {"request": body, "response": body} per
// interaction.
func cassetteValues(r io.Reader, file string, fn func(jsonValue) error) error {
	data, err := io.ReadAll(io.LimitReader(r, 256<<20))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	var c cassette
	if err := yaml.Unmarshal(data, &c); err != nil {
		return &LineError{File: file, Msg: "invalid VCR cassette YAML: " + err.Error()}
	}
	for i, node := range c.Interactions {
		path := fmt.Sprintf("interactions[%d]", i)
		var in cassetteInteraction
		if err := node.Decode(&in); err != nil {
			return &LineError{File: file, Line: node.Line, Path: path, Msg: "expected {request: {uri, body}, response: {body: {string}}}: " + err.Error()}
		}
		req := cassetteBody(in.Request.Body)
		resp := cassetteBody(in.Response.Body.String)
		if resp == nil && strings.TrimSpace(in.Response.Body.String) != "" {
			resp, _ = json.Marshal(gunzipText(in.Response.Body.String)) // SSE text
		}
		if req == nil {
			req = json.RawMessage("null")
		}
		if resp == nil {
			resp = json.RawMessage("null")
		}
		raw := []byte(`{"request":` + string(req) + `,"response":` + string(resp) + `}`)
		if err := fn(jsonValue{line: node.Line, path: path, raw: raw, cassette: true}); err != nil {
			return err
		}
	}
	return nil
}

// cassetteBody is a recorded body as JSON, or nil when it is not JSON.
func cassetteBody(s string) json.RawMessage {
	t := strings.TrimSpace(gunzipText(s))
	if t == "" || !json.Valid([]byte(t)) {
		return nil
	}
	return compactJSON([]byte(t))
}

// gunzipText undoes a gzip Content-Encoding kept in a recorded body.
func gunzipText(s string) string {
	if !strings.HasPrefix(s, "\x1f\x8b") {
		return s
	}
	zr, err := gzip.NewReader(strings.NewReader(s))
	if err != nil {
		return s
	}
	b, err := io.ReadAll(io.LimitReader(zr, 256<<20))
	if err != nil {
		return s
	}
	return string(b)
}
