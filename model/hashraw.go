package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Big raw values (a tool result, a call's arguments) are hashed in place
// (issue 27 item 10). Given a json.RawMessage, the library's encoder
// copies the whole value into its buffer to reformat it, so hashing a
// trace with a 100 MB result held 100 MB more, and for a result of many
// small values the buffer grew by doubling (470 MB allocated for a 96 MB
// record, bench/bigrecord.sh). Instead, the encoder writes `null` where
// such a value goes and notes where that is in its output (its offset);
// rawSplicer, between the encoder and the hash, passes the output on and,
// at each noted offset, writes the value itself in its place, compacted
// as encoding/json compacts a RawMessage (compactRaw). Offsets, not a
// marker searched for in the text, say where: no content can be taken
// for one. The bytes are json.Marshal's all the same (TestHashV1Spliced,
// FuzzHashV1Spliced): a value that is not valid JSON, not valid UTF-8 or
// holds U+FFFD (which the library and encoding/json write differently)
// goes the library's way.

// rawSpliceFrom is the length from which a raw value is hashed in place;
// shorter ones go through the encoder, as before. A variable for tests,
// which set it to 0 so every raw value takes this path.
var rawSpliceFrom = 64 << 10

// rawSplice is one raw value to write at an offset of the encoder's
// output: at that offset stands an optional delimiter (',' or ':') and
// then `null`.
type rawSplice struct {
	at  int64
	raw []byte
}

// rawSplicer passes the encoder's output on to w, splicing raw values in.
type rawSplicer struct {
	w       io.Writer
	off     int64 // bytes of the encoder's output received
	pending []rawSplice
	matched int // bytes of the current splice's `null` seen, -1 before its delimiter
	opts    jsonv2.Options
	scratch []byte
}

// errSplice is a splice whose offset did not hold `null`: the encoder
// wrote something other than what was noted. It cannot happen with the
// encoder's options here; HashV1 reports it rather than hash wrong bytes.
var errSplice = errors.New("model: hashing a trace: a raw value's place in the output was not where it was noted")

var splicers = sync.Pool{New: func() any {
	s := &rawSplicer{scratch: make([]byte, 0, 32<<10)}
	s.opts = jsonv2.JoinOptions(jsonV1, jsonv2.WithMarshalers(jsonv2.JoinMarshalers(numberV1,
		jsonv2.MarshalToFunc(s.marshalRaw))))
	return s
}}

// marshalRaw notes a big raw value and writes `null` in its place; a
// short or doubtful one goes the library's way (errors.ErrUnsupported).
func (s *rawSplicer) marshalRaw(enc *jsontext.Encoder, v json.RawMessage) error {
	if len(v) < rawSpliceFrom || v == nil || !utf8.Valid(v) || bytes.Contains(v, []byte("\uFFFD")) || !jsontext.Value(v).IsValid(enc.Options()) {
		return errors.ErrUnsupported
	}
	// The encoder may flush within WriteToken, so the splice is noted
	// first, at the end of what it has written so far.
	s.pending = append(s.pending, rawSplice{at: enc.OutputOffset(), raw: v})
	return enc.WriteToken(jsontext.Null)
}

func (s *rawSplicer) reset(w io.Writer) {
	s.w, s.off, s.pending, s.matched = w, 0, s.pending[:0], -1
}

func (s *rawSplicer) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(s.pending) == 0 || s.pending[0].at >= s.off+int64(len(p)) {
			if _, err := s.w.Write(p); err != nil {
				return 0, err
			}
			s.off += int64(len(p))
			break
		}
		sp := &s.pending[0]
		if k := sp.at - s.off; k > 0 {
			if _, err := s.w.Write(p[:k]); err != nil {
				return 0, err
			}
			p, s.off = p[k:], s.off+k
			continue
		}
		// At the splice: pass its delimiter, skip `null`, write the value.
		const null = "null"
		c := p[0]
		switch {
		case s.matched < 0 && (c == ',' || c == ':'):
			if _, err := s.w.Write(p[:1]); err != nil {
				return 0, err
			}
			s.matched = 0
		case c == null[max(s.matched, 0)]:
			s.matched = max(s.matched, 0) + 1
		default:
			return 0, errSplice
		}
		p = p[1:]
		s.off++
		sp.at = s.off // the splice's place moves on with what was read of it
		if s.matched == len(null) {
			if err := s.compactRaw(sp.raw); err != nil {
				return 0, err
			}
			s.pending[0] = rawSplice{}
			s.pending, s.matched = s.pending[1:], -1
		}
	}
	return n, nil
}

// inString and outside mark the bytes compactRaw rewrites in a string
// (the HTML characters encoding/json escapes, 0xE2, which starts U+2028
// and U+2029, and '"' and '\\', which end a string and start an escape)
// and outside one (white space, and '"', which starts a string).
var inString, outside = func() (in, out [256]bool) {
	for _, c := range []byte("\"\\<>&\xE2") {
		in[c] = true
	}
	for _, c := range []byte(" \t\r\n\"") {
		out[c] = true
	}
	return in, out
}()

// compactRaw writes raw, valid JSON in valid UTF-8, as encoding/json
// writes a RawMessage: white space outside strings dropped; in strings,
// '<', '>' and '&' as \u003c, \u003e, \u0026, U+2028 and U+2029 as
// \u2028, \u2029, everything else (escapes included) as it is. It writes
// through a scratch buffer of its own, never the whole value at once.
func (s *rawSplicer) compactRaw(raw []byte) error {
	const room = 16 // the most one rewritten byte appends
	out := s.scratch[:0]
	inStr := false
	for i := 0; i < len(raw); {
		if cap(out)-len(out) <= room {
			if _, err := s.w.Write(out); err != nil {
				return err
			}
			out = out[:0]
		}
		special := &outside
		if inStr {
			special = &inString
		}
		// The run of bytes kept as they are, as far as out has room.
		j, end := i, min(len(raw), i+cap(out)-len(out)-room)
		for j < end && !special[raw[j]] {
			j++
		}
		out = append(out, raw[i:j]...)
		if i = j; i == end {
			continue
		}
		c := raw[i]
		i++
		switch {
		case !inStr:
			if c == '"' {
				inStr = true
				out = append(out, c)
			} // else white space, dropped
		case c == '"':
			inStr = false
			out = append(out, c)
		case c == '\\':
			out = append(out, c, raw[i]) // valid JSON: an escape has its next byte
			i++
		case c == '<':
			out = append(out, `\u003c`...)
		case c == '>':
			out = append(out, `\u003e`...)
		case c == '&':
			out = append(out, `\u0026`...)
		case c == 0xE2 && i+1 < len(raw) && raw[i] == 0x80 && (raw[i+1] == 0xA8 || raw[i+1] == 0xA9):
			out = append(out, `\u202`...)
			out = append(out, "89"[raw[i+1]-0xA8])
			i += 2
		default:
			out = append(out, c) // 0xE2 starting another rune
		}
	}
	_, err := s.w.Write(out)
	return err
}
