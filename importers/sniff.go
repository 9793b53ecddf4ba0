package importers

// Content sniffing for the detectors: what a file's first bytes show
// without decoding it whole.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// shape is what a detector can tell from the first bytes of a file without
// decoding it whole: the key paths seen ("request.messages.role", arrays
// collapsed) and "path=value" for short string values. JSONL lines, array
// elements and SSE payloads are merged; a recorded HTTP exchange adds the
// keys of its body.
type shape struct{ seen map[string]bool }

func (s shape) has(k string) bool { return s.seen[k] }

// sniffBudget bounds the tokens read, so detecting a large file stays cheap.
const sniffBudget = 20000

// lastSniff is the shape of the head detected last: detect asks each
// format in turn and four of them sniff the same head, which for a 1 MiB
// head of JSONL is the sniff budget each time (a tenth of a second of an
// import of a thousand traces). The head is known by its length and its
// hash, not its address: a buffer may be reused for other bytes. The hash
// is maphash's, with a seed of this process: sha256 of a 1 MiB head took
// 0.7 ms for every detector that asked (BenchmarkDetectHead), and a
// collision of a random 64-bit seeded hash is not to be met by chance.
var lastSniff struct {
	sync.Mutex
	n   int
	sum uint64
	s   shape
}

var sniffSeed = maphash.MakeSeed()

func sniff(head []byte) shape {
	sum := maphash.Bytes(sniffSeed, head)
	lastSniff.Lock()
	defer lastSniff.Unlock()
	if lastSniff.s.seen != nil && lastSniff.n == len(head) && lastSniff.sum == sum {
		return lastSniff.s
	}
	s := sniffHead(head)
	lastSniff.n, lastSniff.sum, lastSniff.s = len(head), sum, s
	return s
}

// sniffHead reads the shape of a head (see shape); the shape is only read
// after, so sniff may hand it to every detector.
func sniffHead(head []byte) shape {
	s := shape{seen: map[string]bool{}}
	head = bytes.TrimSpace(stripBOM(head))
	if len(head) > 0 && (head[0] == 'e' || head[0] == 'd' || head[0] == ':') {
		n := 0
		eachSSEData(string(head), func(_ int, data string) bool {
			sniffInto(s, []byte(data), 0)
			n++
			return n < 64
		})
		return s
	}
	sniffInto(s, head, 0)
	return s
}

func sniffInto(s shape, data []byte, depth int) {
	type frame struct {
		obj     bool
		key     string
		wantKey bool
	}
	sc := tokenScanner{b: data}
	var st []frame
	var body string
	path := func() string {
		var b strings.Builder
		for _, f := range st {
			if f.obj && f.key != "" {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			}
		}
		return b.String()
	}
	for range sniffBudget {
		tok, ok := sc.next()
		if !ok {
			break
		}
		if n := len(st); n > 0 && st[n-1].obj && st[n-1].wantKey {
			if tok.isStr {
				st[n-1].key, st[n-1].wantKey = string(tok.str), false
				if len(st) <= 6 {
					s.seen[path()] = true
				}
				continue
			}
		}
		switch tok.delim {
		case '{', '[':
			st = append(st, frame{obj: tok.delim == '{', wantKey: tok.delim == '{'})
			continue
		case '}', ']':
			st = st[:len(st)-1]
		default:
			if tok.isStr && len(st) > 0 && st[len(st)-1].obj {
				if len(tok.str) <= 64 && len(st) <= 6 {
					s.seen[path()+"="+string(tok.str)] = true
				}
				if len(st) == 1 && st[0].key == "body" {
					body = string(tok.str)
				}
			}
		}
		if n := len(st); n > 0 && st[n-1].obj {
			st[n-1].wantKey = true
		}
	}
	if body != "" && depth == 0 && (s.has("status") || s.has("headers")) {
		if b := strings.TrimSpace(body); b != "" && (b[0] == '{' || b[0] == '[') {
			sniffInto(s, []byte(b), 1)
		} else {
			eachSSEData(b, func(_ int, data string) bool {
				sniffInto(s, []byte(data), 1)
				return true
			})
		}
	}
}

// headObject returns the top-level members of the first JSON object in
// head (or of the first element when head starts with an array), reading
// as far as the head goes so a long pretty-printed file still shows its
// first keys. The values are slices of head, not copies: detection runs
// it on a first record read whole (up to the record cap), where
// encoding/json's Decoder, copying head into a buffer it grows by
// doubling and each value out of it, allocated three and a half times a
// 28 MB record (issue 27 item 10).
func headObject(head []byte) map[string]json.RawMessage {
	// Over a bytes.Buffer, jsontext reads from its bytes in place.
	dec := jsontext.NewDecoder(bytes.NewBuffer(head), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	tok, err := dec.ReadToken()
	if err != nil {
		return nil
	}
	if tok.Kind() == '[' {
		if tok, err = dec.ReadToken(); err != nil {
			return nil
		}
	}
	if tok.Kind() != '{' {
		return nil
	}
	out := map[string]json.RawMessage{}
	for dec.PeekKind() == '"' {
		kt, err := dec.ReadToken()
		if err != nil {
			break
		}
		k := kt.String()
		v, err := dec.ReadValue()
		if err != nil {
			out[k] = nil // present, value cut off by the head
			break
		}
		end := dec.InputOffset()
		out[k] = head[end-int64(len(v)) : end : end]
	}
	return out
}

// hasKeyPrefix reports whether any key of m starts with prefix.
func hasKeyPrefix(m map[string]json.RawMessage, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// describeHead says what a file no format claims holds, so a refusal can
// say why: what kind of content it is, the keys of its first JSON object
// (quoted, so hostile names cannot reach the terminal raw), a first
// record too large to look at, or what a format's near miss lacks.
func describeHead(head []byte, complete bool, lim recordLimit) string {
	for _, f := range registry {
		if f.Explain != nil {
			if why := f.Explain(head); why != "" {
				return why
			}
		}
	}
	if !complete {
		return "its first " + lim.over(0)
	}
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		return "a zip archive whose first member is " + strconv.Quote(zipFirstName(head)) + " (an Inspect .eval log has header.json and samples/ members)"
	}
	size, first := "", len(head)
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		first = i
	}
	if first > HeadSize {
		size = fmt.Sprintf(" (its first record is %.1f MiB)", float64(first)/(1<<20))
	}
	switch head[0] {
	case '{', '[':
		dec := json.NewDecoder(bytes.NewReader(head))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			msg := err.Error()
			var se *json.SyntaxError
			if errors.As(err, &se) {
				msg = fmt.Sprintf("at byte %d: %s", se.Offset, se.Error())
			}
			if strings.Contains(msg, "exceeded max depth") {
				return "its first record nests deeper than the JSON reader's limit (10000 levels)" + size
			}
			return "invalid JSON " + msg + size
		}
		kind := "a JSON document"
		if bytes.IndexByte(bytes.TrimSpace(v), '\n') < 0 && dec.More() {
			kind = "JSONL"
		}
		if v[0] == '[' {
			var elems []json.RawMessage
			if json.Unmarshal(v, &elems) != nil || len(elems) == 0 {
				return "an empty JSON array" + size
			}
			if keys := objectKeys(elems[0]); keys != "" {
				return fmt.Sprintf("a JSON array of %d element(s), the first an object with keys %s that no supported format uses together%s", len(elems), keys, size)
			}
			return fmt.Sprintf("a JSON array of %d element(s) that are not objects%s", len(elems), size)
		}
		return fmt.Sprintf("%s whose first object has keys %s that no supported format uses together%s", kind, objectKeys(v), size)
	}
	if why := explainCassette(head); why != "" {
		return why
	}
	line := head
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if len(line) > 60 {
		line = line[:60]
	}
	return "text that is not JSON, JSONL, SSE or a YAML cassette; it starts " + strconv.Quote(string(line))
}

// objectKeys lists the top-level keys of a JSON object, quoted, at most
// eight; "" when raw is not an object.
func objectKeys(raw json.RawMessage) string {
	m := headObject(raw)
	if m == nil {
		return ""
	}
	keys := slices.Sorted(maps.Keys(m))
	more := ""
	if len(keys) > 8 {
		keys, more = keys[:8], fmt.Sprintf(" and %d more", len(keys)-8)
	}
	for i, k := range keys {
		keys[i] = strconv.Quote(k)
	}
	if len(keys) == 0 {
		return "(none)"
	}
	return strings.Join(keys, ", ") + more
}

// zipFirstName is the name of the first member of a zip archive, from its
// local file header.
func zipFirstName(head []byte) string {
	if len(head) < 30 {
		return ""
	}
	n := int(head[26]) | int(head[27])<<8
	return string(head[30:min(len(head), 30+n)])
}
