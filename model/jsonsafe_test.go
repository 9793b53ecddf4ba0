package model

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestNewJSONEncoderEscapesC1AndBidi(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain <b>&", `"plain <b>&"`},
		{"csi \u009b2J osc \u009d0;t\u009c", `"csi \u009b2J osc \u009d0;t\u009c"`},
		{"id\u202eexe\u202c \u2066x\u2069 \u200f", `"id\u202eexe\u202c \u2066x\u2069 \u200f"`},
		{"wide 数据 ✅ and é", `"wide 数据 ✅ and é"`},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := NewJSONEncoder(&b).Encode(tt.in); err != nil {
			t.Fatal(err)
		}
		got := string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
		if got != tt.want {
			t.Errorf("encode %q = %s, want %s", tt.in, got, tt.want)
		}
		var back string
		if err := json.Unmarshal(b.Bytes(), &back); err != nil || back != tt.in {
			t.Errorf("%s decodes to %q, %v", got, back, err)
		}
	}
}

func FuzzEscapeJSONControls(f *testing.F) {
	f.Add("a\u202eb\u009bc")
	f.Add("数据")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal(s)
		if err != nil {
			return
		}
		var back string
		if err := json.Unmarshal(EscapeJSONControls(b), &back); err != nil {
			t.Fatalf("escaped %q is not JSON: %v", b, err)
		}
		var want string
		json.Unmarshal(b, &want)
		if back != want {
			t.Fatalf("escaping changed the value: %q -> %q", want, back)
		}
	})
}
