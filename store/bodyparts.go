package store

import (
	"context"
	"database/sql"
	"fmt"
	"unsafe"

	"github.com/tracelab-dev/tracelab/model"
)

// A step body longer than bigBody is stored in parts on SQLite (migration
// 0045): the step_bodies row holds the body's start, and step_body_parts
// the rest, partSize bytes a row. SQLite copies a value it stores twice
// (the driver's copy of the bound string, the row it builds), each in an
// allocation rounded up to a power of two, and Go held the whole encoded
// body besides the record it came from: a 100 MB tool result cost the
// import 4.5 times the record at its peak. Here the body is encoded a
// part at a time into one buffer, and SQLite copies one part.
//
// The start is cut after the characters 0024's full-text trigger indexes
// (substr(body, 1, 4000000), counted as SQLite counts them), so that
// the index of a body in parts is the index of the whole body. A start
// that would be longer than firstPartMax bytes (only bytes that are not
// UTF-8 make one: a character of UTF-8 is at most four bytes) is cut
// there, and its index then holds fewer characters.
const (
	partSize     = 1 << 20
	searchChars  = 4000000
	firstPartMax = 4 * searchChars
)

// sqlWholeBody is the whole body of a step_bodies row, its parts joined
// in order: what the copy into PostgreSQL reads, as PostgreSQL stores
// every body whole.
const sqlWholeBody = `CASE WHEN step_bodies.parts = 0 THEN step_bodies.body ELSE step_bodies.body ||
	(SELECT group_concat(p.part, '' ORDER BY p.seq) FROM step_body_parts p WHERE p.trace_pk = step_bodies.trace_pk) END`

// putBodyParts writes the body of steps, n bytes long, as its start in
// step_bodies and the rest in step_body_parts, encoding it a part at a
// time. It says how long the start was.
func (w *writer) putBodyParts(pk int64, steps []model.Step, n int) (start int, err error) {
	if err := w.bodies.flush(); err != nil {
		return 0, err
	}
	o := bodyOut{b: make([]byte, 0, searchChars+partSize), room: searchChars + partSize}
	parts, seq := 0, 0 // seq: the next part's; 0 while the start is not cut
	scanned, chars := 0, 0
	// cut writes the start, once it holds searchChars characters or
	// firstPartMax bytes, or, at the body's end (final), whatever o holds.
	cut := func(final bool) error {
		end := len(o.b)
		if !final {
			scanned, chars = sqliteCharsScan(o.b, scanned, chars, searchChars)
			switch {
			case chars == searchChars:
				end = scanned
			case len(o.b) < firstPartMax:
				o.room = min(len(o.b)+partSize, firstPartMax)
				return nil
			default:
				end = firstPartMax
			}
		}
		start, parts, seq = end, (n-end+partSize-1)/partSize, 1
		if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO step_bodies (trace_pk, body, parts) VALUES (?, ?, ?)`,
			pk, bytesString(o.b[:end]), parts); err != nil {
			return err
		}
		o.b, o.room = o.b[:copy(o.b, o.b[end:])], partSize
		return nil
	}
	o.spill = func() error {
		if seq == 0 {
			return cut(false)
		}
		for ; len(o.b) >= partSize; seq++ {
			if err := w.putPart(pk, seq, o.b[:partSize]); err != nil {
				return err
			}
			o.b = o.b[:copy(o.b, o.b[partSize:])]
		}
		return nil
	}
	o.steps(steps)
	if o.err == nil && seq == 0 {
		o.err = cut(true)
	}
	if o.err == nil {
		o.err = o.spill() // the full parts the body's last bytes made
	}
	if o.err == nil && len(o.b) > 0 {
		o.err = w.putPart(pk, seq, o.b)
		seq++
	}
	if o.err == nil && seq-1 != parts {
		// n is stepsBodyLen's: encoding wrote another length.
		o.err = fmt.Errorf("step body of %d bytes: %d parts written, %d expected", n, seq-1, parts)
	}
	return start, o.err
}

func (w *writer) putPart(pk int64, seq int, part []byte) error {
	_, err := w.tx.ExecContext(w.ctx, `INSERT INTO step_body_parts (trace_pk, seq, part) VALUES (?, ?, ?)`, pk, seq, bytesString(part))
	return err
}

// bytesString is b as a string without a copy, for a statement's
// parameter that the driver copies before b changes.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// sqliteCharsScan goes on counting b's characters as the SQLite built in
// counts them for substr (a byte of ASCII is one; any other byte takes the
// continuation bytes, 10xxxxxx, after it; TestSQLiteCharsScan holds this
// to the SQLite linked in), from a scan that found chars of them in
// b[:from], until n or the last one b surely holds whole (the
// continuation bytes of one that reaches b's end may go on after it): the
// scan's new from and chars. A body holds no NUL byte, where SQLite's
// count stops.
func sqliteCharsScan(b []byte, from, chars, n int) (int, int) {
	i := from
	for chars < n && i < len(b) {
		j := i + 1
		if b[i] >= 0x80 {
			for j < len(b) && b[j]&0xc0 == 0x80 {
				j++
			}
			if j == len(b) {
				break
			}
		}
		i = j
		chars++
	}
	return i, chars
}

// bodyStart is a step_bodies row whose body is in parts.
type bodyStart struct {
	start string
	parts int
}

// wholeBody is the body whose step_bodies row (of the trace row pk) holds
// start and says it has parts more.
func wholeBody(ctx context.Context, db querier, pk int64, start string, parts int) (string, error) {
	if parts == 0 {
		return start, nil
	}
	whole, err := wholeBodies(ctx, db, map[int64]bodyStart{pk: {start, parts}})
	return whole[pk], err
}

// wholeBodies joins the parts of the bodies of starts (by trace row id)
// onto their starts.
func wholeBodies(ctx context.Context, db querier, starts map[int64]bodyStart) (map[int64]string, error) {
	out := make(map[int64]string, len(starts))
	for pk, st := range starts {
		rows, err := db.QueryContext(ctx, `SELECT part FROM step_body_parts WHERE trace_pk = ? ORDER BY seq`, pk)
		if err != nil {
			return nil, err
		}
		b := append(make([]byte, 0, len(st.start)+st.parts*partSize), st.start...)
		var part sql.RawBytes // the driver's, until the next row
		for rows.Next() {
			if err := rows.Scan(&part); err != nil {
				rows.Close()
				return nil, err
			}
			b = append(b, part...)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		out[pk] = bytesString(b)
	}
	return out, nil
}
