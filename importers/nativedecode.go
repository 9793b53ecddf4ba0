package importers

import (
	"encoding/json"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// decodeNative decodes one native trace line as encoding/json's Unmarshal
// does, with go-json-experiment/json (the implementation behind
// encoding/json/v2) in encoding/json's semantics. ok is false when the
// line does not decode; the caller then decodes it with encoding/json for
// the error it gives (TestDecodeNativeAsUnmarshal, FuzzDecodeNative).
//
// A hand-written decoder (nativefast.go, 377 lines) stood here until
// issue 25: at the level of a whole import with scoring of 20,000 traces
// with every SQL statement distinct it was not faster than this one: CPU
// 12.26 s against 11.96 s and 14.69 s against 13.87 s in two rounds
// (bench/importab.sh at 81c847b, TRACELAB_JSONLIB unset against =native).
func decodeNative(data []byte) (nt nativeTrace, ok bool) {
	if err := jsonv2.Unmarshal(data, &nt, v1Options); err != nil {
		return nativeTrace{}, false
	}
	return nt, true
}

var v1Options = jsonv1.DefaultOptionsV1()

// decodeNativeInPlace is decodeNative for a line the reader made for it
// and keeps no more (lines' owned): a raw value (a result, arguments, a
// tool) of at least half the line and 64 KiB is kept in the line, not
// copied out of it, as encoding/json's RawMessage would (issue 27 item
// 10: a 100 MB result was held twice, in its line and in its copy, until
// the line was let go). Only such a value: a small one kept in place
// would hold the whole line for as long as the trace lives.
func decodeNativeInPlace(data []byte) (nt nativeTrace, ok bool) {
	return decodeNativeFrom(data, inPlaceFrom)
}

// decodeNativeFrom is decodeNativeInPlace keeping raw values from length
// from in the line (tests take every one of half the line).
func decodeNativeFrom(data []byte, from int) (nt nativeTrace, ok bool) {
	inPlace := jsonv2.WithUnmarshalers(jsonv2.UnmarshalFunc(func(b []byte, v *json.RawMessage) error {
		if len(b) < from || 2*len(b) < len(data) {
			return v.UnmarshalJSON(b) // copied, as ever
		}
		*v = b[:len(b):len(b)]
		return nil
	}))
	if err := jsonv2.Unmarshal(data, &nt, v1Options, inPlace); err != nil {
		return nativeTrace{}, false
	}
	return nt, true
}

// inPlaceFrom is the least length of a raw value kept in its line.
const inPlaceFrom = 64 << 10
