package importers

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestCassetteOfNoKnownAPI: a cassette whose URLs call no API tracelab
// reads is refused saying so, each URL listed once.
func TestCassetteOfNoKnownAPI(t *testing.T) {
	in := "interactions:\n- request:\n    method: POST\n    uri: https://app.example.com/api/v1/tracing/batches\n  response:\n    body: {string: '{}'}\n" +
		"- request:\n    method: POST\n    uri: https://app.example.com/api/v1/tracing/batches\n  response:\n    body: {string: '{}'}\n" +
		"- request:\n    method: POST\n    uri: 'https://collector.example.com/v1/traces'\n  response:\n    body: {string: ''}\n"
	_, err := Parse(context.Background(), bytes.NewReader([]byte(in)), "c.yaml", "", func(Record) error { return nil })
	if err == nil || !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("err = %v, want a refusal", err)
	}
	want := `a VCR cassette whose recorded URLs match no API tracelab reads: "https://app.example.com/api/v1/tracing/batches", "https://collector.example.com/v1/traces" (the API paths read are `
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "is not JSON") {
		t.Fatalf("err = %v\nwant it to hold %q", err, want)
	}
}
