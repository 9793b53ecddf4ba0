package importers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// decodeLine unmarshals one JSON record into v and, when that fails, turns
// encoding/json's error into a LineError that names the JSON path of the
// offending value (encoding/json reports the struct field but not the array
// index, so the path is recovered by re-reading the line up to the offset).
func decodeLine(file string, line int, data []byte, v any) *LineError {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	return jsonError(file, line, data, err)
}

func jsonError(file string, line int, data []byte, err error) *LineError {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return &LineError{File: file, Line: line, Path: pathAt(data, te.Offset),
			Msg: fmt.Sprintf("expected %s, got %s", goTypeName(te.Type.String()), te.Value)}
	case errors.As(err, &se):
		if se.Error() == "unexpected end of JSON input" {
			return &LineError{File: file, Line: line, Msg: "invalid JSON: unexpected end of input (truncated line?)"}
		}
		return &LineError{File: file, Line: line,
			Msg: fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, se.Error())}
	default:
		msg := err.Error()
		if msg == "unexpected end of JSON input" {
			msg = "invalid JSON: unexpected end of input (truncated line?)"
		}
		return &LineError{File: file, Line: line, Msg: strings.TrimPrefix(msg, "json: ")}
	}
}

// goTypeName says a Go type the way a JSON author would.
func goTypeName(t string) string {
	switch {
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case strings.HasPrefix(t, "map["), strings.Contains(t, "."):
		return "an object"
	}
	return t
}

type pathFrame struct {
	array   bool
	index   int
	key     string
	wantKey bool
}

// pathAt returns the JSON path (like steps[3].kind) of the value that ends
// at or after byte offset off of data.
func pathAt(data []byte, off int64) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var st []pathFrame
	render := func(frames []pathFrame) string {
		var b strings.Builder
		for _, f := range frames {
			if f.array {
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
				continue
			}
			if !plainKey(f.key) {
				// Quoted like a value: a key is the file's to choose,
				// terminal escapes and path punctuation included.
				b.WriteString("[" + strconv.Quote(f.key) + "]")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		}
		return b.String()
	}
	advance := func() {
		if len(st) == 0 {
			return
		}
		top := &st[len(st)-1]
		if top.array {
			top.index++
		} else {
			top.wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return render(st)
		}
		if n := len(st); n > 0 && !st[n-1].array && st[n-1].wantKey {
			if s, ok := tok.(string); ok {
				st[n-1].key, st[n-1].wantKey = s, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			// A container of the wrong type is reported at its opening.
			if dec.InputOffset() >= off {
				return render(st)
			}
			st = append(st, pathFrame{array: tok == json.Delim('['), wantKey: tok == json.Delim('{')})
		case json.Delim('}'), json.Delim(']'):
			st = st[:len(st)-1]
			if dec.InputOffset() >= off {
				return render(st)
			}
			advance()
		default:
			if dec.InputOffset() >= off {
				return render(st)
			}
			advance()
		}
	}
}

// plainKey reports whether a JSON key can stand bare in a path like
// steps[3].kind: letters, digits, '_', '-', '@', '$'.
func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r == '_' || r == '-' || r == '@' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// quoteList renders names as `a, b, c` for "is not one of" messages.
func quoteList[T ~string](vals []T) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}
