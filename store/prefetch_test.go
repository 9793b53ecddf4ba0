package store

import (
	"context"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// An import told ahead which traces come (Prefetch, as the engine does for
// the records its parser has ready) decides unchanged, conflicting,
// replaced and repeated traces as one told nothing, on both backends; on
// PostgreSQL the answers come from the one lookup and the trace rows go in
// batches with ids taken ahead from the sequence, in the file's order.
func TestPrefetchedImportDecidesAsOneByOne(t *testing.T) {
	trace := func(id, answer string, line int) *model.Trace {
		return &model.Trace{TraceID: id, Question: "q " + id, Source: model.Source{File: "b.jsonl", Line: line},
			Steps: []model.Step{{Kind: model.KindToolCall, Tool: "run_sql"}, {Kind: model.KindAnswer, Text: answer}}}
	}
	for _, replace := range []bool{false, true} {
		eachBackend(t, func(t *testing.T, b backend) {
			st := b.open(t)
			ctx := context.Background()
			first, err := st.BeginImport(ctx, "a.jsonl", false)
			if err != nil {
				t.Fatal(err)
			}
			for i, id := range []string{"a", "b"} {
				if rerr, err := first.PutTrace(trace(id, "1", i+1)); rerr != nil || err != nil {
					t.Fatal(rerr, err)
				}
			}
			if err := first.Commit("native", "sha", 0); err != nil {
				t.Fatal(err)
			}
			ts := []*model.Trace{trace("a", "1", 1), trace("b", "2", 2), trace("c", "1", 3), trace("d", "1", 4), trace("c", "2", 5), trace("d", "1", 6)}
			im, err := st.BeginImport(ctx, "b.jsonl", replace)
			if err != nil {
				t.Fatal(err)
			}
			defer im.Rollback()
			rows := make([]*TraceRow, len(ts))
			for i, tr := range ts {
				rows[i] = PrepareTrace(tr)
			}
			if err := im.Prefetch(rows); err != nil {
				t.Fatal(err)
			}
			var refused []string
			for _, r := range rows {
				_, rerr, err := im.PutRow(r)
				if err != nil {
					t.Fatal(err)
				}
				if rerr != nil {
					refused = append(refused, rerr.Path+"@"+string(rune('0'+rerr.Line)))
				}
			}
			if err := im.Commit("native", "sha", len(refused)); err != nil {
				t.Fatal(err)
			}
			s := im.Stats
			order, err := queryColumn[string](ctx, st.db, `SELECT trace_id FROM traces ORDER BY id`)
			if err != nil {
				t.Fatal(err)
			}
			answers, err := queryColumn[string](ctx, st.db, `SELECT answer FROM traces ORDER BY id`)
			if err != nil {
				t.Fatal(err)
			}
			got := []any{s.New, s.Unchanged, s.Replaced, strings.Join(refused, " "), strings.Join(order, ""), strings.Join(answers, "")}
			want := []any{2, 2, 0, "trace_id@2 trace_id@5", "abcd", "1111"}
			if replace {
				// b and the first c are replaced: their new rows come after.
				want = []any{2, 2, 2, "", "abdc", "1212"}
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("replace=%v: new, unchanged, replaced, refused, order, answers = %v, want %v", replace, got, want)
				}
			}
		})
	}
}
