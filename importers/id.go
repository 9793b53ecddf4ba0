package importers

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
)

// Deterministic ids for records that carry none, stable across re-imports.

// hashID is the id of a record that carries none: stable across
// re-imports of the same bytes.
func hashID(format string, raw []byte) string {
	sum := sha256.Sum256(raw)
	return format + "-" + hex.EncodeToString(sum[:])[:12]
}

// recordHash is hashID over a record read in pieces (a stream of events).
type recordHash struct{ h hash.Hash }

func (r *recordHash) add(p []byte) {
	if r.h == nil {
		r.h = sha256.New()
	}
	r.h.Write(p)
	r.h.Write([]byte{'\n'})
}

func (r *recordHash) id(format string) string {
	if r.h == nil {
		r.h = sha256.New()
	}
	return format + "-" + hex.EncodeToString(r.h.Sum(nil))[:12]
}

// genID is the deterministic trace id for sources without one.
func genID(format string, record []byte) string {
	sum := sha256.Sum256(record)
	return format + "-" + hex.EncodeToString(sum[:])[:12]
}
