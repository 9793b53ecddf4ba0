package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store/pgtest"
)

// partsTrace is a one-line trace whose tool result is a string of about
// size bytes made of unit repeated, with word at its start and tail at
// its end, and a reasoning step with escapes after it.
func partsTrace(id, word, unit, tail string, size int) string {
	result, _ := json.Marshal(word + " " + strings.Repeat(unit, size/len(unit)) + " " + tail)
	return `{"trace_id":"` + id + `","server":"s1","question":"How big?","steps":[{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":"SELECT 1"}},` +
		`{"kind":"tool_result","call_id":"c1","result":` + string(result) + `},{"kind":"reasoning","text":"tab\there \"quoted\" \u0001"},{"kind":"answer","text":"1"}]}` + "\n"
}

// A body over bigBody is stored in parts, and every reader gets the whole
// body back: the trace's steps, search (its index reads the same start
// as it would of the whole body, the matcher the whole body), and the
// body a copy into PostgreSQL reads. Staged and written directly; ASCII,
// where the start is 4,000,000 bytes, and characters of four and two
// bytes, where it is about 12,000,000 bytes, over bigBody itself (copied
// out of staging on its own).
func TestBigBodyInParts(t *testing.T) {
	for _, c := range []struct {
		name, unit string
		start      int
	}{
		{"ascii", "lorem ipsum dolor sit amet ", searchChars},
		{"multibyte", "𝄞é", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			eachStaging(t, func(t *testing.T, st *Store) {
				ctx := context.Background()
				line := partsTrace("t-parts", "zebra", c.unit, "okapi", 14<<20)
				if _, err := importString(t, st, "big.jsonl", line+goodTraces, ImportOptions{}); err != nil {
					t.Fatal(err)
				}
				var parts, start, rows int
				var same bool
				if err := st.db.QueryRowContext(ctx, `SELECT parts, octet_length(body), (SELECT count(*) FROM step_body_parts p WHERE p.trace_pk = t.id),
					substr(body, 1, 4000000) = substr(`+sqlWholeBody+`, 1, 4000000)
					FROM step_bodies JOIN traces t ON t.id = step_bodies.trace_pk WHERE t.trace_id = 't-parts'`).Scan(&parts, &start, &rows, &same); err != nil {
					t.Fatal(err)
				}
				if parts == 0 || rows != parts || !same {
					t.Errorf("parts %d, part rows %d, the index's start the whole body's: %v", parts, rows, same)
				}
				if c.start != 0 && start != c.start {
					t.Errorf("the start is %d bytes, want %d", start, c.start)
				}
				if c.start == 0 && start <= bigBody {
					t.Errorf("the start is %d bytes, want over bigBody", start)
				}
				var rec struct {
					Steps []model.Step `json:"steps"`
				}
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatal(err)
				}
				got, err := st.Trace(ctx, "t-parts")
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Steps) != len(rec.Steps) || stepsBody(got.Steps) != stepsBody(rec.Steps) {
					t.Errorf("the trace read back has %d steps (body of %d bytes), want %d (%d)", len(got.Steps), len(stepsBody(got.Steps)), len(rec.Steps), len(stepsBody(rec.Steps)))
				}
				var whole string
				if err := st.db.QueryRowContext(ctx, `SELECT `+sqlWholeBody+` FROM step_bodies JOIN traces t ON t.id = step_bodies.trace_pk WHERE t.trace_id = 't-parts'`).Scan(&whole); err != nil {
					t.Fatal(err)
				}
				if whole != stepsBody(rec.Steps) {
					t.Errorf("the whole body in SQL is %d bytes, want %d", len(whole), len(stepsBody(rec.Steps)))
				}
				// zebra starts the body, in the index; okapi ends it, found
				// by the matcher only once the index is out of the way.
				if n, err := st.SearchTraceCount(ctx, "zebra", Filter{}); err != nil || n != 1 {
					t.Errorf("search zebra: %d traces (%v), want 1", n, err)
				}
				if steps, err := st.SearchSteps(ctx, "t-parts", "okapi"); err != nil || !reflect.DeepEqual(steps, []int{1}) {
					t.Errorf("okapi in the trace's steps: %v (%v), want [1]", steps, err)
				}
			})
		})
	}
}

// The copy into PostgreSQL gives it the whole body (its search reads
// every body whole), and checks the copy against the whole body.
func TestCopyIntoPostgresJoinsParts(t *testing.T) {
	ctx := context.Background()
	src := sqliteStore(t)
	line := partsTrace("t-parts", "zebra", "lorem ipsum dolor sit amet ", "okapi", 5<<20)
	if _, err := importString(t, src, "big.jsonl", line, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	dst := backends[1].openAt(t, pgtest.DSN(t), Options{})
	rep, err := src.CopyInto(ctx, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Tables {
		if c.Table == "step_bodies" && (c.SourceRows != 1 || !c.Same()) {
			t.Errorf("%+v", c)
		}
	}
	a, errA := src.Trace(ctx, "t-parts")
	b, errB := dst.Trace(ctx, "t-parts")
	if errA != nil || errB != nil || stepsBody(a.Steps) != stepsBody(b.Steps) {
		t.Errorf("the trace differs after the copy (%v, %v)", errA, errB)
	}
	var parts int
	if err := dst.db.QueryRowContext(ctx, `SELECT parts FROM step_bodies`).Scan(&parts); err != nil || parts != 0 {
		t.Errorf("PostgreSQL's body has parts %d (%v), want 0", parts, err)
	}
}

// sqliteCharsScan counts characters as SQLite's substr does, on any
// bytes: where it is sure of a count, that many characters of SQLite's
// substr are as many bytes.
func TestSQLiteCharsScan(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	alphabet := []byte{'a', 'b', 0x7f, 0x80, 0xbf, 0xc0, 0xc3, 0xa9, 0xe2, 0xf0, 0x9d, 0xff}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		n := r.IntN(len(b) + 2)
		end, chars := sqliteCharsScan(b, 0, 0, n)
		// A scan resumed part way gives the same.
		from, fromChars := sqliteCharsScan(b[:len(b)/2], 0, 0, n)
		if e, c := sqliteCharsScan(b, from, fromChars, n); e != end || c != chars {
			t.Errorf("%x, %d: resumed at %d gives %d, %d; at 0, %d, %d", b, n, from, e, c, end, chars)
		}
		var want int
		if err := db.QueryRow(`SELECT octet_length(substr(CAST(? AS TEXT), 1, ?))`, append(b, 'z'), chars).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if end != want {
			t.Errorf("%x: %d characters are %d bytes here, %d for SQLite", b, chars, end, want)
		}
		if chars < n && end < len(b) {
			// Stopped short: only a character that reaches b's end.
			if b[end] < 0x80 {
				t.Errorf("%x, %d: stopped at %d (%d characters) before %#x", b, n, end, chars, b[end])
			}
		}
	}
}

// A trace whose body is in parts, replaced by another import, leaves no
// part behind (the parts go with their trace).
func TestBigBodyPartsReplaced(t *testing.T) {
	eachStaging(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		for _, word := range []string{"zebra", "okapi"} {
			line := partsTrace("t-parts", word, "lorem ipsum dolor sit amet ", word, 6<<20)
			if _, err := importString(t, st, word+".jsonl", line, ImportOptions{Replace: true}); err != nil {
				t.Fatal(err)
			}
		}
		var orphans, parts int
		if err := st.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM step_body_parts WHERE trace_pk NOT IN (SELECT id FROM traces)),
			(SELECT sum(parts) FROM step_bodies)`).Scan(&orphans, &parts); err != nil {
			t.Fatal(err)
		}
		if orphans != 0 || parts != 3 {
			t.Errorf("%d parts of no trace, %d parts in all; want none, 3", orphans, parts)
		}
		got, err := st.Trace(ctx, "t-parts")
		if err != nil || !strings.HasSuffix(string(got.Steps[1].Result), ` okapi"`) {
			t.Errorf("the trace read back ends %q (%v), want the second import's", string(got.Steps[1].Result[len(got.Steps[1].Result)-20:]), err)
		}
	})
}

// eachStaging runs fn on a SQLite store that stages imports and on one
// that writes them directly.
func eachStaging(t *testing.T, fn func(t *testing.T, st *Store)) {
	for _, staged := range []bool{true, false} {
		t.Run(map[bool]string{true: "staged", false: "direct"}[staged], func(t *testing.T) {
			st := sqliteStore(t)
			st.stage = staged
			fn(t, st)
		})
	}
}

// Bodies whose end falls just before, on and just after a part's end
// come back whole: the last part is never over partSize, nor empty.
func TestBodyPartsAtTheirEdges(t *testing.T) {
	ctx := context.Background()
	st := sqliteStore(t)
	var file strings.Builder
	var want []string
	for d := -3; d <= 3; d++ {
		id := fmt.Sprintf("t%+d", d)
		// The body is the empty trace's, plus the result's extra bytes.
		var rec struct {
			Steps []model.Step `json:"steps"`
		}
		if err := json.Unmarshal([]byte(partsTrace(id, "", "a", "", 0)), &rec); err != nil {
			t.Fatal(err)
		}
		size := searchChars + 2*partSize + d - stepsBodyLen(rec.Steps)
		line := partsTrace(id, "", "a", "", size)
		file.WriteString(line)
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if n := stepsBodyLen(rec.Steps); n != searchChars+2*partSize+d {
			t.Fatalf("%s: a body of %d bytes, want %d", id, n, searchChars+2*partSize+d)
		}
		want = append(want, stepsBody(rec.Steps))
	}
	if _, err := importString(t, st, "edges.jsonl", file.String(), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, d := 0, -3; d <= 3; i, d = i+1, d+1 {
		id := fmt.Sprintf("t%+d", d)
		got, err := st.Trace(ctx, id)
		if err != nil || stepsBody(got.Steps) != want[i] {
			t.Errorf("%s read back differs (%v)", id, err)
		}
		var parts, biggest, smallest int
		if err := st.db.QueryRowContext(ctx, `SELECT b.parts, max(octet_length(p.part)), min(octet_length(p.part)) FROM step_bodies b
			JOIN traces t ON t.id = b.trace_pk JOIN step_body_parts p ON p.trace_pk = b.trace_pk WHERE t.trace_id = ?`, id).Scan(&parts, &biggest, &smallest); err != nil {
			t.Fatal(err)
		}
		if wantParts := 2 + min(max(d, 0), 1); parts != wantParts || biggest > partSize || smallest == 0 {
			t.Errorf("%s: %d parts (want %d), of %d to %d bytes", id, parts, wantParts, smallest, biggest)
		}
	}
}

// SQLite short of memory while it copies the staged bodies in parts, or
// indexes the staged bodies for search (one statement for them all),
// refuses the import naming the biggest of them, its line and its whole
// size, start and parts, and what it could not do, as bodyOutOfMemory
// does for one body copied alone: not a bare "out of memory (7)".
func TestStagedOutOfMemoryNamesTheBiggestBody(t *testing.T) {
	ctx := context.Background()
	part := strings.Repeat("y", 600_000)
	tx := attachStaging(t, sqliteStore(t), func(sdb *Store) {
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO traces (id, trace_id, question, content_sha, imported_at, source_line) VALUES (1, 't-small', 'q', 's', 'now', 2), (2, 't-big', 'q', 's', 'now', 3)`, nil},
			{`INSERT INTO step_bodies (trace_pk, body, parts) VALUES (1, 'x', 1), (2, ?, 2)`, []any{strings.Repeat("x", 100_000)}},
			{`INSERT INTO step_body_parts (trace_pk, seq, part) VALUES (1, 0, 'z'), (2, 0, ?1), (2, 1, ?1)`, []any{part}},
		} {
			if _, err := sdb.db.ExecContext(ctx, q.sql, q.args...); err != nil {
				t.Fatal(err)
			}
		}
	})
	im := &Importer{ctx: ctx, tx: tx}
	for _, to := range []string{toCopy, toIndex} {
		got := im.stagedOutOfMemory(errors.New("out of memory (7)"), to).Error()
		if want := `line 3: trace "t-big": its step bodies (1.3 MB) do not fit in the memory this process has left to ` + to + ` (out of memory (7))`; !strings.HasPrefix(got, want) {
			t.Errorf("refusal %q, want it to start %q", got, want)
		}
	}
}
