package store

import (
	"context"
	"reflect"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// The counts migration 0034 keeps are the counts of the traces
// themselves through everything that moves a trace's class, status or
// dispute: an import, cases landing, scores, a label's class, a status,
// a dispute, a trace deleted. Each filter on class and status is asked
// both ways.
func TestKeptCountsMatchTheTraces(t *testing.T) {
	st := sqliteStore(t)
	ctx := context.Background()
	importNumberedTraces(t, st, 12)
	filters := []Filter{{}, {Classes: []string{"none"}}, {Classes: []string{"semantic", "policy"}},
		{Statuses: []model.Status{model.StatusConfirmed}}, {Statuses: []model.Status{model.StatusNone, model.StatusSuggested}},
		{Classes: []string{"semantic"}, Statuses: []model.Status{model.StatusConfirmed, model.StatusNone}}}
	check := func(step string) {
		t.Helper()
		for _, f := range filters {
			where, args := f.where(st.d)
			if !keptCounts(st.d, f, where) {
				t.Fatalf("filter %+v is not answered from the kept counts", f)
			}
			kept, err := st.Counts(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			counted, err := st.countsOf(ctx, sqlCounts+where+` GROUP BY 1, 2`, args...)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(kept, counted) {
				t.Errorf("after %s, filter %+v: kept counts %+v, the traces say %+v", step, f, kept, counted)
			}
		}
	}
	check("the import")
	exec := func(step, q string) {
		t.Helper()
		if _, err := st.db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		check(step)
	}
	exec("scores", `INSERT INTO scores (trace_pk, suggested_class, detail)
		SELECT id, CASE WHEN id % 3 = 0 THEN 'semantic' WHEN id % 3 = 1 THEN 'policy' ELSE '' END, '{}' FROM traces`)
	exec("a rescore", `UPDATE scores SET suggested_class = 'semantic' WHERE trace_pk % 2 = 0`)
	exec("cases", `INSERT INTO cases (case_id, trace_pk, source_trace, question, gold, label, cost, status, gold_origin)
		SELECT 'c' || id, id, trace_id, question, '{}', '{"failure_class":null}', '{}', CASE WHEN id % 2 = 0 THEN 'confirmed' ELSE 'suggested' END, 'machine'
		FROM traces WHERE id % 4 <> 3`)
	exec("a label's class", `UPDATE cases SET label = '{"failure_class":"structural"}' WHERE trace_pk IN (1, 2, 4)`)
	exec("a status", `UPDATE cases SET status = 'confirmed' WHERE trace_pk = 5`)
	exec("a dispute", `UPDATE cases SET disputed = 1 WHERE trace_pk IN (2, 5)`)
	exec("a dispute settled", `UPDATE cases SET disputed = 0 WHERE trace_pk = 2`)
	exec("a case deleted", `DELETE FROM cases WHERE trace_pk = 6`)
	exec("traces deleted", `DELETE FROM traces WHERE id IN (5, 7, 8)`)
	exec("every trace deleted", `DELETE FROM traces`)
	if c, _ := st.Counts(ctx, Filter{}); c.Total != 0 || len(c.ByClass) != 0 || len(c.ByStatus) != 0 {
		t.Errorf("an empty queue counts %+v", c)
	}
}

// The header counts of the whole queue, or under a filter on class and
// status, read the kept counts; a filter on anything else counts the
// traces.
func TestCountsReadTheKeptCounts(t *testing.T) {
	st := sqliteStore(t)
	for _, c := range []struct {
		f    Filter
		kept bool
	}{
		{Filter{}, true},
		{Filter{Classes: []string{"policy"}, Statuses: []model.Status{model.StatusConfirmed}}, true},
		{Filter{Servers: []string{"s1"}}, false},
		{Filter{Search: "x"}, false},
		{Filter{Disputed: true}, false},
		{Filter{QueuedOnly: true, Classes: []string{"policy"}}, false},
	} {
		where, _ := c.f.where(st.d)
		if got := keptCounts(st.d, c.f, where); got != c.kept {
			t.Errorf("filter %+v: kept counts %v, want %v", c.f, got, c.kept)
		}
	}
}
