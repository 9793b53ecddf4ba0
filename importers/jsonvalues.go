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

	"github.com/tracelab-dev/tracelab/model"
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
	return readValues(ctx, r, file, false, fn)
}

// readValues is jsonValues, or genRecords when whole is set.
func readValues(ctx context.Context, r io.Reader, file string, whole bool, fn func(jsonValue) error) error {
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
	if whole {
		return wholeValues(ctx, br, base, fn)
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
	lc := &lineCounter{r: br, base: base, lim: recordLimitOf(ctx)}
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
			lc.mark(dec.InputOffset(), dec.Buffered())
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
		lc.mark(dec.InputOffset(), dec.Buffered())
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
	var lerr *LineError
	if errors.As(err, &lerr) {
		lerr.File = file
		return lerr
	}
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
	lim   recordLimit // reading more than lim.max past start fails
	start int64       // where the value being read began (see mark)
	base  int         // lines before the first byte read
	read  int64       // bytes read
	nl    []int64     // offsets of newlines at or after the last asked offset
	lines int         // newlines before the last asked offset
}

func (c *lineCounter) Read(p []byte) (int, error) {
	if c.lim.max > 0 {
		// Never read more than the cap past the value's start: a decoder
		// that still wants bytes there is inside a value over the cap.
		left := c.start + c.lim.max - c.read
		if left <= 0 {
			return 0, &LineError{Line: c.lineAt(c.start), Msg: c.lim.over(0)}
		}
		if int64(len(p)) > left {
			p = p[:left]
		}
	}
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

// mark says a value ended at byte offset off: the next starts after the
// white space and comma the decoder has buffered (so an error names the
// line it starts on).
func (c *lineCounter) mark(off int64, buffered io.Reader) {
	if b, ok := buffered.(*bytes.Reader); ok {
		for {
			ch, err := b.ReadByte()
			if err != nil {
				break
			}
			if ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n' && ch != ',' {
				break
			}
			off++
		}
	}
	c.start = off
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
// starts on, each value whole (a top-level array is one value) and as
// written (a recorded HTTP exchange is not unwrapped): the reader of the
// span and observation formats, which decode their records themselves.
// A value that is not valid JSON is passed on with the rest of the file,
// so the parser reports it at its line.
func genRecords(ctx context.Context, r io.Reader, fn func(line int, raw []byte) error) error {
	return readValues(ctx, r, "", true, func(v jsonValue) error { return fn(v.line, v.raw) })
}

// wholeValues reads JSONL line by line, else concatenated documents one at
// a time; see genRecords.
func wholeValues(ctx context.Context, br *bufio.Reader, base int, fn func(jsonValue) error) error {
	if firstLineIsJSON(br) {
		return lines(ctx, br, func(n int, l []byte) error {
			return fn(jsonValue{line: base + n, raw: l})
		})
	}
	lc := &lineCounter{r: br, base: base, lim: recordLimitOf(ctx)}
	dec := json.NewDecoder(lc)
	var prevEnd int64
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return nil
		}
		var lerr *LineError
		if errors.As(err, &lerr) {
			return lerr // over the record cap
		}
		if err != nil {
			// The decoder keeps what it could not decode buffered: hand it
			// on from the first byte that is not white space (at most a
			// record's worth: the reader stops at the cap).
			rest, rerr := io.ReadAll(io.MultiReader(dec.Buffered(), lc))
			if rerr != nil {
				return rerr
			}
			line := lc.lineAt(prevEnd)
			trimmed := bytes.TrimLeft(rest, " \t\r\n")
			line += bytes.Count(rest[:len(rest)-len(trimmed)], []byte{'\n'})
			return fn(jsonValue{line: line, raw: trimmed})
		}
		if ferr := fn(jsonValue{line: lc.lineAt(dec.InputOffset() - int64(len(raw))), raw: raw}); ferr != nil {
			return ferr
		}
		prevEnd = dec.InputOffset()
		lc.mark(prevEnd, dec.Buffered())
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
	}
}
