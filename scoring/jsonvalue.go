package scoring

import (
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeValue is json.Unmarshal(data, &v) for v of type any, as fast as a
// scorer needs it: every tool call's arguments and every result are
// decoded, and encoding/json, which checks the whole text before decoding
// it and decodes through reflection, was a quarter of scoring's CPU. It
// gives what encoding/json gives, value and error alike (FuzzDecodeValue
// compares them): objects as map[string]any (a repeated key keeps its last
// value), arrays as []any, numbers as float64, invalid UTF-8 and lone
// surrogates as U+FFFD; a syntax error gives nil, and a number out of
// float64's range is nil in its place with an error for the whole.
func decodeValue(data []byte) (any, error) {
	var d valueDecoder
	return d.decode(data)
}

// decode is decodeValue reusing d's stack.
func (d *valueDecoder) decode(data []byte) (any, error) {
	d.b, d.i, d.rangeErr = data, 0, nil
	d.space()
	v, ok := d.value(0)
	if !ok {
		return nil, errJSONSyntax
	}
	d.space()
	if d.i != len(d.b) {
		return nil, errJSONSyntax
	}
	return v, d.rangeErr
}

var (
	errJSONSyntax = errors.New("invalid JSON")
	errJSONRange  = errors.New("JSON number out of range")
)

// maxJSONDepth is encoding/json's nesting limit.
const maxJSONDepth = 10000

type valueDecoder struct {
	b        []byte
	i        int
	rangeErr error
	// stack holds the elements of the arrays and objects being read (an
	// object's as key, value pairs), so that each is made once at its
	// final size instead of growing.
	stack []any
}

func (d *valueDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// value reads one value at nesting depth; ok is false on a syntax error.
func (d *valueDecoder) value(depth int) (any, bool) {
	if d.i >= len(d.b) {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		s, ok := d.str()
		return s, ok
	case c == 't':
		return true, d.word("true")
	case c == 'f':
		return false, d.word("false")
	case c == 'n':
		return nil, d.word("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, false
}

func (d *valueDecoder) word(w string) bool {
	if len(d.b)-d.i >= len(w) && string(d.b[d.i:d.i+len(w)]) == w {
		d.i += len(w)
		return true
	}
	return false
}

func (d *valueDecoder) object(depth int) (any, bool) {
	if depth > maxJSONDepth {
		return nil, false
	}
	d.i++ // {
	base := len(d.stack)
	defer func() { d.stack = d.stack[:base] }()
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return map[string]any{}, true
	}
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		d.stack = append(d.stack, k, v)
		d.space()
		if d.i >= len(d.b) {
			return nil, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.space()
		case '}':
			d.i++
			kv := d.stack[base:]
			m := make(map[string]any, len(kv)/2)
			for j := 0; j < len(kv); j += 2 {
				m[kv[j].(string)] = kv[j+1]
			}
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *valueDecoder) array(depth int) (any, bool) {
	if depth > maxJSONDepth {
		return nil, false
	}
	d.i++ // [
	base := len(d.stack)
	defer func() { d.stack = d.stack[:base] }()
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return []any{}, true
	}
	for {
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		d.stack = append(d.stack, v)
		d.space()
		if d.i >= len(d.b) {
			return nil, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.space()
		case ']':
			d.i++
			return append([]any(nil), d.stack[base:]...), true
		default:
			return nil, false
		}
	}
}

// number reads a number of JSON's grammar as a float64.
func (d *valueDecoder) number() (any, bool) {
	start := d.i
	if d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case d.digits() == 0:
		return nil, false
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if d.digits() == 0 {
			return nil, false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if d.digits() == 0 {
			return nil, false
		}
	}
	if n, ok := smallInt(d.b[start:d.i]); ok {
		return n, true
	}
	f, err := strconv.ParseFloat(string(d.b[start:d.i]), 64)
	if err != nil {
		if d.rangeErr == nil {
			d.rangeErr = errJSONRange
		}
		return nil, true
	}
	return f, true
}

// smallInt reads an integer of at most 15 digits, which a float64 holds
// exactly (what ParseFloat would give), without converting it to a string.
func smallInt(b []byte) (float64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		return -float64(n), true
	}
	return float64(n), true
}

func (d *valueDecoder) digits() int {
	start := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

// str reads a string (at its opening quote). A string of valid UTF-8
// without escapes, the common case, is one copy of its bytes.
func (d *valueDecoder) str() (string, bool) {
	d.i++ // "
	start := d.i
	ascii := true
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			if ascii || utf8.Valid(s) {
				return string(s), true
			}
			return string(appendValidUTF8(nil, s)), true
		case c == '\\':
			return d.unescape(start)
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		d.i++
	}
	return "", false
}

// unescape reads the rest of a string that has an escape; start is where
// its text began, d.i is at the first backslash.
func (d *valueDecoder) unescape(start int) (string, bool) {
	out := appendValidUTF8(make([]byte, 0, d.i-start+16), d.b[start:d.i])
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			// A run up to the next quote, backslash or control byte.
			run := d.i
			for d.i < len(d.b) && d.b[d.i] != '"' && d.b[d.i] != '\\' && d.b[d.i] >= 0x20 {
				d.i++
			}
			out = appendValidUTF8(out, d.b[run:d.i])
			continue
		}
		if d.i+1 >= len(d.b) {
			return "", false
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4(d.i)
			if !ok {
				return "", false
			}
			d.i += 4
			if utf16.IsSurrogate(r) {
				// A pair is one rune; else U+FFFD, and what follows
				// is read on its own (as encoding/json does).
				r2, ok := rune(-1), false
				if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
					r2, ok = d.hex4(d.i + 2)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					d.i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return "", false
}

// hex4 reads the four hex digits of a \u escape at i.
func (d *valueDecoder) hex4(i int) (rune, bool) {
	if len(d.b)-i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendValidUTF8 appends s with each byte that is not part of valid
// UTF-8 replaced by U+FFFD.
func appendValidUTF8(dst, s []byte) []byte {
	if utf8.Valid(s) {
		return append(dst, s...)
	}
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[:size]...)
		}
		s = s[size:]
	}
	return dst
}
