package importers

import (
	"strconv"

	"github.com/tracelab-dev/tracelab/model"
)

// tokenScanner reads JSON tokens from a byte slice as encoding/json's
// Decoder.Token does, without its cost: the sniff reads up to twenty
// thousand tokens of every file's head before the first record can be
// imported, and Decoder.Token spent a few tens of milliseconds on that
// (it boxes each token and runs the full scanner once per value). It
// gives the same tokens and stops where Token first fails: the state
// machine below is Token's, and a scalar is taken when encoding/json
// would decode it into an interface value (FuzzSniffScanner holds the two
// together).
type tokenScanner struct {
	b     []byte
	i     int
	state scanState
	stack []scanState
	buf   []byte // a string's unquoted bytes, reused
}

// scanState is where the scanner is, as Decoder.Token's tokenState.
type scanState uint8

const (
	scanTopValue scanState = iota
	scanArrayStart
	scanArrayValue
	scanArrayComma
	scanObjectStart
	scanObjectKey
	scanObjectColon
	scanObjectValue
	scanObjectComma
)

// sniffToken is one token: a delimiter ('{', '}', '[', ']'), a string
// (str holds its value, valid until the next call) or another scalar.
type sniffToken struct {
	delim byte
	isStr bool
	str   []byte
}

func (s *tokenScanner) valueAllowed() bool {
	switch s.state {
	case scanTopValue, scanArrayStart, scanArrayValue, scanObjectValue:
		return true
	}
	return false
}

// valueEnd is Token's tokenValueEnd: after a value, a comma is due.
func (s *tokenScanner) valueEnd() {
	switch s.state {
	case scanArrayStart, scanArrayValue:
		s.state = scanArrayComma
	case scanObjectValue:
		s.state = scanObjectComma
	}
}

// next returns the next token; ok is false at the end of the input or at
// the first place Decoder.Token would return an error.
func (s *tokenScanner) next() (tok sniffToken, ok bool) {
	for {
		s.i = model.SkipJSONSpace(s.b, s.i)
		if s.i >= len(s.b) {
			return tok, false
		}
		c := s.b[s.i]
		switch c {
		case '[', '{':
			if !s.valueAllowed() {
				return tok, false
			}
			s.i++
			s.stack = append(s.stack, s.state)
			s.state = scanArrayStart
			if c == '{' {
				s.state = scanObjectStart
			}
			return sniffToken{delim: c}, true
		case ']', '}':
			if c == ']' && s.state != scanArrayStart && s.state != scanArrayComma ||
				c == '}' && s.state != scanObjectStart && s.state != scanObjectComma {
				return tok, false
			}
			s.i++
			s.state = s.stack[len(s.stack)-1]
			s.stack = s.stack[:len(s.stack)-1]
			s.valueEnd()
			return sniffToken{delim: c}, true
		case ':':
			if s.state != scanObjectColon {
				return tok, false
			}
			s.i++
			s.state = scanObjectValue
			continue
		case ',':
			switch s.state {
			case scanArrayComma:
				s.state = scanArrayValue
			case scanObjectComma:
				s.state = scanObjectKey
			default:
				return tok, false
			}
			s.i++
			continue
		case '"':
			key := s.state == scanObjectStart || s.state == scanObjectKey
			if !key && !s.valueAllowed() {
				return tok, false
			}
			out, next, ok := model.AppendUnquoted(s.buf[:0], s.b, s.i+1, true)
			if !ok {
				return tok, false
			}
			s.buf, s.i = out, next
			if key {
				s.state = scanObjectColon
			} else {
				s.valueEnd()
			}
			return sniffToken{isStr: true, str: out}, true
		default:
			if !s.valueAllowed() {
				return tok, false
			}
			n := scalarLen(s.b[s.i:])
			if n == 0 {
				return tok, false
			}
			if c == '-' || c >= '0' && c <= '9' {
				// encoding/json fails a number out of float64's range.
				if _, err := strconv.ParseFloat(string(s.b[s.i:s.i+n]), 64); err != nil {
					return tok, false
				}
			}
			s.i += n
			s.valueEnd()
			return tok, true
		}
	}
}

// scalarLen is the length of the number or literal at the start of b as
// encoding/json's scanner reads a value, or 0 when it fails. The value
// ends where the grammar cannot go on, whatever follows: the scanner
// leaves that byte to the next token ("0" then "1" for "01", both taken
// at the top level; in an array the "1" is then an error).
func scalarLen(b []byte) int {
	for _, lit := range []string{"true", "false", "null"} {
		if b[0] == lit[0] {
			if len(b) >= len(lit) && string(b[:len(lit)]) == lit {
				return len(lit)
			}
			return 0
		}
	}
	return model.JSONNumberLen(b)
}
