package model

import (
	"bytes"
	"encoding/json"
	"hash"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// MarshalV1 is json.Marshal(v), byte for byte, written by
// go-json-experiment/json (the implementation behind encoding/json/v2)
// in encoding/json's semantics. It is what tracelab hashes and stores (a
// trace's content hash, a score's detail), so its bytes must not move.
// The library writes two things otherwise, and they go to encoding/json:
//   - a string that is not valid UTF-8: encoding/json writes each bad
//     byte as the escape \ufffd, the library as the rune U+FFFD itself.
//     Where the library wrote that rune (rare: a bad byte or a U+FFFD in
//     the text), v is encoded again by encoding/json;
//   - encoding/json's Number (the importers keep free-form metadata's
//     numbers as one): the library knows only its own Number type and
//     would write a string.
func MarshalV1(v any) ([]byte, error) {
	b, err := jsonv2.Marshal(v, jsonV1)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(b, []byte("\uFFFD")) {
		return json.Marshal(v)
	}
	return b, nil
}

var jsonV1 = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv2.WithMarshalers(numberV1))

var numberV1 = jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, n json.Number) error {
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	return enc.WriteValue(jsontext.Value(b))
})

// HashV1 writes json.Marshal(v) into h as MarshalV1 does, streamed: h
// never holds the whole encoding, and a big raw value is read in place,
// never copied (hashraw.go). Where the library wrote U+FFFD, h is reset
// and given encoding/json's encoding instead.
func HashV1(h hash.Hash, v any) error {
	w := fffdWatch{w: h}
	s := splicers.Get().(*rawSplicer)
	s.reset(&w)
	err := jsonv2.MarshalWrite(s, v, s.opts)
	if err == nil && len(s.pending) > 0 {
		err = errSplice // a value noted and never reached
	}
	s.reset(nil)
	splicers.Put(s)
	if err != nil {
		return err
	}
	if !w.seen {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	h.Reset()
	h.Write(b)
	return nil
}

// fffdWatch passes writes on and notes whether they held U+FFFD, which
// may straddle two writes.
type fffdWatch struct {
	w    io.Writer
	tail [2]byte // the last two bytes written
	n    int     // how many of tail are set
	seen bool
}

func (f *fffdWatch) Write(p []byte) (int, error) {
	if !f.seen {
		const r = "\uFFFD"
		edge := append(f.tail[2-f.n:2:2], p[:min(len(p), 2)]...)
		f.seen = bytes.Contains(edge, []byte(r)) || bytes.Contains(p, []byte(r))
		switch {
		case len(p) >= 2:
			f.tail, f.n = [2]byte{p[len(p)-2], p[len(p)-1]}, 2
		case len(p) == 1:
			f.tail, f.n = [2]byte{f.tail[1], p[0]}, min(f.n+1, 2)
		}
	}
	return f.w.Write(p)
}
