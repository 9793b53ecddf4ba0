package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestReadOnPastHead: a pretty-printed export whose telling keys come
// after the first MiB is detected by reading on, imports as it does
// compact, and a document past the record cap is refused saying so.
func TestReadOnPastHead(t *testing.T) {
	raw, err := os.ReadFile("testdata/formats/langfuse/api_trace.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	// A large input first (Go writes keys sorted: "aaa_input" leads), so
	// the keys Langfuse is known by are past the head.
	docs := make([]string, 40000)
	for i := range docs {
		docs[i] = "lorem ipsum dolor sit amet"
	}
	doc["aaa_input"] = map[string]any{"documents": docs}
	big, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if len(big) <= HeadSize || bytes.Contains(big[:HeadSize], []byte(`"observations"`)) {
		t.Fatalf("fixture is %d bytes; want over %d with observations past the head", len(big), HeadSize)
	}
	if !documentCut(big[:HeadSize]) || documentCut(raw) {
		t.Fatal("documentCut: wrong answer")
	}
	var traces int
	f, err := ParseWith(context.Background(), bytes.NewReader(big), "big.json", Options{}, func(r Record) error {
		if r.Err != nil {
			t.Errorf("line %d: %v", r.Line, r.Err)
		}
		if r.Trace != nil {
			traces++
		}
		return nil
	})
	if err != nil || f.Name != "langfuse" || traces != 1 {
		t.Fatalf("format %q, %d traces, err %v; want langfuse, 1 trace", f.Name, traces, err)
	}
	_, err = ParseWith(context.Background(), bytes.NewReader(big), "big.json", Options{MaxRecord: HeadSize + 10}, func(Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "over") {
		t.Fatalf("err = %v, want a refusal naming the record cap", err)
	}
}
