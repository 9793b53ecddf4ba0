package importers

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/tracelab-dev/tracelab/model"
)

// decodeNativeFast decodes one native trace line into what json.Unmarshal
// gives for it, without encoding/json's reflection, which was a tenth of
// an import's CPU (BenchmarkDecodeNative). It reads only lines it fully
// understands: every member name spelled as the tags spell it, at most
// once; no null; integers where integers go; valid JSON throughout. For
// anything else ok is false and the caller decodes with json.Unmarshal,
// which also gives the errors (TestDecodeNativeFastAsUnmarshal and
// FuzzDecodeNativeFast hold the two to the same result).
func decodeNativeFast(data []byte) (nt nativeTrace, ok bool) {
	d := nativeDecoder{b: data}
	if !d.trace(&nt) {
		return nativeTrace{}, false
	}
	if model.SkipJSONSpace(data, d.i) != len(data) {
		return nativeTrace{}, false
	}
	return nt, true
}

// nativeDecoder reads one line; i is where it is.
type nativeDecoder struct {
	b   []byte
	i   int
	buf []byte // a string's unescaped bytes
}

// maxRawDepth bounds the nesting of a raw value the decoder skips over;
// deeper ones go to encoding/json, which has its own bound.
const maxRawDepth = 1000

// members reads an object whose members one handles, each name at most
// once (seen holds the names read, by the bit one gives them).
func (d *nativeDecoder) members(one func(name []byte) (bit uint32, ok bool)) bool {
	var seen uint32
	return d.list('{', '}', func() bool {
		name, ok := d.name()
		if !ok || !d.eat(':') {
			return false
		}
		bit, ok := one(name)
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
}

// trace reads the top-level object into nt.
func (d *nativeDecoder) trace(nt *nativeTrace) bool {
	t := &nt.Trace
	return d.members(func(name []byte) (uint32, bool) {
		switch string(name) {
		case "trace_id":
			return 1 << 0, d.str(&t.TraceID)
		case "server":
			return 1 << 1, d.str(&t.Server)
		case "run_id":
			return 1 << 2, d.str(&t.RunID)
		case "user_role":
			return 1 << 3, d.str(&t.UserRole)
		case "as_user":
			return 1 << 4, d.str(&t.AsUser)
		case "question":
			return 1 << 5, d.str(&t.Question)
		case "started_at":
			return 1 << 6, d.str(&t.StartedAt)
		case "outcome":
			return 1 << 7, d.str((*string)(&t.Outcome))
		case "model":
			return 1 << 8, d.str(&t.Model)
		case "answer":
			return 1 << 9, d.str(&t.Answer)
		case "tools":
			return 1 << 10, d.rawList(&nt.Tools)
		case "steps":
			return 1 << 11, d.steps(&t.Steps)
		case "usage":
			return 1 << 12, d.usage(&t.Usage)
		case "metadata":
			return 1 << 13, d.metadata(&t.Metadata)
		}
		return 0, false
	})
}

// array reads an array, each element with one.
func (d *nativeDecoder) array(one func() bool) bool { return d.list('[', ']', one) }

// list reads an array or an object (open, end), each element or member
// with one.
func (d *nativeDecoder) list(open, end byte, one func() bool) bool {
	if !d.eat(open) {
		return false
	}
	if d.eat(end) {
		return true
	}
	for {
		if !one() {
			return false
		}
		if !d.eat(',') {
			return d.eat(end)
		}
	}
}

func (d *nativeDecoder) steps(out *[]model.Step) bool {
	steps := []model.Step{}
	*out = steps
	return d.array(func() bool {
		steps = append(steps, model.Step{})
		*out = steps
		return d.step(&steps[len(steps)-1])
	})
}

func (d *nativeDecoder) step(s *model.Step) bool {
	return d.members(func(name []byte) (uint32, bool) {
		switch string(name) {
		case "kind":
			return 1 << 0, d.str((*string)(&s.Kind))
		case "id":
			return 1 << 1, d.str(&s.ID)
		case "call_id":
			return 1 << 2, d.str(&s.CallID)
		case "text":
			return 1 << 3, d.str(&s.Text)
		case "tool":
			return 1 << 4, d.str(&s.Tool)
		case "args":
			return 1 << 5, d.raw(&s.Args)
		case "result":
			return 1 << 6, d.raw(&s.Result)
		case "as_of":
			return 1 << 7, d.str(&s.AsOf)
		case "is_error":
			return 1 << 8, d.bool(&s.IsError)
		case "credential":
			return 1 << 9, d.str(&s.Credential)
		case "next_cursor":
			return 1 << 10, d.str(&s.NextCursor)
		case "has_more":
			return 1 << 11, d.bool(&s.HasMore)
		}
		return 0, false
	})
}

func (d *nativeDecoder) usage(u *model.Usage) bool {
	return d.members(func(name []byte) (uint32, bool) {
		switch string(name) {
		case "input_tokens":
			return 1 << 0, d.int(&u.InputTokens)
		case "output_tokens":
			return 1 << 1, d.int(&u.OutputTokens)
		case "usd":
			return 1 << 2, d.float(&u.USD)
		case "estimated":
			return 1 << 3, d.bool(&u.Estimated)
		}
		return 0, false
	})
}

// metadata is free-form: encoding/json decodes it, on its own.
func (d *nativeDecoder) metadata(m *map[string]any) bool {
	start := d.at()
	if start >= len(d.b) || d.b[start] != '{' || !d.skip(0) {
		return false
	}
	return json.Unmarshal(d.b[start:d.i], m) == nil
}

// rawList reads an array of raw values.
func (d *nativeDecoder) rawList(out *[]json.RawMessage) bool {
	*out = []json.RawMessage{}
	return d.array(func() bool {
		var r json.RawMessage
		ok := d.raw(&r)
		*out = append(*out, r)
		return ok
	})
}

// raw reads a value other than null as a copy of its text, as
// json.RawMessage does.
func (d *nativeDecoder) raw(out *json.RawMessage) bool {
	start := d.at()
	if start < len(d.b) && d.b[start] == 'n' {
		return false // null: encoding/json's handling of it is its own
	}
	if !d.skip(0) {
		return false
	}
	*out = bytes.Clone(d.b[start:d.i])
	return true
}

// at skips white space and says where the next value starts.
func (d *nativeDecoder) at() int {
	d.i = model.SkipJSONSpace(d.b, d.i)
	return d.i
}

func (d *nativeDecoder) eat(c byte) bool {
	if d.at() < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// name reads a member name without escapes, as a part of the line.
func (d *nativeDecoder) name() ([]byte, bool) {
	if !d.eat('"') {
		return nil, false
	}
	end := bytes.IndexByte(d.b[d.i:], '"')
	if end < 0 {
		return nil, false
	}
	name := d.b[d.i : d.i+end]
	d.i += end + 1
	return name, bytes.IndexByte(name, '\\') < 0
}

// str reads a string as encoding/json does: escapes undone, bytes that
// are not UTF-8 as U+FFFD.
func (d *nativeDecoder) str(out *string) bool {
	if !d.eat('"') {
		return false
	}
	var ok bool
	d.buf, d.i, ok = model.AppendUnquoted(d.buf[:0], d.b, d.i, true)
	*out = string(d.buf)
	return ok
}

func (d *nativeDecoder) bool(out *bool) bool {
	switch rest := d.b[d.at():]; {
	case bytes.HasPrefix(rest, []byte("true")):
		*out, d.i = true, d.i+4
	case bytes.HasPrefix(rest, []byte("false")):
		*out, d.i = false, d.i+5
	default:
		return false
	}
	return d.ended()
}

// int reads an integer written without a fraction or an exponent.
func (d *nativeDecoder) int(out *int64) bool {
	n := model.JSONNumberLen(d.b[d.at():])
	num := d.b[d.i : d.i+n]
	if n == 0 || bytes.ContainsAny(num, ".eE") {
		return false
	}
	v, err := strconv.ParseInt(string(num), 10, 64)
	*out, d.i = v, d.i+n
	return err == nil && d.ended()
}

func (d *nativeDecoder) float(out *float64) bool {
	n := model.JSONNumberLen(d.b[d.at():])
	if n == 0 {
		return false
	}
	v, err := strconv.ParseFloat(string(d.b[d.i:d.i+n]), 64)
	*out, d.i = v, d.i+n
	return err == nil && d.ended()
}

// ended reports whether a scalar just read ends where it should: at white
// space or a delimiter ("truex" or "12a" is not JSON).
func (d *nativeDecoder) ended() bool {
	if d.i >= len(d.b) {
		return true
	}
	switch d.b[d.i] {
	case ' ', '\t', '\n', '\r', ',', '}', ']':
		return true
	}
	return false
}

// skip reads past one valid JSON value.
func (d *nativeDecoder) skip(depth int) bool {
	if d.at() >= len(d.b) {
		return false
	}
	switch c := d.b[d.i]; {
	case c == '{' || c == '[':
		if depth >= maxRawDepth {
			return false
		}
		if c == '[' {
			return d.array(func() bool { return d.skip(depth + 1) })
		}
		return d.list('{', '}', func() bool {
			if !d.eat('"') {
				return false
			}
			var ok bool
			d.i, ok = skipString(d.b, d.i)
			return ok && d.eat(':') && d.skip(depth+1)
		})
	case c == '"':
		var ok bool
		d.i, ok = skipString(d.b, d.i+1)
		return ok
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(d.b[d.i:], []byte(lit)) {
				d.i += len(lit)
				return d.ended()
			}
		}
		return false
	default:
		n := model.JSONNumberLen(d.b[d.i:])
		d.i += n
		return n > 0 && d.ended()
	}
}

// skipString reads past a JSON string whose text begins at b[i], just
// after its quote, checking its escapes and that it holds no control
// byte; bytes that are not UTF-8 pass, as they pass json.Valid.
func skipString(b []byte, i int) (int, bool) {
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return i, false
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return i, false
					}
				}
				i += 6
			default:
				return i, false
			}
		default:
			i++
		}
	}
	return i, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}
