package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"unsafe"

	"github.com/tracelab-dev/tracelab/model"
)

// A trace's steps are stored as one body per trace (step_bodies, migration
// 0013): a JSON array with one array per step, its fields in the order of
// stepBodyFields. Loading a trace then reads one column of one row instead
// of thirteen columns of ten rows; with the pure-Go SQLite every column
// read costs about a third of a microsecond, which made reading the steps
// the largest part of a rescore. The steps table keeps each step's kind
// and tool, which filters and facets query.
//
// The body is JSON so that it stays readable with the database's own
// tools, but it is written and read here without a JSON library: strings
// are escaped only where JSON needs it (quote, backslash, control bytes),
// other bytes, valid UTF-8 or not, go through as they are, so every string
// comes back byte for byte; and most strings have no escape and are read
// as substrings of the body. bodyOut.jsonString is tracelab's one
// hand-written JSON string escaper (issue 25).
//
// Kept for what it keeps, not for speed: go-json-experiment/json's
// jsontext always writes a byte that is not UTF-8 as U+FFFD, so a body it
// wrote would not give such a string back. At the level of a whole import
// with scoring, jsontext in its place (AppendQuote to write, a Decoder to
// read) cost little: CPU 12.26 s against 14.04 s and 14.69 s against
// 15.71 s in two rounds (1.15x, 1.07x; wall 51.8 s against 103.8 s and
// 95.0 s against 106.1 s on a machine at load 20-30), under the 1.5x
// issue 25 asks of a hand-written path. Measured at 81c847b with
//
//	go run ./bench gen -n 20000 -out corpus.jsonl
//	RUNS=2 bench/importab.sh corpus.jsonl hand body
//
// where hand and body exec that commit's tracelab with TRACELAB_JSONLIB
// unset and =body.
var stepBodyFields = [...]string{"kind", "id", "call_id", "text", "tool", "args", "result", "as_of",
	"is_error", "credential", "next_cursor", "has_more"}

// stepsBody is the body of steps as a string, in one allocation of its
// exact size: a trace may carry a tool result of many megabytes, and a
// growing buffer copied into a string would cost the heap three times it.
func stepsBody(steps []model.Step) string {
	b := appendStepsBody(make([]byte, 0, stepsBodyLen(steps)), steps)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// stepsBodyLen is the length of the body of steps.
func stepsBodyLen(steps []model.Step) int {
	n := 2 // the brackets
	if len(steps) > 1 {
		n += len(steps) - 1 // the commas between steps
	}
	for i := range steps {
		st := &steps[i]
		n += 2 + len(stepBodyFields) - 1 + 2 // a step's brackets, its commas, its two flags
		for _, s := range []string{string(st.Kind), st.ID, st.CallID, st.Text, st.Tool, st.AsOf, st.Credential, st.NextCursor} {
			n += jsonStringLen(s)
		}
		for _, raw := range [][]byte{st.Args, st.Result} {
			if len(raw) == 0 {
				n += len("null")
			} else {
				n += jsonStringLen(rawText(raw))
			}
		}
	}
	return n
}

// appendStepsBody appends the body of steps to dst.
func appendStepsBody(dst []byte, steps []model.Step) []byte {
	o := bodyOut{b: dst}
	o.steps(steps)
	return o.b
}

// bodyOut is where a body is encoded: one buffer that grows, or, for a
// body stored in parts (bodyparts.go), a buffer of at most room bytes
// that spill empties as it fills. Escapes are appended past room; only
// put spills, so b may exceed room by an escape sequence.
type bodyOut struct {
	b     []byte
	room  int          // 0: no limit
	spill func() error // takes bytes off the front of b
	err   error        // spill's first error; nothing is put after it
}

// steps encodes the body of steps.
func (o *bodyOut) steps(steps []model.Step) {
	o.b = append(o.b, '[')
	for i := range steps {
		st := &steps[i]
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.b = append(o.b, '[')
		o.jsonString(string(st.Kind))
		for _, s := range []string{st.ID, st.CallID, st.Text, st.Tool} {
			o.b = append(o.b, ',')
			o.jsonString(s)
		}
		for _, raw := range [][]byte{st.Args, st.Result} {
			o.b = append(o.b, ',')
			if len(raw) == 0 {
				o.b = append(o.b, "null"...)
			} else {
				o.jsonString(rawText(raw))
			}
		}
		o.b = append(o.b, ',')
		o.jsonString(st.AsOf)
		o.b = appendBool(append(o.b, ','), st.IsError)
		for _, s := range []string{st.Credential, st.NextCursor} {
			o.b = append(o.b, ',')
			o.jsonString(s)
		}
		o.b = appendBool(append(o.b, ','), st.HasMore)
		o.b = append(o.b, ']')
	}
	o.b = append(o.b, ']')
}

// put appends s, spilling as the buffer fills.
func (o *bodyOut) put(s string) {
	for o.room > 0 && len(o.b)+len(s) > o.room && o.err == nil {
		n := max(o.room-len(o.b), 0)
		o.b = append(o.b, s[:n]...)
		s = s[n:]
		o.err = o.spill()
	}
	if o.err == nil {
		o.b = append(o.b, s...)
	}
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, '1')
	}
	return append(dst, '0')
}

const hexDigits = "0123456789abcdef"

// jsonStringLen is the length of bodyOut.jsonString's encoding of s.
func jsonStringLen(s string) int {
	n := 2 + len(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// jsonString appends s as a JSON string, escaping only the quote, the
// backslash and the bytes below 0x20.
func (o *bodyOut) jsonString(s string) {
	o.b = append(o.b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		o.put(s[start:i])
		switch c {
		case '"', '\\':
			o.b = append(o.b, '\\', c)
		case '\n':
			o.b = append(o.b, '\\', 'n')
		case '\r':
			o.b = append(o.b, '\\', 'r')
		case '\t':
			o.b = append(o.b, '\\', 't')
		default:
			o.b = append(o.b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	o.put(s[start:])
	o.b = append(o.b, '"')
}

// decodeStepsBody appends the steps of body to steps. Strings without
// escapes share body's memory; the arguments and results share one buffer
// of the trace (each slice capped at its length).
func decodeStepsBody(body string, steps []model.Step) ([]model.Step, error) {
	d := bodyDecoder{s: body}
	d.space()
	if !d.byte('[') {
		return steps, d.fail("expected '[' to open the steps")
	}
	d.space()
	if d.byte(']') {
		return steps, d.end()
	}
	for {
		st, err := d.step()
		if err != nil {
			return steps, err
		}
		steps = append(steps, st)
		d.space()
		if d.byte(']') {
			return steps, d.end()
		}
		if !d.byte(',') {
			return steps, d.fail("expected ',' or ']' after a step")
		}
	}
}

type bodyDecoder struct {
	s   string
	i   int
	raw []byte // unescaped arguments and results
	err error  // the first field of the current step that failed
}

func (d *bodyDecoder) fail(msg string) error {
	return fmt.Errorf("step body, byte %d: %s", d.i, msg)
}

func (d *bodyDecoder) space() { d.i = model.SkipJSONSpace(d.s, d.i) }

// byte consumes c if it comes next.
func (d *bodyDecoder) byte(c byte) bool {
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *bodyDecoder) end() error {
	d.space()
	if d.i != len(d.s) {
		return d.fail("text after the steps")
	}
	return nil
}

// step reads one step's array.
func (d *bodyDecoder) step() (model.Step, error) {
	var st model.Step
	d.space()
	if !d.byte('[') {
		return st, d.fail("expected '[' to open a step")
	}
	var kind string
	d.err = nil
	d.strAt(0, &kind)
	d.strAt(1, &st.ID)
	d.strAt(2, &st.CallID)
	d.strAt(3, &st.Text)
	d.strAt(4, &st.Tool)
	d.rawAt(5, (*[]byte)(&st.Args))
	d.rawAt(6, (*[]byte)(&st.Result))
	d.strAt(7, &st.AsOf)
	d.flagAt(8, &st.IsError)
	d.strAt(9, &st.Credential)
	d.strAt(10, &st.NextCursor)
	d.flagAt(11, &st.HasMore)
	if d.err != nil {
		return st, d.err
	}
	d.space()
	if !d.byte(']') {
		return st, d.fail("expected ']' to close a step")
	}
	st.Kind = model.StepKind(kind)
	return st, nil
}

// at moves to field f of a step (past its comma) unless an earlier field
// failed; the field readers then keep the first error, named.
func (d *bodyDecoder) at(f int) bool {
	if d.err != nil {
		return false
	}
	d.space()
	if f > 0 && !d.byte(',') {
		d.err = d.fail("expected ',' before " + stepBodyFields[f])
		return false
	}
	d.space()
	return true
}

func (d *bodyDecoder) named(f int, err error) {
	if err != nil {
		d.err = fmt.Errorf("%s: %w", stepBodyFields[f], err)
	}
}

func (d *bodyDecoder) strAt(f int, dst *string) {
	if d.at(f) {
		var err error
		*dst, err = d.str()
		d.named(f, err)
	}
}

func (d *bodyDecoder) rawAt(f int, dst *[]byte) {
	if d.at(f) {
		var err error
		*dst, err = d.rawOrNull()
		d.named(f, err)
	}
}

func (d *bodyDecoder) flagAt(f int, dst *bool) {
	if d.at(f) {
		var err error
		*dst, err = d.flag()
		d.named(f, err)
	}
}

// str reads a string: a substring of the body when it has no escape.
func (d *bodyDecoder) str() (string, error) {
	if !d.byte('"') {
		return "", d.fail("expected a string")
	}
	start := d.i
	for d.i < len(d.s) {
		switch c := d.s[d.i]; {
		case c == '"':
			d.i++
			return d.s[start : d.i-1], nil
		case c == '\\' || c < 0x20:
			b, err := d.unquote(nil, start)
			return string(b), err
		}
		d.i++
	}
	return "", d.fail("unterminated string")
}

// rawOrNull reads null (nil) or a string, unquoted into d.raw.
func (d *bodyDecoder) rawOrNull() ([]byte, error) {
	if d.word("null") {
		return nil, nil
	}
	if !d.byte('"') {
		return nil, d.fail("expected a string or null")
	}
	if d.raw == nil {
		d.raw = make([]byte, 0, len(d.s)-d.i)
	}
	from := len(d.raw)
	var err error
	d.raw, err = d.unquote(d.raw, d.i)
	return d.raw[from:len(d.raw):len(d.raw)], err
}

// unquote appends the string whose text begins at start, its bytes as
// they are (see bodyOut.jsonString), to dst.
func (d *bodyDecoder) unquote(dst []byte, start int) ([]byte, error) {
	b := unsafe.Slice(unsafe.StringData(d.s), len(d.s)) // read only
	out, next, ok := model.AppendUnquoted(dst, b, start, false)
	d.i = next
	switch {
	case ok:
		return out, nil
	case next >= len(d.s):
		return out, d.fail("unterminated string")
	}
	return out, d.fail("bad escape or control byte")
}

func (d *bodyDecoder) word(w string) bool {
	if len(d.s)-d.i >= len(w) && d.s[d.i:d.i+len(w)] == w {
		d.i += len(w)
		return true
	}
	return false
}

// flag reads 0, 1, true or false.
func (d *bodyDecoder) flag() (bool, error) {
	switch {
	case d.word("1"), d.word("true"):
		return true, nil
	case d.word("0"), d.word("false"):
		return false, nil
	}
	return false, d.fail("expected 0 or 1")
}

// fillStepBodies is the Go half of migration 0013: the body of every
// stored trace from its step rows, a few hundred traces at a time (a
// statement may not run while another's rows are open on PostgreSQL).
func fillStepBodies(ctx context.Context, tx *sql.Tx) error {
	ins, err := tx.PrepareContext(ctx, `INSERT INTO step_bodies (trace_pk, body) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	var buf []byte
	for after := int64(0); ; {
		pks, err := queryColumn[int64](ctx, tx, `SELECT id FROM traces WHERE id > ? ORDER BY id LIMIT ?`, after, loadBatch)
		if err != nil || len(pks) == 0 {
			return err
		}
		steps, err := oldStepRows(ctx, tx, pks[0], pks[len(pks)-1])
		if err != nil {
			return err
		}
		for _, pk := range pks {
			buf = appendStepsBody(buf[:0], steps[pk])
			if _, err := ins.ExecContext(ctx, pk, string(buf)); err != nil {
				return fmt.Errorf("trace %d: %w", pk, err)
			}
		}
		after = pks[len(pks)-1]
	}
}

// oldStepRows reads the steps of the traces lo..hi as the steps table
// held them before migration 0014.
func oldStepRows(ctx context.Context, tx *sql.Tx, lo, hi int64) (map[int64][]model.Step, error) {
	rows, err := tx.QueryContext(ctx, `SELECT trace_pk, kind, step_id, call_id, text, tool, args, result, as_of,
		is_error, credential, next_cursor, has_more FROM steps WHERE trace_pk BETWEEN ? AND ? ORDER BY trace_pk, idx`, lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64][]model.Step{}
	for rows.Next() {
		var pk int64
		var st model.Step
		var kind string
		var a, r sql.NullString
		if err := rows.Scan(&pk, &kind, &st.ID, &st.CallID, &st.Text, &st.Tool, &a, &r, &st.AsOf, &st.IsError,
			&st.Credential, &st.NextCursor, &st.HasMore); err != nil {
			return nil, err
		}
		st.Kind = model.StepKind(kind)
		if a.Valid {
			st.Args = json.RawMessage(a.String)
		}
		if r.Valid {
			st.Result = json.RawMessage(r.String)
		}
		out[pk] = append(out[pk], st)
	}
	return out, rows.Err()
}

// rawText is raw as a string without a copy: a step's JSON is bound to
// its column once and never changed after it was decoded, and a copy of a
// 200 MB result was a fifth of an import's peak memory.
func rawText(raw json.RawMessage) string {
	return unsafe.String(unsafe.SliceData(raw), len(raw))
}
