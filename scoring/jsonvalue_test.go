package scoring

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// sameAsEncodingJSON fails t unless a decoder gives for data what
// json.Unmarshal into an any gives: the value, and whether it failed. The
// decoder is fresh, so a fuzzed input covers the same code every run; a
// decoder that read other inputs before is TestDecodeValueReused's.
func sameAsEncodingJSON(t *testing.T, data []byte) {
	t.Helper()
	var want any
	werr := json.Unmarshal(data, &want)
	var d valueDecoder
	got, gerr := d.decode(data)
	if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeValue(%q) = %#v, %v; encoding/json gives %#v, %v", data, got, gerr, want, werr)
	}
	// In place, with a long string inside or around the value.
	pad := strings.Repeat("p", inPlaceFrom)
	for _, in := range [][]byte{data, []byte(`["` + pad + `",` + string(data) + `,"` + pad + `"]`)} {
		var want any
		werr := json.Unmarshal(in, &want)
		got, gerr := d.decodeInPlace(bytes.Clone(in))
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeInPlace(%.200q) = %#v, %v; encoding/json gives %#v, %v", in, got, gerr, want, werr)
		}
	}
}

// TestDecodeInPlaceKeepsLongStrings: a result of a long string, or of
// rows of long strings, costs the decoder no copy of them; escaped
// strings, which must be unescaped, and short ones are copied.
func TestDecodeInPlaceKeepsLongStrings(t *testing.T) {
	long := strings.Repeat("lorem ipsum ", 1<<17) // 1.5 MiB
	tests := []struct {
		name string
		in   string
		max  uint64 // bytes the decode may allocate
	}{
		{"one long string", `"` + long + `"`, 4 << 10},
		{"rows of long strings", `{"rows":[{"a":"` + long + `","b":"` + long + `"}]}`, 8 << 10},
		{"an escaped long string", `"\n` + long + `"`, 3 * uint64(len(long))},
	}
	for _, tt := range tests {
		var d valueDecoder
		var want any
		if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
			t.Fatal(err)
		}
		in := []byte(tt.in)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := d.decodeInPlace(in)
		runtime.ReadMemStats(&after)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: decodeInPlace is not encoding/json (%v)", tt.name, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > tt.max || tt.max > 8<<10 && n < uint64(len(long)) {
			t.Errorf("%s: %d bytes allocated, want at most %d", tt.name, n, tt.max)
		}
	}
}

func TestDecodeValueIsEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"sql":"SELECT 1","limit":10,"tags":["a","b"],"deep":{"x":null,"y":true,"z":false}}`,
		` [ 1 , -0, 2.5e3, 1E-2, -1.25 ] `, `"plain"`, `""`, `{}`, `[]`, `null`, `0`,
		`{"a":1,"a":2}`, // the last of a repeated key
		`"esc \" \\ \/ \b \f \n \r \t \u00e9 \u2028"`,
		`"\ud83c\udf89 pair"`, `"\ud83c lone"`, `"\ud83c\u0041"`, `"\udf89\ud83c"`, `"\ud83c\ud83c\udf89"`,
		"\"bad \xff utf8 \xc3\"", "\"esc and bad \\n \xe2\x82\"", "\"ok é\"",
		`1e400`, `[1, -1e999, 2]`, `{"n": 1e309, "m": "x"}`, // out of range: nil in place, an error
		`01`, `-`, `1.`, `.5`, `1e`, `+1`, `[1,]`, `{"a"}`, `{"a":1,}`, `{a:1}`, `"x`, "\"ctl \x01\"",
		`"\x"`, `"\u12"`, `"\u12G4"`, `tru`, `nul`, `[1] 2`, ``, `   `, `{"a":[}`, `[` + strings.Repeat(" ", 3),
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000), // encoding/json's deepest
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001), // one too deep
		strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
	} {
		sameAsEncodingJSON(t, []byte(in))
	}
}

// FuzzDecodeValue: on any input, decodeValue is encoding/json.
func FuzzDecodeValue(f *testing.F) {
	for _, s := range []string{`{"sql":"SELECT 1","n":[1,2.5,-3e2,null,true]}`, `"\ud83c\udf89\u00e9\n"`,
		"\"\xff\"", `[1e999]`, `{"a":{"b":[{}]}}`, `-0.0e+1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsEncodingJSON(t, data)
	})
}

// A decoder reused from value to value, as the scorer's are, gives what a
// fresh one gives, the short strings it keeps from earlier values
// included, and keeps no more of them than maxShortStrings.
func TestDecodeValueReused(t *testing.T) {
	var d valueDecoder
	for round := range 2 {
		for i, in := range []string{
			`{"name":"id","type":"bigint","rows":[["id","EMEA"],["id",1]]}`,
			`{"id":"name","type":["bigint","name"],"EMEA":{"name":"id"}}`,
			`["name", "type", "` + strings.Repeat("long ", 10) + `", {"name": "x"}]`,
			`{"name":`, // an error half-way through an object
			`{"name":"y","rows":[]}`,
		} {
			var want any
			werr := json.Unmarshal([]byte(in), &want)
			got, gerr := d.decode([]byte(in))
			if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
				t.Errorf("round %d, value %d: %#v, %v; want %#v, %v", round, i, got, gerr, want, werr)
			}
		}
	}
	var many strings.Builder
	many.WriteString("[")
	for i := range maxShortStrings + 100 {
		if i > 0 {
			many.WriteString(",")
		}
		fmt.Fprintf(&many, `"s%d"`, i)
	}
	many.WriteString("]")
	if _, err := d.decode([]byte(many.String())); err != nil {
		t.Fatal(err)
	}
	if len(d.short) > maxShortStrings {
		t.Errorf("the decoder keeps %d short strings, more than %d", len(d.short), maxShortStrings)
	}
}

func BenchmarkDecodeValue(b *testing.B) {
	data := []byte(`{"columns":["id","region","total_cents","closed_at"],"rows":[[1,"EMEA",129900,"2026-07-01T00:00:00Z"],[2,"AMER",5400,"2026-07-02T00:00:00Z"],[3,"APAC",77000,"2026-07-03T00:00:00Z"]],"row_count":3,"note":"caf\u00e9 \"q\""}`)
	b.Run("decodeValue", func(b *testing.B) {
		for b.Loop() {
			decodeValue(data)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			var v any
			json.Unmarshal(data, &v)
		}
	})
}
