package model

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// JSONAppender writes JSON as encoding/json does, byte for byte, for the
// encoders written by hand where encoding/json's reflection cost too much
// (a score, a trace's content hash). Err is the first value it could not
// write, as json.Marshal would have failed on it.
type JSONAppender struct {
	B   []byte
	Err error
}

// AppendJSONList writes xs as a JSON array, each element with one; a nil
// slice is null, as encoding/json writes it.
func AppendJSONList[T any](e *JSONAppender, xs []T, one func(*T)) {
	if xs == nil {
		e.Null()
		return
	}
	e.B = append(e.B, '[')
	for i := range xs {
		if i > 0 {
			e.B = append(e.B, ',')
		}
		one(&xs[i])
	}
	e.B = append(e.B, ']')
}

// Key writes sep ('{' or ',') and a member's name, which needs no escape.
func (e *JSONAppender) Key(sep byte, name string) {
	e.B = append(e.B, sep, '"')
	e.B = append(e.B, name...)
	e.B = append(e.B, '"', ':')
}

func (e *JSONAppender) Null() { e.B = append(e.B, "null"...) }

func (e *JSONAppender) Int(n int64) { e.B = strconv.AppendInt(e.B, n, 10) }

func (e *JSONAppender) Bool(v bool) { e.B = strconv.AppendBool(e.B, v) }

// Float writes f as encoding/json does: like ES6's number to string,
// 'e' notation outside [1e-6, 1e21) with no padded exponent.
func (e *JSONAppender) Float(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		if e.Err == nil {
			e.Err = fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
		}
		e.Null()
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(e.B)
	e.B = strconv.AppendFloat(e.B, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9
		if n := len(e.B); n-start >= 4 && e.B[n-4] == 'e' && e.B[n-3] == '-' && e.B[n-2] == '0' {
			e.B[n-2] = e.B[n-1]
			e.B = e.B[:n-1]
		}
	}
}

// Str writes s as a JSON string as encoding/json does: HTML's <, > and &
// escaped, invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped.
func (e *JSONAppender) Str(s string) {
	const hex = "0123456789abcdef"
	b := append(e.B, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	e.B = append(b, '"')
}

// jsonSafe says an ASCII byte stands for itself in a string as
// encoding/json writes it (its htmlSafeSet).
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := byte(0x20); c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()
