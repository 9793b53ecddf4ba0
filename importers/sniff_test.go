package importers

import (
	"maps"
	"testing"
)

// sniff answers from its memo only for the very head it sniffed last:
// another head, or the same buffer holding other bytes, is sniffed again.
func TestSniffMemo(t *testing.T) {
	buf := []byte(`{"trace_id":"t1","steps":[]}`)
	heads := []struct {
		name string
		head func() []byte
		key  string // a key its shape has
	}{
		{"native", func() []byte { return buf }, "trace_id"},
		{"same again", func() []byte { return buf }, "trace_id"},
		{"other head", func() []byte { return []byte(`{"object":"chat.completion","choices":[]}`) }, "object=chat.completion"},
		{"same buffer, other bytes", func() []byte { copy(buf, `{"run_id":"r1"  ,"x":"y" }`); return buf }, "run_id"},
	}
	for _, h := range heads {
		head := h.head()
		got := sniff(head)
		if !got.has(h.key) {
			t.Errorf("%s: the shape lacks %q: %v", h.name, h.key, got.seen)
		}
		if want := sniffHead(head); !maps.Equal(got.seen, want.seen) {
			t.Errorf("%s: sniff %v, sniffed afresh %v", h.name, got.seen, want.seen)
		}
	}
}

// FuzzSniffMemo: after sniffing any other head, sniffing a head gives
// what sniffing it afresh gives.
func FuzzSniffMemo(f *testing.F) {
	f.Add([]byte(`{"trace_id":"t","steps":[]}`), []byte(`{"object":"response"}`))
	f.Add([]byte("data: {\"type\":\"message_start\"}\n\n"), []byte(`[{"role":"user"}]`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		sniff(b)
		if got, want := sniff(a), sniffHead(a); !maps.Equal(got.seen, want.seen) {
			t.Fatalf("sniff %v, afresh %v", got.seen, want.seen)
		}
		if got, want := sniff(a), sniffHead(a); !maps.Equal(got.seen, want.seen) {
			t.Fatalf("sniffed twice: %v, afresh %v", got.seen, want.seen)
		}
	})
}
