package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// manyTraces is n small traces t000… in one JSONL text.
func manyTraces(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"trace_id":"t%03d","server":"s1","question":"How many %d?","steps":[{"kind":"answer","text":"%d"}]}`+"\n", i, i%3, i)
	}
	return b.String()
}

// SaveScores writes score rows several statements' worth at a time: every
// row lands with its trace's content hash, a trace that is not there is
// skipped, and a trace named twice keeps the later row, as if the rows
// were written one by one.
func TestSaveScoresInBatches(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		const n = 2*batchRows + 7 // two full statements and a short one
		if _, err := importString(t, st, "a.jsonl", manyTraces(n), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		classes := []string{"semantic", "temporal", ""}
		var rows []ScoreRow
		for i := range n {
			rows = append(rows, ScoreRow{TraceID: fmt.Sprintf("t%03d", i), SuggestedClass: classes[i%3], Markers: i,
				GoldSHA: GoldSHANone, ConfigSHA: "c", Detail: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))})
			if i == batchRows/2 {
				rows = append(rows, ScoreRow{TraceID: "gone", SuggestedClass: "policy", GoldSHA: GoldSHANone, ConfigSHA: "c"})
			}
		}
		// t005 again, later in the same statement's rows: the later row wins.
		rows = append(rows[:10:10], append([]ScoreRow{{TraceID: "t005", SuggestedClass: "policy", Markers: 99,
			GoldSHA: GoldSHANone, ConfigSHA: "c", Detail: json.RawMessage(`{"again":true}`)}}, rows[10:]...)...)
		if err := st.SaveScores(ctx, rows, nil); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			id, class, detail string
			markers           int
		}{
			{"t000", "semantic", `{"i":0}`, 0},
			{"t005", "policy", `{"again":true}`, 99},
			{"t064", "temporal", `{"i":64}`, 64},
			{fmt.Sprintf("t%03d", n-1), classes[(n-1)%3], fmt.Sprintf(`{"i":%d}`, n-1), n - 1},
		} {
			d, err := st.Score(ctx, tc.id)
			if err != nil || string(d) != tc.detail {
				t.Errorf("%s: detail %s %v, want %s", tc.id, d, err, tc.detail)
			}
			page, _, err := st.ListTraces(ctx, Query{Filter: Filter{TraceIDs: []string{tc.id}}})
			if err != nil || len(page) != 1 || page[0].SuggestedClass != tc.class || page[0].Markers != tc.markers {
				t.Errorf("%s: %+v %v, want class %q markers %d", tc.id, page, err, tc.class, tc.markers)
			}
		}
		stale, err := st.StaleTraces(ctx, "c")
		if err != nil || len(stale) != 0 {
			t.Fatalf("every score written should be current: %d stale %v", len(stale), err)
		}
		if c, err := st.CountTraces(ctx); err != nil || c != n {
			t.Fatalf("%d traces %v: the missing trace must not appear", c, err)
		}
	})
}

// A rescore that says what the stored score says, from the same trace
// and gold, moves the score to the new configuration and time and leaves
// the rest of the row as it is; one that says something else, or was
// computed from other gold, or whose trace the queue does not mark
// current, is written whole.
func TestSaveScoresSameResultMovesOnlyTheConfig(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if _, err := importString(t, st, "a.jsonl", manyTraces(4), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		row := func(i int, config, gold, detail string) ScoreRow {
			return ScoreRow{TraceID: fmt.Sprintf("t%03d", i), SuggestedClass: "semantic", Markers: i, GoldSHA: gold,
				ConfigSHA: config, Detail: json.RawMessage(detail)}
		}
		var first []ScoreRow
		for i := range 4 {
			first = append(first, row(i, "c1", GoldSHANone, fmt.Sprintf(`{"i":%d}`, i)))
		}
		if err := st.SaveScores(ctx, first, nil); err != nil {
			t.Fatal(err)
		}
		// Marks only a whole write undoes: the markers column, changed
		// behind the store's back, and t003's trace not marked current.
		if _, err := st.db.Exec(`UPDATE scores SET markers = 42`); err != nil {
			t.Fatal(err)
		}
		if _, err := st.db.Exec(`UPDATE traces SET score_ok = 0 WHERE trace_id = 't003'`); err != nil {
			t.Fatal(err)
		}
		st.SetClock(func() time.Time { return time.Date(2026, 7, 5, 10, 0, 0, 0, time.UTC) })
		again := []ScoreRow{
			row(0, "c2", GoldSHANone, `{"i":0}`), // says the same: moves only
			row(1, "c2", GoldSHANone, `{"i":"changed"}`),
			row(2, "c2", "other gold", `{"i":2}`),
			row(3, "c2", GoldSHANone, `{"i":3}`), // the same, but its trace is not marked current
		}
		if err := st.SaveScores(ctx, again, nil); err != nil {
			t.Fatal(err)
		}
		// t002's score, from gold its trace does not have, is not current.
		want := []struct {
			markers int
			detail  string
			current bool
		}{{42, `{"i":0}`, true}, {1, `{"i":"changed"}`, true}, {2, `{"i":2}`, false}, {3, `{"i":3}`, true}}
		for i, w := range want {
			var markers int
			var detail, config, gold, at string
			var ok bool
			err := st.db.QueryRow(`SELECT s.markers, s.detail, ss.config_sha, s.gold_sha, ss.scored_at, t.score_ok = 1
				FROM scores s JOIN traces t ON t.id = s.trace_pk JOIN score_state ss ON ss.trace_pk = s.trace_pk
				WHERE t.trace_id = ?`, fmt.Sprintf("t%03d", i)).
				Scan(&markers, &detail, &config, &gold, &at, &ok)
			if err != nil {
				t.Fatal(err)
			}
			if markers != w.markers || detail != w.detail || config != "c2" || gold != again[i].GoldSHA ||
				at != "2026-07-05T10:00:00Z" || ok != w.current {
				t.Errorf("t%03d: markers %d detail %s config %s gold %s at %s current %v; want markers %d detail %s current %v",
					i, markers, detail, config, gold, at, ok, w.markers, w.detail, w.current)
			}
		}
		if stale, err := st.StaleTraces(ctx, "c2"); err != nil || len(stale) != 1 || stale[0].TraceID != "t002" {
			t.Fatalf("stale %+v %v: want only t002, every other score current under c2", stale, err)
		}
	})
}

// Cases read together that share a gold, label and contracts text each
// get their own copy of what was decoded once.
func TestCasesForTracesShareNoDecodedValues(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if _, err := importString(t, st, "a.jsonl", manyTraces(3), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		yes := true
		class := model.FailureClass("semantic")
		tol, hours := 0.5, 24.0
		g := model.Gold{Answer: json.RawMessage(`[1,2]`), Tolerance: &tol, RequiredFields: []string{"a.b"},
			ForbiddenFields: []string{"a.c"}, Window: &model.Window{Start: "2026-01-01"}, FreshnessBoundHours: &hours}
		l := model.Label{Correct: &yes, Grounded: &yes, FailureClass: &class}
		for _, id := range []string{"t000", "t001", "t002"} {
			if err := st.SuggestCase(ctx, id, g, l); err != nil {
				t.Fatal(err)
			}
		}
		cases, err := st.CasesForTraces(ctx, []string{"t000", "t001", "t002"})
		if err != nil || len(cases) != 3 {
			t.Fatalf("%v %v", cases, err)
		}
		a := &cases["t000"].Case
		a.Gold.Answer[1] = '7'
		*a.Gold.Tolerance = 9
		a.Gold.RequiredFields[0] = "changed"
		a.Gold.ForbiddenFields[0] = "changed"
		a.Gold.Window.Start = "changed"
		*a.Gold.FreshnessBoundHours = 9
		*a.Label.Correct, *a.Label.Grounded, *a.Label.FailureClass = false, false, "changed"
		for _, id := range []string{"t001", "t002"} {
			c := cases[id].Case
			if mustJSON(c.Gold) != mustJSON(g) || mustJSON(c.Label) != mustJSON(l) {
				t.Errorf("%s shares what t000's case changed: %s %s", id, mustJSON(c.Gold), mustJSON(c.Label))
			}
		}
	})
}

// A BatchConn's loader prepares each statement once: batches of one size
// send the same statements, and after Close none is left open.
func TestBatchConnPreparesOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if _, err := importString(t, st, "a.jsonl", manyTraces(4), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		bc, err := st.BatchConn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, ids := range [][]string{{"t001", "t002"}, {"t003", "t000"}} {
			ts, err := bc.LoadTraces(ctx, ids)
			if err != nil || len(ts) != 2 || ts[0].TraceID != ids[0] || len(ts[1].Steps) == 0 {
				t.Fatalf("%v %v", ts, err)
			}
			if cs, err := bc.CasesForTraces(ctx, ids); err != nil || cs == nil {
				t.Fatalf("%v %v", cs, err)
			}
		}
		// traces, step bodies, contract links, cases (these traces list
		// no tools: no contract body is read)
		if n := len(bc.reads.stmts); n != 4 {
			t.Errorf("%d statements prepared for two batches of one size, want 4", n)
		}
		if err := bc.Close(); err != nil {
			t.Fatal(err)
		}
		if n := len(bc.reads.stmts); n != 0 {
			t.Errorf("%d statements left after Close", n)
		}
	})
}

// A BatchConn reads and writes on the connection it reserved and gives it
// back to the pool as it was: with the page cache every connection has.
func TestBatchConnGivesItsConnectionBack(t *testing.T) {
	st := sqliteStore(t)
	ctx := context.Background()
	if _, err := importString(t, st, "a.jsonl", manyTraces(3), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	st.db.SetMaxOpenConns(1) // the reserved connection is the pool's only one
	cache := func(q querier) int {
		var kib int
		if err := q.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&kib); err != nil {
			t.Fatal(err)
		}
		return kib
	}
	bc, err := st.BatchConn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := bc.LoadTraces(ctx, []string{"t001"})
	if err != nil || len(ts) != 1 || ts[0].TraceID != "t001" {
		t.Fatalf("%v %v", ts, err)
	}
	if err := bc.SaveScores(ctx, []ScoreRow{{TraceID: "t001", SuggestedClass: "semantic", GoldSHA: GoldSHANone}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := bc.Close(); err != nil {
		t.Fatal(err)
	}
	// The pool's one connection, so the one the BatchConn had: a
	// connection not given back would leave this waiting.
	back, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := st.db.Conn(back)
	if err != nil {
		t.Fatalf("the reserved connection was not given back: %v", err)
	}
	if got := cache(conn); got != cacheKiB {
		t.Fatalf("connection back in the pool with cache %d, want %d", got, cacheKiB)
	}
	conn.Close()
	if d, err := st.Score(ctx, "t001"); err != nil || string(d) != "{}" {
		t.Fatalf("score written on the reserved connection: %s %v", d, err)
	}
}
