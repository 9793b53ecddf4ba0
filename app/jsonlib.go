package app

import (
	"os"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/tracelab-dev/tracelab/scoring"
)

// TEMPORARY (issue 25 measurement): TRACELAB_JSONLIB=score encodes score
// details with go-json-experiment/json.
var libScore = strings.Contains(os.Getenv("TRACELAB_JSONLIB"), "score")

var v1Options = jsonv1.DefaultOptionsV1()

func appendScoreJSON(ts *scoring.TraceScore, b []byte) ([]byte, error) {
	if !libScore {
		return ts.AppendJSON(b)
	}
	out, err := jsonv2.Marshal(ts, v1Options)
	return append(b, out...), err
}
