package importers

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

func compress(t *testing.T, enc string, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	switch enc {
	case "gzip":
		w := gzip.NewWriter(&buf)
		w.Write(data)
		w.Close()
	case "br":
		w := brotli.NewWriter(&buf)
		w.Write(data)
		w.Close()
	case "zstd":
		w, err := zstd.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		w.Close()
	default:
		return data
	}
	return buf.Bytes()
}

func TestDecodeBody(t *testing.T) {
	fresh := func() *inflateBudget { return &inflateBudget{left: maxCassetteInflate} }
	body := []byte(`{"id":"x","object":"chat.completion"}`)
	for _, tt := range []struct{ enc, header string }{
		{"gzip", "gzip"}, {"gzip", ""}, {"br", "br"}, {"zstd", "zstd"}, {"zstd", ""}, {"", ""}, {"", "br"},
	} {
		t.Run(tt.enc+"/"+tt.header, func(t *testing.T) {
			got, err := decodeBody(compress(t, tt.enc, body), tt.header, fresh())
			if err != nil || !bytes.Equal(got, body) {
				t.Errorf("got %q, %v; want %q", got, err, body)
			}
		})
	}
	big := bytes.Repeat([]byte(" "), maxBodyBytes+1)
	for _, enc := range []string{"gzip", "br", "zstd"} {
		if _, err := decodeBody(compress(t, enc, big), enc, fresh()); err == nil || !strings.Contains(err.Error(), "cap") {
			t.Errorf("%s: %d bytes inflated: err %v, want the cap named", enc, len(big), err)
		}
	}
	if _, err := decodeBody([]byte("not brotli at all"), "br", fresh()); err == nil {
		t.Error("a corrupt br body decoded without error")
	}
	if _, err := decodeBody(body, "compress", fresh()); err == nil || !strings.Contains(err.Error(), "compress") {
		t.Errorf("unknown encoding: %v", err)
	}
}

// The compressed bodies of one cassette share one budget: once spent,
// every further compressed body is refused at once (no inflating), and
// bodies kept as text, already counted by the record cap, still read.
func TestDecodeBodyBudget(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 1000)
	budget := &inflateBudget{left: 2500}
	for i := range 2 {
		if _, err := decodeBody(compress(t, "gzip", body), "gzip", budget); err != nil {
			t.Fatalf("body %d within the budget: %v", i, err)
		}
	}
	if budget.left != 500 {
		t.Errorf("budget left %d after two 1000-byte bodies, want 500", budget.left)
	}
	for _, enc := range []string{"gzip", "br", "zstd"} {
		if _, err := decodeBody(compress(t, enc, body), enc, budget); err == nil || !strings.Contains(err.Error(), "together, the cap on one cassette") {
			t.Errorf("%s past the cassette's budget: %v", enc, err)
		}
	}
	if got, err := decodeBody(body, "", budget); err != nil || !bytes.Equal(got, body) {
		t.Errorf("a plain body after the budget is spent: %v", err)
	}
}

// A compressed body that does not decode names the interaction, and the
// telemetry call of a cassette is listed as skipped, not refused.
func TestCassetteBodiesAndSkips(t *testing.T) {
	doc := "interactions:\n" +
		"- request:\n    body: '{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}'\n    uri: https://api.openai.com/v1/chat/completions\n" +
		"  response:\n    headers:\n      Content-Encoding:\n      - br\n    body:\n      string: not brotli\n" +
		"- request:\n    body: '{}'\n    method: POST\n    uri: https://os-api.agno.com/telemetry/runs\n  response:\n    body:\n      string: ''\n"
	var errs, skips []string
	err := parseCassette(context.Background(), strings.NewReader(doc), "c.yaml", func(r Record) error {
		if r.Err != nil {
			errs = append(errs, r.Err.Error())
		}
		if r.Skip != nil {
			skips = append(skips, r.Skip.Path+": "+r.Skip.Reason)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "interactions[0].response.body.string: br body") {
		t.Errorf("errors = %q, want one naming interactions[0]'s br body", errs)
	}
	if len(skips) != 1 || !strings.Contains(skips[0], "interactions[1]: POST https://os-api.agno.com/telemetry/runs") {
		t.Errorf("skips = %q", skips)
	}
}

// FuzzCassette: any bytes give records or an error, never a panic.
func FuzzCassette(f *testing.F) {
	for _, p := range fixtureFiles(f, formatsDir+"/openai_chat") {
		if strings.HasSuffix(p, ".yaml") {
			b, _ := os.ReadFile(p)
			f.Add(b)
		}
	}
	f.Add([]byte("interactions:\n- request:\n    uri: https://api.openai.com/v1/responses\n  response:\n    headers: {content-encoding: zstd}\n    body: {string: x}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parseCassette(context.Background(), bytes.NewReader(data), "fuzz.yaml", func(Record) error { return nil })
	})
}
