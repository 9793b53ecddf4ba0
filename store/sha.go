package store

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"unsafe"

	"tracelab/model"
)

// bigRaw is the size from which traceSHA hashes a step's arguments or
// result in place instead of through json.Marshal.
const bigRaw = 64 << 10

// traceSHA is contentSHA(t), the same bytes hashed, without holding the
// whole encoding: a 200 MB tool result encoded with the rest of the trace
// cost its size twice over (the encoder's growing buffer), on top of the
// record and its decoded copy. Large arguments and results are replaced by
// placeholders for the marshal, and hashed where their placeholder falls,
// as json.Marshal would write them.
func traceSHA(t *model.Trace) string {
	var pieces []json.RawMessage
	var nonce string
	tc := *t
	for i, s := range t.Steps {
		for _, raw := range []*json.RawMessage{&s.Args, &s.Result} {
			if len(*raw) < bigRaw {
				continue
			}
			if pieces == nil {
				nonce = newNonce()
				tc.Steps = slices.Clone(t.Steps)
			}
			ph := json.RawMessage(strconv.Quote(nonce + strconv.Itoa(len(pieces))))
			pieces = append(pieces, *raw)
			if raw == &s.Args {
				tc.Steps[i].Args = ph
			} else {
				tc.Steps[i].Result = ph
			}
		}
	}
	if pieces == nil {
		return contentSHA(t)
	}
	skel, err := json.Marshal(&tc)
	if err != nil {
		panic(fmt.Sprintf("store: encoding a trace: %v", err)) // model types always encode
	}
	h := sha256.New()
	pos := 0
	for k, raw := range pieces {
		ph := []byte(strconv.Quote(nonce + strconv.Itoa(k)))
		at := bytes.Index(skel[pos:], ph)
		if at < 0 {
			panic("store: placeholder lost in a trace's encoding")
		}
		h.Write(skel[pos : pos+at])
		hashMarshalled(h, raw)
		pos += at + len(ph)
	}
	h.Write(skel[pos:])
	return hex.EncodeToString(h.Sum(nil))
}

// newNonce makes placeholders no trace content can hold by chance.
func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "tracelab-sha-" + hex.EncodeToString(b[:]) + "-"
}

// hashMarshalled writes what json.Marshal writes for raw: raw itself when
// it is valid, compact, and holds nothing the encoder escapes (<, >, &,
// U+2028, U+2029), which is what importers give; else its encoding.
func hashMarshalled(h hash.Hash, raw json.RawMessage) {
	if json.Valid(raw) && marshalsAsIs(raw) {
		h.Write(raw)
		return
	}
	b, err := json.Marshal(raw)
	if err != nil {
		panic(fmt.Sprintf("store: encoding a step's JSON: %v", err))
	}
	h.Write(b)
}

// marshalsAsIs reports whether valid JSON raw has no whitespace outside
// its strings and no character json.Marshal escapes.
func marshalsAsIs(raw []byte) bool {
	inString, escaped := false, false
	for i, c := range raw {
		switch {
		case c == '<' || c == '>' || c == '&':
			return false
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
			return false
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return false
		}
	}
	return true
}

// rawText is raw as a string without a copy: a step's JSON is bound to
// its column once and never changed after it was decoded, and a copy of a
// 200 MB result was a fifth of an import's peak memory.
func rawText(raw json.RawMessage) string {
	return unsafe.String(unsafe.SliceData(raw), len(raw))
}
