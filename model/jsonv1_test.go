package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"
)

// TestMarshalV1IsMarshal: MarshalV1 and HashV1 give json.Marshal's bytes,
// where the library alone would not (bad UTF-8, U+FFFD, encoding/json's
// Number) and at lengths around the library's buffer flushes, where a
// U+FFFD may straddle two writes into the hash.
func TestMarshalV1IsMarshal(t *testing.T) {
	type rec struct {
		S    string          `json:"s"`
		K    StepKind        `json:"k,omitempty"`
		Raw  json.RawMessage `json:"raw,omitempty"`
		Meta map[string]any  `json:"meta,omitempty"`
		F    float64         `json:"f"`
	}
	values := []rec{
		{S: "plain <&> \u2028\u2029 \x01"},
		{S: "bad \xff byte"},
		{S: "a real \uFFFD"},
		{K: "kind \xfe"},
		{Raw: json.RawMessage("{\"a\" : \"<\xff>\"}")},
		{Meta: map[string]any{"n": json.Number("1.50"), "z": []any{1.0, "x"}}},
		{F: 1e-7}, {F: 1e21}, {F: 123456.789},
	}
	for n := 4090; n < 4100; n++ {
		values = append(values, rec{S: strings.Repeat("x", n) + "\uFFFD"}, rec{S: strings.Repeat("y", n) + "\xff"})
	}
	for _, n := range []int{1 << 16, 1<<16 + 1, 1<<16 + 2, 1 << 20} {
		values = append(values, rec{S: strings.Repeat("x", n-10) + "\uFFFD" + strings.Repeat("z", 10)})
	}
	for i, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := MarshalV1(v)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d: MarshalV1 %.200q, %v\njson.Marshal %.200q", i, got, err, want)
		}
		h := sha256.New()
		if err := HashV1(h, v); err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(want); !bytes.Equal(h.Sum(nil), sum[:]) {
			t.Errorf("%d: HashV1 is not the hash of json.Marshal", i)
		}
	}
}

// TestFFFDWatchAcrossWrites: a U+FFFD split over two or three writes is
// seen.
func TestFFFDWatchAcrossWrites(t *testing.T) {
	r := []byte("\uFFFD")
	for _, parts := range [][][]byte{
		{r}, {r[:1], r[1:]}, {r[:2], r[2:]}, {r[:1], r[1:2], r[2:]}, {[]byte("ab"), r[:1], r[1:2], r[2:], []byte("c")},
	} {
		var w fffdWatch
		w.w = &bytes.Buffer{}
		for _, p := range parts {
			w.Write(p)
		}
		if !w.seen {
			t.Errorf("%q: not seen", parts)
		}
	}
	var w fffdWatch
	w.w = &bytes.Buffer{}
	for _, p := range [][]byte{[]byte("\xef"), []byte("x\xbf\xbd")} {
		w.Write(p)
	}
	if w.seen {
		t.Error("seen where there is none")
	}
}
