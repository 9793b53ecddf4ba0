package scoring

import (
	"errors"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/tracelab-dev/tracelab/model"
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
	d := decoders.Get().(*valueDecoder)
	defer decoders.Put(d)
	return d.decode(data)
}

// decode is decodeValue reusing d's stack.
func (d *valueDecoder) decode(data []byte) (any, error) {
	d.inPlace = false
	return d.read(data)
}

// decodeInPlace is decode for data no one changes while the value is in
// use (a step's result, which scoring only reads): a long string with
// nothing to unescape is data's own bytes, not a copy of them. A 25 MB
// string result cost the scorer 25 MB more (issue 27 item 10). The
// value holds data for as long as it lives; short strings are copied, as
// the decoder keeps them from trace to trace (short).
func (d *valueDecoder) decodeInPlace(data []byte) (any, error) {
	d.inPlace = true
	return d.read(data)
}

func (d *valueDecoder) read(data []byte) (any, error) {
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
	// stack holds the elements of the arrays and objects being read, and
	// keys the keys of the objects', so that each is made once at its
	// final size instead of growing.
	stack []any
	keys  []string
	// short holds short strings read before, boxed: the arguments and
	// results of a run's traces repeat their keys and many values
	// ("name", "type", a column's or a table's name), and a decoder that
	// scores many traces (decoders) allocates each once.
	short map[string]any
	// inPlace: a long string is b's own bytes (decodeInPlace).
	inPlace bool
}

// inPlaceFrom is the least length of a string decodeInPlace leaves in
// its data.
const inPlaceFrom = 4 << 10

// maxShort is the longest string a decoder keeps in short, and
// maxShortStrings how many it keeps.
const (
	maxShort        = 32
	maxShortStrings = 4096
)

// decoders lends the scorer's goroutines a decoder each, short strings
// and stacks kept from trace to trace.
var decoders = sync.Pool{New: func() any { return &valueDecoder{} }}

func (d *valueDecoder) space() { d.i = model.SkipJSONSpace(d.b, d.i) }

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
		return d.str()
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
	base, kbase := len(d.stack), len(d.keys)
	defer func() { d.stack, d.keys = d.stack[:base], d.keys[:kbase] }()
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return map[string]any{}, true
	}
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		kv, ok := d.str()
		if !ok {
			return nil, false
		}
		k := kv.(string)
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
		d.stack, d.keys = append(d.stack, v), append(d.keys, k)
		more, ok := d.after('}')
		if !ok {
			return nil, false
		}
		if !more {
			ks, vs := d.keys[kbase:], d.stack[base:]
			m := make(map[string]any, len(ks))
			for j, k := range ks {
				m[k] = vs[j]
			}
			return m, true
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
		more, ok := d.after(']')
		if !ok {
			return nil, false
		}
		if !more {
			return append([]any(nil), d.stack[base:]...), true
		}
	}
}

// after reads what follows an element of an array or object: a comma
// (more is true, and the space after it is read too) or the closing byte;
// ok is false on anything else.
func (d *valueDecoder) after(closing byte) (more, ok bool) {
	d.space()
	if d.i >= len(d.b) {
		return false, false
	}
	switch d.b[d.i] {
	case ',':
		d.i++
		d.space()
		return true, true
	case closing:
		d.i++
		return false, true
	}
	return false, false
}

// number reads a number of JSON's grammar as a float64.
func (d *valueDecoder) number() (any, bool) {
	start := d.i
	n := model.JSONNumberLen(d.b[d.i:])
	if n == 0 {
		return nil, false
	}
	d.i += n
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

// str reads a string (at its opening quote), boxed (a string in an any).
// A string of valid UTF-8 without escapes, the common case, is one copy
// of its bytes, and a short one the decoder read before is the same box.
func (d *valueDecoder) str() (any, bool) {
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
				if d.inPlace && len(s) >= inPlaceFrom {
					return unsafe.String(&s[0], len(s)), true
				}
				if len(s) > maxShort {
					return string(s), true
				}
				if v, ok := d.short[string(s)]; ok {
					return v, true
				}
				v := any(string(s))
				if len(d.short) < maxShortStrings {
					if d.short == nil {
						d.short = map[string]any{}
					}
					d.short[v.(string)] = v
				}
				return v, true
			}
		case c == '\\' || c < 0x20:
		case c >= utf8.RuneSelf:
			ascii = false
			d.i++
			continue
		default:
			d.i++
			continue
		}
		// An escape, a control byte or invalid UTF-8: the slow way.
		out, next, ok := model.AppendUnquoted(make([]byte, 0, d.i-start+16), d.b, start, true)
		d.i = next
		return string(out), ok
	}
	return nil, false
}
