package importers

// Content sniffing for the detectors: what a file's first bytes show
// without decoding it whole.

import (
	"bytes"
	"encoding/json"
	"strings"
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

func sniff(head []byte) shape {
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
	dec := json.NewDecoder(bytes.NewReader(data))
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
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if n := len(st); n > 0 && st[n-1].obj && st[n-1].wantKey {
			if k, ok := tok.(string); ok {
				st[n-1].key, st[n-1].wantKey = k, false
				if len(st) <= 6 {
					s.seen[path()] = true
				}
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			st = append(st, frame{obj: tok == json.Delim('{'), wantKey: tok == json.Delim('{')})
			continue
		case json.Delim('}'), json.Delim(']'):
			st = st[:len(st)-1]
		default:
			if v, ok := tok.(string); ok && len(st) > 0 && st[len(st)-1].obj {
				if len(v) <= 64 && len(st) <= 6 {
					s.seen[path()+"="+v] = true
				}
				if len(st) == 1 && st[0].key == "body" {
					body = v
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
// first keys.
func headObject(head []byte) map[string]json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	tok, err := dec.Token()
	if err != nil {
		return nil
	}
	if tok == json.Delim('[') {
		if tok, err = dec.Token(); err != nil {
			return nil
		}
	}
	if tok != json.Delim('{') {
		return nil
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			break
		}
		k, ok := kt.(string)
		if !ok {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			out[k] = nil // present, value cut off by the head
			break
		}
		out[k] = v
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
