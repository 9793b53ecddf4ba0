package importers

import (
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
