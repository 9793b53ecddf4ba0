package importers

// The one reader of JSON values every importer uses: JSONL lines, elements
// of a top-level array, concatenated (pretty-printed) documents, SSE
// "data:" payloads, VCR cassette interactions and recorded HTTP bodies.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"tracelab/model"
)

// jsonValue is one top-level JSON value of a file.
type jsonValue struct {
	line int    // 1-based line where the value starts
	path string // "[3]" for an element of a top-level array; "body" inside an HTTP recording
	raw  []byte
	// cassette marks one interaction of a VCR cassette.
	cassette bool
}

// emitParsed emits the trace read from v, or its error with the path put
// under v's own place in the file (an array element, an HTTP body).
func (v jsonValue) emitParsed(emit Emit, t *model.Trace, lerr *LineError) error {
	if lerr != nil {
		lerr.Path = joinPath(v.path, lerr.Path)
		return emit(Record{Line: v.line, Err: lerr})
	}
	return emit(Record{Line: v.line, Trace: t})
}

// jsonValues calls fn for every top-level value of r: each line of JSONL,
// each element of a top-level array, each document of a (pretty-printed)
// JSON file, or each "data:" payload of SSE text. A recorded HTTP exchange
// {status, headers, body} stands for its body. Elements are decoded one at
// a time, so memory stays bounded by the largest value.
func jsonValues(ctx context.Context, r io.Reader, file string, fn func(jsonValue) error) error {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 64<<10 {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	if bom, _ := br.Peek(3); string(bom) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	line := 1
	var first byte
	for {
		b, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if b == '\n' {
			line++
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			br.UnreadByte()
			first = b
			break
		}
	}
	base := line - 1 // lines consumed before the first value
	if first == 'i' {
		if head, _ := br.Peek(len("interactions:")); string(head) == "interactions:" {
			return cassetteValues(br, file, fn)
		}
	}
	switch {
	case first == 'e' || first == 'd' || first == ':':
		return lines(ctx, br, func(n int, l []byte) error {
			data, ok := bytes.CutPrefix(l, []byte("data:"))
			if !ok {
				return nil
			}
			data = bytes.TrimSpace(data)
			if len(data) == 0 || string(data) == "[DONE]" {
				return nil
			}
			return fn(jsonValue{line: base + n, raw: data})
		})
	case first == '{' && firstLineIsJSON(br):
		return lines(ctx, br, func(n int, l []byte) error {
			return emitValue(jsonValue{line: base + n, raw: l}, fn)
		})
	}
	lc := &lineCounter{r: br, base: base}
	dec := json.NewDecoder(lc)
	if first == '[' {
		if _, err := dec.Token(); err != nil {
			return docError(file, lc, err)
		}
		for i := 0; dec.More(); i++ {
			if i%256 == 255 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return docError(file, lc, err)
			}
			v := jsonValue{line: lc.lineAt(dec.InputOffset() - int64(len(raw))), path: "[" + strconv.Itoa(i) + "]", raw: raw}
			if err := emitValue(v, fn); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return docError(file, lc, err)
		}
		return nil
	}
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return docError(file, lc, err)
		}
		v := jsonValue{line: lc.lineAt(dec.InputOffset() - int64(len(raw))), raw: raw}
		if err := emitValue(v, fn); err != nil {
			return err
		}
	}
}

// firstLineIsJSON reports whether the buffered first line is a whole JSON
// value, which tells JSONL from a pretty-printed document.
func firstLineIsJSON(br *bufio.Reader) bool {
	buf, _ := br.Peek(br.Size())
	i := bytes.IndexByte(buf, '\n')
	if i < 0 {
		return false
	}
	return json.Valid(buf[:i])
}

// emitValue passes v to fn, or the body of v when v is a recorded HTTP
// response {status, headers, body} (the body a JSON document or SSE text).
func emitValue(v jsonValue, fn func(jsonValue) error) error {
	if len(v.raw) == 0 || v.raw[0] != '{' || !bytes.Contains(v.raw, []byte(`"body"`)) {
		return fn(v)
	}
	var env struct {
		Status json.RawMessage `json:"status"`
		Body   json.RawMessage `json:"body"`
	}
	if json.Unmarshal(v.raw, &env) != nil || env.Status == nil || len(env.Body) == 0 {
		return fn(v)
	}
	body := []byte(env.Body)
	if body[0] == '"' {
		var s string
		if json.Unmarshal(body, &s) != nil {
			return fn(v)
		}
		body = []byte(strings.TrimSpace(s))
	}
	path := joinPath(v.path, "body")
	if len(body) > 0 && body[0] != '{' && body[0] != '[' {
		var err error
		eachSSEData(string(body), func(_ int, data string) bool {
			err = fn(jsonValue{line: v.line, path: path, raw: []byte(data)})
			return err == nil
		})
		return err
	}
	return fn(jsonValue{line: v.line, path: path, raw: body})
}

func docError(file string, lc *lineCounter, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &LineError{File: file, Line: lc.lineAt(se.Offset), Msg: "invalid JSON: " + se.Error()}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &LineError{File: file, Line: lc.lineAt(lc.read), Msg: "invalid JSON: unexpected end of input (truncated file?)"}
	}
	return fmt.Errorf("%s: %w", file, err)
}

// lineCounter counts the lines of what a json.Decoder reads so a value's
// byte offset can be turned into a line. It keeps only the newlines read
// ahead of the last offset asked about, so its memory is bounded by the
// decoder's buffer.
type lineCounter struct {
	r     io.Reader
	base  int     // lines before the first byte read
	read  int64   // bytes read
	nl    []int64 // offsets of newlines at or after the last asked offset
	lines int     // newlines before the last asked offset
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := 0, p[:n]; ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		c.nl = append(c.nl, c.read+int64(i+j))
		i += j + 1
	}
	c.read += int64(n)
	return n, err
}

// lineAt is the 1-based line of byte offset off; offsets asked must not
// decrease.
func (c *lineCounter) lineAt(off int64) int {
	i := 0
	for i < len(c.nl) && c.nl[i] < off {
		i++
	}
	c.lines += i
	c.nl = append(c.nl[:0], c.nl[i:]...)
	return c.base + c.lines + 1
}

func joinPath(prefix, path string) string {
	switch {
	case prefix == "":
		return path
	case path == "":
		return prefix
	case path[0] == '[':
		return prefix + path
	}
	return prefix + "." + path
}

// genRecords calls fn for every top-level JSON value of r with the line it
// starts on. A file whose first line is a whole JSON value is read line by
// line (JSONL, bounded memory); otherwise it is one pretty-printed document
// (or several concatenated) and is read whole.
func genRecords(ctx context.Context, r io.Reader, fn func(line int, raw []byte) error) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	head, _ := br.Peek(br.Size())
	if first := firstJSONLine(stripBOM(head)); len(first) > 0 && json.Valid(first) {
		return lines(ctx, br, fn)
	}
	data, err := io.ReadAll(br)
	if err != nil {
		return err
	}
	data = stripBOM(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	line, prev := 1, 0
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return nil
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		if err != nil {
			// Report where the bad value starts: the first byte after the
			// previous value that is not white space.
			start = prev
			for start < len(data) && (data[start] == ' ' || data[start] == '\n' || data[start] == '\r' || data[start] == '\t') {
				start++
			}
			line += bytes.Count(data[prev:start], []byte{'\n'})
			return fn(line, data[start:])
		}
		line += bytes.Count(data[prev:max(start, prev)], []byte{'\n'})
		if ferr := fn(line, raw); ferr != nil {
			return ferr
		}
		line += bytes.Count(raw, []byte{'\n'})
		prev = end
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
	}
}
