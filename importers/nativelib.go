package importers

import (
	"os"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// TEMPORARY (issue 25 measurement): TRACELAB_JSONLIB=native decodes
// native lines with go-json-experiment/json in encoding/json's semantics.
var libNative = strings.Contains(os.Getenv("TRACELAB_JSONLIB"), "native")

var v1Options = jsonv1.DefaultOptionsV1()

func decodeNativeLib(data []byte) (nt nativeTrace, ok bool) {
	if err := jsonv2.Unmarshal(data, &nt, v1Options); err != nil {
		return nativeTrace{}, false
	}
	return nt, true
}
