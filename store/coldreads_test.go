package store

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// The report of the confirmed cases on SQLite reads migration 0041's
// partial indexes (sqlEachConfirmedRow): its rows are the general query's
// (sqlEachReportRow) through everything that writes a case, a trace or a
// score, and every score's confirmed flag is a recount of its trace's
// case status: imports, scores, cases suggested and confirmed, a label
// left unset ('pending'), a status taken back, a case or a score deleted
// and written again, a trace landing confirmed after its score (the
// staged copy's order), traces deleted.
func TestConfirmedReportRowsAreEveryConfirmedCase(t *testing.T) {
	st := sqliteStore(t)
	ctx := context.Background()
	importNumberedTraces(t, st, 12)
	rows := func(q string) []ReportRow {
		t.Helper()
		out, _, err := st.reportRows(ctx, q, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	check := func(step string, want int) {
		t.Helper()
		var wrong int
		if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM scores s JOIN traces t ON t.id = s.trace_pk
			WHERE s.confirmed <> (t.case_status IN ('confirmed', 'pending'))
				OR s.confirmed <> EXISTS (SELECT 1 FROM cases c WHERE c.case_id = t.case_id AND c.trace_pk = t.id AND c.status = 'confirmed')`).Scan(&wrong); err != nil {
			t.Fatal(err)
		}
		if wrong != 0 {
			t.Errorf("after %s: %d scores whose confirmed flag is not their trace's case's status", step, wrong)
		}
		fast, all := rows(sqlEachConfirmedRow), rows(sqlEachReportRow[ScopeConfirmed])
		if len(all) != want {
			t.Fatalf("after %s: %d confirmed report rows, want %d", step, len(all), want)
		}
		if !reflect.DeepEqual(fast, all) {
			t.Errorf("after %s: the indexed report rows\n%+v\nthe general query's\n%+v", step, fast, all)
		}
	}
	exec := func(step string, want int, qs ...string) {
		t.Helper()
		tx, err := st.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		for _, q := range qs {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		check(step, want)
	}
	check("the import", 0)
	exec("scores", 0, `INSERT INTO scores (trace_pk, suggested_class, correct, grounded, grounding_precision, calls, cost_usd, detail)
		SELECT id, CASE WHEN id % 3 = 0 THEN 'semantic' ELSE '' END, id % 2, NULL, id / 10.0, id, id * 0.5, '{}' FROM traces`)
	exec("cases", 5, `INSERT INTO cases (case_id, trace_pk, source_trace, question, gold, label, cost, status, gold_origin)
		SELECT 'c' || id, id, trace_id, question, '{}', '{"correct":true,"failure_class":null}', '{}',
			CASE WHEN id % 2 = 0 THEN 'confirmed' ELSE 'suggested' END, CASE WHEN id % 4 = 0 THEN 'human' ELSE 'machine' END
		FROM traces WHERE id <= 10`)
	exec("a confirmation", 6, `UPDATE cases SET status = 'confirmed' WHERE trace_pk = 3`)
	exec("a confirmation taken back", 5, `UPDATE cases SET status = 'suggested' WHERE trace_pk = 2`)
	exec("an imported confirmation with its label unset", 6, `UPDATE cases SET status = 'confirmed', confirmed_by = 'import:x',
		label = '{"correct":null,"grounded":null,"failure_class":null}' WHERE trace_pk = 5`)
	var pending string
	if err := st.db.QueryRowContext(ctx, `SELECT case_status FROM traces WHERE id = 5`).Scan(&pending); err != nil || pending != "pending" {
		t.Fatalf("the unset label's trace is %q (%v), want pending", pending, err)
	}
	exec("its label set", 6, `UPDATE cases SET label = '{"correct":false,"grounded":true,"failure_class":"entity"}' WHERE trace_pk = 5`)
	exec("a rescore", 6, `UPDATE scores SET suggested_class = 'policy', grounding_recall = 0.5, needs_review = 1 WHERE trace_pk IN (4, 6)`)
	exec("a score deleted", 5, `DELETE FROM scores WHERE trace_pk = 4`)
	exec("a score written again", 6, `INSERT INTO scores (trace_pk, suggested_class, calls, detail) VALUES (4, 'temporal', 2, '{}')`)
	exec("a case deleted", 5, `DELETE FROM cases WHERE trace_pk = 6`)
	exec("a trace landing confirmed after its score and case (the staged copy)", 6,
		`PRAGMA defer_foreign_keys = ON`,
		`INSERT INTO scores (trace_pk, suggested_class, calls, detail) VALUES (100, 'entity', 1, '{}')`,
		`INSERT INTO cases (case_id, trace_pk, source_trace, question, gold, label, cost, status, gold_origin)
			VALUES ('c100', 100, 'late', 'q?', '{}', '{"correct":true}', '{}', 'confirmed', 'human')`,
		`INSERT INTO traces (id, trace_id, question, content_sha, imported_at, case_id, case_status)
			VALUES (100, 'late', 'q?', 'x', 'now', 'c100', 'confirmed')`)
	exec("traces deleted", 4, `DELETE FROM traces WHERE id IN (3, 100)`)
	exec("every trace deleted", 0, `DELETE FROM traces`)
}

// importNumberedTraces imports n one-step traces t0, t1, … over two
// servers and three runs.
func importNumberedTraces(t *testing.T, st *Store, n int) {
	t.Helper()
	var lines strings.Builder
	for i := range n {
		fmt.Fprintf(&lines, `{"trace_id":"t%d","server":"s%d","run_id":"r%d","question":"How many %d?","steps":[{"kind":"answer","text":"1"}]}`+"\n", i, i%2, i%3, i)
	}
	if _, err := importString(t, st, "a.jsonl", lines.String(), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
}

// The confirmed report's pages read the three partial covering indexes
// and nothing else: no table row, no sort.
func TestConfirmedReportReadsOnlyItsIndexes(t *testing.T) {
	st := sqliteStore(t)
	p := queryPlan(t, st.db, sqlEachConfirmedRow, 0, eachScoreBatch)
	for _, want := range []string{"SEARCH c USING COVERING INDEX cases_confirmed_report",
		"SEARCH t USING COVERING INDEX traces_confirmed_report", "SEARCH s USING COVERING INDEX scores_confirmed_report"} {
		if !strings.Contains(p, want) {
			t.Errorf("the confirmed report's page does not %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "TEMP B-TREE") {
		t.Errorf("the confirmed report's page sorts:\n%s", p)
	}
}

// The queue's page under one class or one status reads an index in trace
// order and stops at the page's end: no sort of every trace of that
// class or status.
func TestFilteredPageReadsInTraceOrder(t *testing.T) {
	st := sqliteStore(t)
	for _, f := range []Filter{{Classes: []string{"semantic"}}, {Statuses: []model.Status{model.StatusConfirmed}}} {
		where, args := f.whereSorted(st.d, "")
		q := fmt.Sprintf(summarySelect, sortExpr(SortImported)) + where + ` ORDER BY t.id ASC, t.id ASC LIMIT ?`
		p := queryPlan(t, st.db, q, append(append([]any{int64(0)}, args...), 101)...)
		if strings.Contains(p, "TEMP B-TREE") || !strings.Contains(p, "SEARCH t USING INDEX traces_") {
			t.Errorf("filter %+v: the page sorts or reads no index:\n%s", f, p)
		}
	}
}
