package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/tracelab-dev/tracelab/model"
)

// traceSHA is contentSHA(t), the sha256 of json.Marshal(t), byte for byte
// (TestTraceSHAIsContentSHA, TestTraceSHAOnSamples, FuzzTraceSHA, and the
// stored hashes pinned in app's TestStoredHashesArePinned): a database
// compares it with the hash it stored to know whether a trace seen again
// changed. It is written by go-json-experiment/json (model.HashV1),
// streamed into the hash.
//
// A hand-written encoder stood here until issue 25: at the level of a
// whole import with scoring of 20,000 traces with every SQL statement
// distinct it was not 1.5x faster than this: CPU 12.26 s against 15.34 s
// and 14.69 s against 16.29 s in two rounds (1.25x, 1.11x;
// bench/importab.sh at 81c847b, TRACELAB_JSONLIB unset against =sha).
// A large argument or result is hashed in place, as the hand-written
// encoder did (model/hashraw.go, TestPutTraceHeapPerRecord).
func traceSHA(t *model.Trace) string {
	h := sha256.New()
	if err := model.HashV1(h, t); err != nil {
		panic(fmt.Sprintf("store: encoding a trace: %v", err)) // model types always encode
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}
