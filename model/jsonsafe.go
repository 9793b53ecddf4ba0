package model

import (
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// NewJSONEncoder is the encoder of every JSON tracelab prints or exports:
// no HTML escaping (the output is data, not a web page), and C1 controls
// and bidi controls written as \u escapes. Both are valid raw in JSON, but
// a reviewer reading the file in a terminal or a diff would see a C1
// sequence act or a bidi override reorder the line.
func NewJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(jsonEscaper{w})
	enc.SetEscapeHTML(false)
	return enc
}

// jsonEscaper escapes each write: json.Encoder writes one whole value per
// call, so a rune is never split across two writes.
type jsonEscaper struct{ w io.Writer }

func (e jsonEscaper) Write(p []byte) (int, error) {
	if _, err := e.w.Write(EscapeJSONControls(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// EscapeJSONControls rewrites the C1 controls (U+0080–U+009F) and bidi
// controls in encoded JSON as \uXXXX. Such runes only occur inside JSON
// strings, where the escape means the same rune.
func EscapeJSONControls(b []byte) []byte {
	if !hasUnsafeRune(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if unsafeJSONRune(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// hasUnsafeRune is the fast path: C1 controls are encoded with lead byte
// 0xC2, the bidi controls with 0xE2.
func hasUnsafeRune(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if c := b[i]; c == 0xc2 || c == 0xe2 {
			r, _ := utf8.DecodeRune(b[i:])
			if unsafeJSONRune(r) {
				return true
			}
		}
	}
	return false
}

func unsafeJSONRune(r rune) bool { return (r >= 0x80 && r <= 0x9f) || IsBidiControl(r) }
