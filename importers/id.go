package importers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tracelab-dev/tracelab/model"
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

// checkIDs refuses a trace whose ids are not valid UTF-8. encoding/json
// reads invalid bytes as U+FFFD, so two ids that differ only in their
// invalid bytes would silently become one id; a precise error is better
// than a collision (or a replacement character nobody typed).
func checkIDs(t *model.Trace) *LineError {
	// Paths are built only for a bad id: this runs on every step.
	bad := func(path, id string) *LineError {
		return &LineError{Path: path, Msg: fmt.Sprintf("id %s holds invalid UTF-8 (read as U+FFFD): ids must be valid UTF-8, or two different ids could become one", strconv.QuoteToASCII(id))}
	}
	if !validID(t.TraceID) {
		return bad("trace_id", t.TraceID)
	}
	for i, s := range t.Steps {
		if !validID(s.ID) {
			return bad(fmt.Sprintf("steps[%d].id", i), s.ID)
		}
		if !validID(s.CallID) {
			return bad(fmt.Sprintf("steps[%d].call_id", i), s.CallID)
		}
	}
	return nil
}

func validID(id string) bool {
	return utf8.ValidString(id) && !strings.ContainsRune(id, utf8.RuneError)
}

// validText replaces invalid UTF-8 in a trace's texts, tool arguments and
// results with U+FFFD, visibly: encoding/json already does so for the
// strings it decodes, but raw JSON (args, results) keeps the bytes, which
// a PostgreSQL database refuses and every reader of the stored JSON would
// have to guess at. Unlike an id, a changed byte in them merges nothing.
func validText(t *model.Trace) {
	t.Question = validString(t.Question)
	t.Answer = validString(t.Answer)
	for i := range t.Steps {
		s := &t.Steps[i]
		s.Text = validString(s.Text)
		s.Args = validRaw(s.Args)
		s.Result = validRaw(s.Result)
	}
	for i := range t.Tools {
		t.Tools[i].InputSchema = validRaw(t.Tools[i].InputSchema)
		t.Tools[i].OutputSchema = validRaw(t.Tools[i].OutputSchema)
	}
}

func validString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// validRaw keeps raw JSON valid: invalid bytes can only sit inside its
// strings, where U+FFFD is as good a character as any.
func validRaw(raw json.RawMessage) json.RawMessage {
	if utf8.Valid(raw) {
		return raw
	}
	return bytes.ToValidUTF8(raw, []byte("\uFFFD"))
}
