package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// The queue columns an import leaves on its traces are what the triggers
// give when the same scores and cases are written after it (SaveScores),
// on both backends; on PostgreSQL the import sets them with one UPDATE of
// each trace at its end (migration 0032), where the triggers wrote one
// per case and one per score and the format one more.
func TestImportSetsQueueColumnsOnce(t *testing.T) {
	const cols = `trace_id, suggested_class, case_id, case_status, label_class, queue_class, score_ok, source_format, teaches`
	columns := func(t *testing.T, st *Store) string {
		t.Helper()
		rows, err := st.db.Query(`SELECT ` + cols + ` FROM traces ORDER BY trace_id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var v [9]string
			if err := rows.Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]); err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.Join(v[:], "|"))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, "\n")
	}
	var want string
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		rows, sgs := queueRuleWrites()
		after := b.open(t)
		if _, err := importString(t, after, "q.jsonl", queueRuleTraces(), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := after.SaveScores(ctx, rows, sgs); err != nil {
			t.Fatal(err)
		}
		st := b.open(t)
		im, err := st.BeginImport(ctx, "q.jsonl", false)
		if err != nil {
			t.Fatal(err)
		}
		defer im.Rollback()
		for i, c := range queueRuleCases {
			tr := &model.Trace{TraceID: c.trace, Server: "s", Question: "q " + c.trace + "?",
				Steps: []model.Step{{Kind: model.KindAnswer, Text: "x"}}, Source: model.Source{File: "q.jsonl", Line: i + 1}}
			if rerr, err := im.PutTrace(tr); err != nil || rerr != nil {
				t.Fatal(rerr, err)
			}
		}
		if err := im.PutScores(rows, sgs); err != nil {
			t.Fatal(err)
		}
		if b.name == "postgres" {
			// What Commit does first, then the updates of trace rows so
			// far in the import's transaction.
			if err := im.w.flush(); err != nil {
				t.Fatal(err)
			}
			if err := im.w.refreshQueue(im.file, "native"); err != nil {
				t.Fatal(err)
			}
			var updates int
			if err := im.tx.QueryRow(`SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE relid = 'traces'::regclass`).Scan(&updates); err != nil {
				t.Fatal(err)
			}
			if updates != len(queueRuleCases) {
				t.Errorf("the import updated trace rows %d times, want %d (once each)", updates, len(queueRuleCases))
			}
		}
		if err := im.Commit("native", "sha", 0); err != nil {
			t.Fatal(err)
		}
		got, ref := columns(t, st), columns(t, after)
		if got != ref {
			t.Errorf("%s after an import with scores:\n%s\nafter SaveScores:\n%s", cols, got, ref)
		}
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("%s on %s:\n%s\non sqlite:\n%s", cols, b.name, got, want)
		}
	})
}

// A PostgreSQL import leaves the partial index of the unscored traces
// (traces_unscored) holding only the traces it left unscored: its traces
// land with score_ok 1 until the end sets it (writer.bulk). Landed with
// the column's 0, every trace had an entry there, dead once it was set to
// 1, and the first listing of the unscored traces visited the heap for
// each (2.8 s after a 100k import, in a labeler's background rescore).
func TestImportLeavesNoDeadUnscoredEntries(t *testing.T) {
	st := backends[1].open(t) // postgres
	ctx := context.Background()
	const n, unscored = 3000, 10
	im, err := st.BeginImport(ctx, "u.jsonl", false)
	if err != nil {
		t.Fatal(err)
	}
	defer im.Rollback()
	var rows []ScoreRow
	for i := range n {
		id := fmt.Sprintf("u%04d", i)
		tr := &model.Trace{TraceID: id, Server: "s", Question: fmt.Sprintf("q %d?", i),
			Steps: []model.Step{{Kind: model.KindAnswer, Text: "x"}}, Source: model.Source{File: "u.jsonl", Line: i + 1}}
		if rerr, err := im.PutTrace(tr); err != nil || rerr != nil {
			t.Fatal(rerr, err)
		}
		if i >= unscored {
			rows = append(rows, ScoreRow{TraceID: id, Detail: []byte(`{}`), GoldSHA: GoldSHANone})
		}
	}
	if err := im.PutScores(rows, nil); err != nil {
		t.Fatal(err)
	}
	if err := im.Commit("native", "sha", 0); err != nil {
		t.Fatal(err)
	}
	// What the first listing read, before any other could mark the dead
	// entries: the index's pages and the heap's of the entries it found
	// (cumulative over the plan's nodes).
	var plan string
	if err := st.db.QueryRowContext(ctx, `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) `+sqlUnscored).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	var p []struct {
		Plan struct {
			Hit  int `json:"Shared Hit Blocks"`
			Read int `json:"Shared Read Blocks"`
		}
	}
	if err := json.Unmarshal([]byte(plan), &p); err != nil || len(p) != 1 {
		t.Fatalf("plan %s: %v", plan, err)
	}
	if blocks := p[0].Plan.Hit + p[0].Plan.Read; blocks > 2*unscored+4 {
		t.Errorf("listing the %d unscored traces of %d read %d blocks, want at most %d: dead entries of scored traces in traces_unscored",
			unscored, n, blocks, 2*unscored+4)
	}
	listed, err := queryColumn[int64](ctx, st.db, `SELECT count(*) FROM (`+sqlUnscored+`) u`)
	if err != nil {
		t.Fatal(err)
	}
	if listed[0] != unscored {
		t.Errorf("listed %d unscored traces, want %d", listed[0], unscored)
	}
}
