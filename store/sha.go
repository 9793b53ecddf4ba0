package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"sync"
	"unsafe"

	"github.com/tracelab-dev/tracelab/model"
)

// bigRaw is the size from which traceSHA hashes a step's arguments or
// result in place instead of copying them into the encoding.
const bigRaw = 64 << 10

// traceSHA is contentSHA(t), the sha256 of json.Marshal(t), with the
// encoding written by hand (TestTraceSHAIsContentSHA, TestTraceSHAOnSamples,
// FuzzTraceSHA) and streamed into the hash. encoding/json's reflection and
// its second reading of every raw JSON value were two thirds of hashing a
// trace (BenchmarkTraceSHA), and every trace imported is hashed. A large
// argument or result is hashed in place: a 200 MB tool result encoded
// with the rest of the trace cost its size twice over (the encoder's
// growing buffer), on top of the record and its decoded copy.
func traceSHA(t *model.Trace) string {
	if libSHA {
		return traceSHALib(t)
	}
	th := traceHashers.Get().(*traceHasher)
	defer func() {
		if cap(th.e.B) <= 4*bigRaw { // a long text's buffer is not kept
			traceHashers.Put(th)
		}
	}()
	th.h.Reset()
	th.e = model.JSONAppender{B: th.e.B[:0]}
	th.trace(t)
	if th.e.Err != nil {
		panic(fmt.Sprintf("store: encoding a trace: %v", th.e.Err)) // model types always encode
	}
	th.flush()
	var sum [sha256.Size]byte
	return hex.EncodeToString(th.h.Sum(sum[:0]))
}

// traceHasher holds a hash and the buffer its encoding goes through.
type traceHasher struct {
	h hash.Hash
	e model.JSONAppender
}

var traceHashers = sync.Pool{New: func() any { return &traceHasher{h: sha256.New()} }}

// flush hashes what is encoded so far.
func (th *traceHasher) flush() {
	th.h.Write(th.e.B)
	th.e.B = th.e.B[:0]
}

// trace writes t's fields as json.Marshal does: in model.Trace's order,
// the omitempty ones only when set.
func (th *traceHasher) trace(t *model.Trace) {
	e := &th.e
	e.Key('{', "trace_id")
	e.Str(t.TraceID)
	e.Key(',', "server")
	e.Str(t.Server)
	th.optional("run_id", t.RunID)
	th.optional("user_role", t.UserRole)
	th.optional("as_user", t.AsUser)
	e.Key(',', "question")
	e.Str(t.Question)
	th.optional("started_at", t.StartedAt)
	th.optional("outcome", string(t.Outcome))
	th.optional("model", t.Model)
	th.optional("answer", t.Answer)
	if len(t.Tools) > 0 {
		e.Key(',', "tools")
		model.AppendJSONList(e, t.Tools, th.tool)
	}
	e.Key(',', "steps")
	model.AppendJSONList(e, t.Steps, th.step)
	e.Key(',', "usage")
	e.Key('{', "input_tokens")
	e.Int(t.Usage.InputTokens)
	e.Key(',', "output_tokens")
	e.Int(t.Usage.OutputTokens)
	e.Key(',', "usd")
	e.Float(t.Usage.USD)
	if t.Usage.Estimated {
		e.Key(',', "estimated")
		e.Bool(true)
	}
	e.B = append(e.B, '}')
	if len(t.Metadata) > 0 {
		e.Key(',', "metadata")
		b, err := json.Marshal(t.Metadata) // free-form and small: encoding/json sorts its keys
		th.add(b, err)
	}
	e.B = append(e.B, '}')
}

func (th *traceHasher) tool(tc *model.ToolContract) {
	e := &th.e
	e.Key('{', "name")
	e.Str(tc.Name)
	th.optional("title", tc.Title)
	th.optional("description", tc.Description)
	th.raw("inputSchema", tc.InputSchema)
	th.raw("outputSchema", tc.OutputSchema)
	th.raw("annotations", tc.Annotations)
	e.B = append(e.B, '}')
}

func (th *traceHasher) step(s *model.Step) {
	e := &th.e
	e.Key('{', "kind")
	e.Str(string(s.Kind))
	th.optional("id", s.ID)
	th.optional("call_id", s.CallID)
	th.optional("text", s.Text)
	th.optional("tool", s.Tool)
	th.raw("args", s.Args)
	th.raw("result", s.Result)
	th.optional("as_of", s.AsOf)
	if s.IsError {
		e.Key(',', "is_error")
		e.Bool(true)
	}
	th.optional("credential", s.Credential)
	th.optional("next_cursor", s.NextCursor)
	if s.HasMore {
		e.Key(',', "has_more")
		e.Bool(true)
	}
	e.B = append(e.B, '}')
	if len(e.B) >= bigRaw {
		th.flush() // a trace of many steps is hashed as it goes, not held
	}
}

// optional writes an omitempty string member.
func (th *traceHasher) optional(name, v string) {
	if v != "" {
		th.e.Key(',', name)
		th.e.Str(v)
	}
}

// raw writes an omitempty json.RawMessage member as json.Marshal does
// (appendMarshalled). A large one that needs no change is hashed where it
// stands.
func (th *traceHasher) raw(name string, raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	th.e.Key(',', name)
	if len(raw) >= bigRaw && marshalsAsIs(raw) {
		th.flush()
		th.h.Write(raw)
		return
	}
	th.e.B = appendMarshalled(th.e.B, raw)
}

// appendMarshalled appends what json.Marshal writes for raw JSON: raw
// compacted, with <, >, & and U+2028, U+2029 written as \u escapes. It
// does not check that raw is valid, as json.Marshal does: a model type's
// raw JSON was decoded by encoding/json or written by it.
func appendMarshalled(b []byte, raw []byte) []byte {
	const hex = "0123456789abcdef"
	var sc rawScan
	for i := 0; ; {
		j := sc.next(raw, i)
		b = append(b, raw[i:j]...)
		if j == len(raw) {
			return b
		}
		switch c := raw[j]; c {
		case '<', '>', '&':
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			i = j + 1
		case 0xE2:
			b = append(b, '\\', 'u', '2', '0', '2', hex[raw[j+2]&0xF])
			i = j + 3
		default:
			i = j + 1 // white space outside a string
		}
	}
}

// marshalsAsIs reports whether json.Marshal writes valid JSON raw as it
// is: no white space outside its strings, no character it escapes.
func marshalsAsIs(raw []byte) bool {
	var sc rawScan
	return sc.next(raw, 0) == len(raw)
}

// rawScan finds in raw JSON the bytes json.Marshal rewrites.
type rawScan struct{ inString, escaped bool }

// next is the offset, from i on, of the next byte json.Marshal rewrites
// (<, >, &, the first byte of U+2028 or U+2029, white space outside a
// string), or len(raw).
func (sc *rawScan) next(raw []byte, i int) int {
	for ; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			return i
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
			return i
		case sc.inString:
			switch {
			case sc.escaped:
				sc.escaped = false
			case c == '\\':
				sc.escaped = true
			case c == '"':
				sc.inString = false
			}
		case c == '"':
			sc.inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return i
		}
	}
	return len(raw)
}

// add writes what json.Marshal gave for a part, or keeps its error.
func (th *traceHasher) add(b []byte, err error) {
	if err != nil && th.e.Err == nil {
		th.e.Err = err
	}
	th.e.B = append(th.e.B, b...)
}

// rawText is raw as a string without a copy: a step's JSON is bound to
// its column once and never changed after it was decoded, and a copy of a
// 200 MB result was a fifth of an import's peak memory.
func rawText(raw json.RawMessage) string {
	return unsafe.String(unsafe.SliceData(raw), len(raw))
}
