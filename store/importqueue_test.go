package store

import (
	"context"
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
