package model

import (
	"unicode/utf16"
	"unicode/utf8"
)

// AppendUnquoted appends to dst the value of the JSON string whose text
// begins at b[i], just after its opening quote, and returns where the
// bytes after its closing quote begin; ok is false when the string is not
// JSON (an unknown escape, a control byte, no closing quote). The store's
// step bodies and the scorer's decoder of tool results share it.
//
// With replaceInvalid, bytes that are not UTF-8 become U+FFFD, as
// encoding/json reads them; without, they are kept as they are, so a
// string written with its bytes as they were comes back byte for byte. A
// lone surrogate escape becomes U+FFFD either way, and the escape after it
// is read on its own, as encoding/json does.
func AppendUnquoted(dst, b []byte, i int, replaceInvalid bool) (out []byte, next int, ok bool) {
	for i < len(b) {
		run := i
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
			i++
		}
		if replaceInvalid {
			dst = appendValidUTF8(dst, b[run:i])
		} else {
			dst = append(dst, b[run:i]...)
		}
		if i >= len(b) || b[i] < 0x20 {
			return dst, i, false
		}
		if b[i] == '"' {
			return dst, i + 1, true
		}
		if i+1 >= len(b) {
			return dst, i, false
		}
		e := b[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(b, i)
			if !ok {
				return dst, i, false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
					r2, ok = hex4(b, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, i, false
		}
	}
	return dst, i, false
}

// hex4 reads the four hex digits of a \u escape at b[i].
func hex4(b []byte, i int) (rune, bool) {
	if len(b)-i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
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

// SkipJSONSpace returns the index of the first byte of b from i on that
// is not JSON white space (space, tab, newline, carriage return). The
// store's step bodies, the scorer's value decoder and the importers'
// sniff read JSON with it.
func SkipJSONSpace[T ~string | ~[]byte](b T, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// JSONNumberLen is the length of the JSON number at the start of b, or 0
// when b does not start with one. The number ends where the grammar
// cannot go on, whatever follows ("0" of "01", "1.5" of "1.5.3"), as in
// encoding/json's scanner. The scorer's value decoder and the importers'
// sniff read numbers with it.
func JSONNumberLen(b []byte) int {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digitsEnd(b, i)
	default:
		return 0
	}
	if i < len(b) && b[i] == '.' {
		if j := digitsEnd(b, i+1); j > i+1 {
			i = j
		} else {
			return 0
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if j := digitsEnd(b, i); j > i {
			i = j
		} else {
			return 0
		}
	}
	return i
}

// digitsEnd is the index after the run of ASCII digits of b from i on.
func digitsEnd(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
