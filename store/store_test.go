package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

const goodTraces = `{"trace_id":"t1","server":"s1","as_user":"u1","question":"How many?","outcome":"pass","tools":[{"name":"run_sql","description":"Run SQL","inputSchema":{"type":"object"}}],"steps":[{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":"SELECT 1"}},{"kind":"tool_result","call_id":"c1","result":{"rows":[[1]]},"as_of":"2026-07-03T08:00:00Z"},{"kind":"answer","text":"1"}],"usage":{"input_tokens":10,"output_tokens":2,"usd":0.01}}
{"trace_id":"t2","server":"s2","question":"Which one?","steps":[{"kind":"reasoning","text":"sounds like x"},{"kind":"clarification","text":"fiscal or calendar?"},{"kind":"user","text":"fiscal"},{"kind":"answer","text":"x"}]}
`

// snapshot renders every row of every table, to prove a failed import
// changed nothing.
func snapshot(t *testing.T, st *Store) string {
	t.Helper()
	return snapshotOf(t, st, "traces", "steps", "contracts", "trace_contracts", "cases", "events", "imports", "scores", "glossary")
}

// snapshotOf renders every row of the tables named, in that order.
func snapshotOf(t *testing.T, st *Store, tables ...string) string {
	t.Helper()
	var b strings.Builder
	for _, table := range tables {
		for _, vals := range scanRows(t, st, "SELECT * FROM "+table) {
			b.WriteString(table)
			for _, v := range vals {
				b.WriteString("|")
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				b.WriteString(strings.TrimSpace(strings.ReplaceAll(jsonish(v), "\n", " ")))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// scanRows is every row q selects from st, each its columns' values.
func scanRows(t *testing.T, st *Store, q string) [][]any {
	t.Helper()
	rows, err := st.db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonish(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestMigrateFromEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := st.SchemaVersion(context.Background())
	if err != nil || v < 1 {
		t.Fatalf("version %d, err %v", v, err)
	}
	var mode string
	st.db.QueryRow("PRAGMA journal_mode").Scan(&mode)
	var fk int
	st.db.QueryRow("PRAGMA foreign_keys").Scan(&fk)
	if mode != "wal" || fk != 1 {
		t.Errorf("journal_mode %q foreign_keys %d, want wal and 1", mode, fk)
	}
	st.Close()
	// Reopening applies nothing twice.
	st2, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	v2, _ := st2.SchemaVersion(context.Background())
	if v2 != v {
		t.Errorf("version changed on reopen: %d -> %d", v, v2)
	}
}

// A database tracelab makes has its pages of newPageSize; one made
// before keeps its own, and opening it changes nothing of it.
func TestPageSizeOfNewDatabases(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	pageSize := func(path string) int {
		t.Helper()
		st, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if _, err := importString(t, st, "t.jsonl", goodTraces, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		var size int
		if err := st.db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&size); err != nil {
			t.Fatal(err)
		}
		return size
	}
	fresh := filepath.Join(dir, "fresh.db")
	if got := pageSize(fresh); got != 16384 {
		t.Errorf("a new database has pages of %d bytes, want 16384", got)
	}
	if got := pageSize(fresh); got != 16384 {
		t.Errorf("reopened: pages of %d bytes, want 16384", got)
	}
	// A database of SQLite's default size, as earlier releases made them.
	old := filepath.Join(dir, "old.db")
	db, err := sql.Open("sqlite", "file:"+old+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE x (a); DROP TABLE x`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if got := pageSize(old); got != 4096 {
		t.Errorf("an existing 4 KiB database has pages of %d bytes after tracelab opened it, want 4096", got)
	}
}

// Stores opened on one new file at once all come up: the ones that lose
// the race to turn it to WAL wait their turn instead of failing with
// SQLITE_BUSY (which SQLite's busy handler does not cover there).
func TestOpenOneNewDatabaseAtOnce(t *testing.T) {
	ctx := context.Background()
	for round := range 10 {
		path := filepath.Join(t.TempDir(), "new.db")
		const n = 8
		errs := make(chan error, n)
		start := make(chan struct{})
		for range n {
			go func() {
				<-start
				st, err := Open(ctx, path)
				if err == nil {
					err = st.Close()
				}
				errs <- err
			}()
		}
		close(start)
		for range n {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}

func TestImportIsIdempotent(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		res, err := importString(t, st, "a.jsonl", goodTraces, ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.New != 2 || res.Unchanged != 0 || res.Steps != 7 || res.Format != "native" {
			t.Fatalf("first import: %+v", res)
		}
		before := snapshotWithoutImports(t, st)
		res, err = importString(t, st, "a.jsonl", goodTraces, ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.New != 0 || res.Unchanged != 2 {
			t.Fatalf("second import: %+v", res)
		}
		if after := snapshotWithoutImports(t, st); after != before {
			t.Errorf("re-import changed data:\n%s\nvs\n%s", before, after)
		}
		tr, err := st.Trace(context.Background(), "t1")
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Steps) != 3 || tr.Steps[1].AsOf != "2026-07-03T08:00:00Z" || len(tr.Tools) != 1 || tr.Tools[0].Description != "Run SQL" {
			t.Errorf("trace read back wrong: %+v", tr)
		}
	})
}

func snapshotWithoutImports(t *testing.T, st *Store) string {
	var keep []string
	for _, l := range strings.Split(snapshot(t, st), "\n") {
		if !strings.HasPrefix(l, "imports|") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func TestBadInputChangesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		tests := []struct {
			name, line, want string
		}{
			{"bad kind", `{"trace_id":"x","question":"q","steps":[{"kind":"user","text":"q"},{"kind":"user"},{"kind":"answer"},{"kind":"tool-call"}]}`,
				`bad.jsonl:2: steps[3].kind: "tool-call" is not one of user, reasoning, assistant, tool_call, tool_result, clarification, answer`},
			{"wrong type", `{"trace_id":"x","question":"q","steps":[{"kind":"answer","text":["a"]}]}`,
				`bad.jsonl:2: steps[0].text: expected a string, got array`},
			{"truncated", `{"trace_id":"x","question":"q","steps":[`,
				`bad.jsonl:2: invalid JSON: unexpected end of input (truncated line?)`},
			{"missing id", `{"question":"q","steps":[]}`,
				`bad.jsonl:2: trace_id: required, a non-empty string`},
			{"bad outcome", `{"trace_id":"x","question":"q","outcome":"ok","steps":[]}`,
				`bad.jsonl:2: outcome: "ok" is not one of pass, retry, clarification, failure, unknown`},
			{"unpaired result", `{"trace_id":"x","question":"q","steps":[{"kind":"tool_result","call_id":"c9"}]}`,
				`bad.jsonl:2: steps[0].call_id: "c9" does not match the id of any earlier tool_call`},
			{"bad as_of", `{"trace_id":"x","question":"q","steps":[{"kind":"tool_call","id":"c","tool":"t"},{"kind":"tool_result","call_id":"c","as_of":"yesterday"}]}`,
				`bad.jsonl:2: steps[1].as_of: "yesterday" is not an RFC 3339 time like 2026-07-03T08:00:00Z`},
			{"usage type", `{"trace_id":"x","question":"q","steps":[],"usage":{"usd":"cheap"}}`,
				`bad.jsonl:2: usage.usd: expected a number, got string`},
			{"not an object", `["trace_id"]`, `bad.jsonl:2: expected a JSON object (one trace per line)`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				st := b.open(t)
				if _, err := importString(t, st, "good.jsonl", goodTraces, ImportOptions{}); err != nil {
					t.Fatal(err)
				}
				before := snapshot(t, st)
				first := strings.SplitN(goodTraces, "\n", 2)[0]
				first = strings.Replace(first, `"t1"`, `"t9"`, 1)
				res, err := importString(t, st, "bad.jsonl", first+"\n"+tt.line+"\n", ImportOptions{})
				if !errors.Is(err, ErrRejected) {
					t.Fatalf("err = %v, want ErrRejected", err)
				}
				if len(res.Bad) != 1 || res.Bad[0].Error() != tt.want {
					t.Fatalf("bad = %v\nwant %s", res.Bad, tt.want)
				}
				if after := snapshot(t, st); after != before {
					t.Errorf("database changed by a rejected file")
				}
				// --skip-bad imports the good line and still reports the bad one.
				res, err = importString(t, st, "bad.jsonl", first+"\n"+tt.line+"\n", ImportOptions{SkipBad: true})
				if err != nil || res.New != 1 || len(res.Bad) != 1 {
					t.Fatalf("skip-bad: %+v, %v", res, err)
				}
			})
		}
	})
}

func TestConflictNamesBothSources(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		if _, err := importString(t, st, "a.jsonl", goodTraces, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(goodTraces, `"text":"1"}`, `"text":"2"}`, 1)
		res, err := importString(t, st, "b.jsonl", changed, ImportOptions{})
		if !errors.Is(err, ErrRejected) {
			t.Fatalf("err %v", err)
		}
		want := `b.jsonl:1: trace_id: trace "t1" was already imported from a.jsonl:1 with different content (use --replace to overwrite it)`
		if len(res.Bad) != 1 || res.Bad[0].Error() != want {
			t.Fatalf("got %v\nwant %s", res.Bad, want)
		}
		res, err = importString(t, st, "b.jsonl", changed, ImportOptions{Replace: true})
		if err != nil || res.Replaced != 1 || res.Unchanged != 1 || res.New != 0 {
			t.Fatalf("replace: %+v %v", res, err)
		}
		tr, _ := st.Trace(context.Background(), "t1")
		if tr.FinalAnswer() != "2" || tr.Source.File != "b.jsonl" {
			t.Errorf("not replaced: %+v", tr)
		}
	})
}

func TestCasesRoundTripAndDeterministicExport(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		in, err := os.ReadFile("testdata/cases_canonical.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		st := b.open(t)
		res, err := importReader(context.Background(), st, bytes.NewReader(in), "cases_canonical.jsonl", ImportOptions{})
		if err != nil || res.Format != "cases" || res.New != 3 {
			t.Fatalf("%+v %v", res, err)
		}
		dir := t.TempDir()
		if _, err := st.ExportCases(context.Background(), dir, false); err != nil {
			t.Fatal(err)
		}
		out, _ := os.ReadFile(filepath.Join(dir, "cases.jsonl"))
		if !bytes.Equal(in, out) {
			t.Fatalf("round trip differs:\n in: %s\nout: %s", in, out)
		}
		if _, err := st.ExportCases(context.Background(), dir, false); err != nil {
			t.Fatal(err)
		}
		again, _ := os.ReadFile(filepath.Join(dir, "cases.jsonl"))
		if !bytes.Equal(out, again) {
			t.Fatal("export is not byte-identical on rerun")
		}
		// Importing the suite again changes nothing.
		res, err = importReader(context.Background(), st, bytes.NewReader(in), "cases_canonical.jsonl", ImportOptions{})
		if err != nil || res.Unchanged != 3 || res.New != 0 {
			t.Fatalf("re-import: %+v %v", res, err)
		}
	})
}

func TestCaseAttachesToItsTraceAndTakesItsCost(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		c := `{"case_id":"k1","source_trace":"t1","user_role":"r","as_user":"u1","question":"How many?","gold":{"answer":1,"tolerance":0,"required_fields":[],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":true,"grounded":true,"failure_class":null,"note":""},"cost":{"input_tokens":0,"output_tokens":0,"tool_calls":0,"turns":0,"usd":0}}` + "\n"
		// The case arrives before its trace: it stands alone, then links.
		if _, err := importString(t, st, "cases.jsonl", c, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := importString(t, st, "traces.jsonl", goodTraces, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		cr, err := st.CaseForTrace(ctx, "t1")
		if err != nil || cr == nil {
			t.Fatalf("case not linked: %v", err)
		}
		want := model.Cost{InputTokens: 10, OutputTokens: 2, ToolCalls: 1, Turns: 1, USD: 0.01}
		if cr.Case.Cost != want {
			t.Errorf("cost %+v, want %+v", cr.Case.Cost, want)
		}
	})
}

func TestEditConfirmUndo(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if _, err := importString(t, st, "a.jsonl", goodTraces, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.EditTrace(ctx, "t1", "ana", "label.correct", json.RawMessage(`true`)); err != nil {
			t.Fatal(err)
		}
		if _, err := st.EditTrace(ctx, "t1", "ana", "label.failure_class", json.RawMessage(`"semantic"`)); err != nil {
			t.Fatal(err)
		}
		if _, err := st.EditTrace(ctx, "t1", "ana", "label.failure_class", json.RawMessage(`"bogus"`)); err == nil {
			t.Fatal("invalid class accepted")
		}
		if _, err := st.ConfirmTrace(ctx, "t1", "ana"); err != nil {
			t.Fatal(err)
		}
		cr, _ := st.CaseForTrace(ctx, "t1")
		if cr.Status != model.StatusConfirmed || cr.ConfirmedBy != "ana" || *cr.Case.Label.FailureClass != "semantic" {
			t.Fatalf("after confirm: %+v", cr)
		}
		// Undo walks back: confirm, then the class.
		if ev, err := st.UndoTrace(ctx, "t1", "ana"); err != nil || ev.Field != "status" {
			t.Fatalf("undo 1: %+v %v", ev, err)
		}
		if ev, err := st.UndoTrace(ctx, "t1", "ana"); err != nil || ev.Field != "label.failure_class" {
			t.Fatalf("undo 2: %+v %v", ev, err)
		}
		cr, _ = st.CaseForTrace(ctx, "t1")
		if cr.Status != model.StatusSuggested || cr.Case.Label.FailureClass != nil || cr.Case.Label.Correct == nil {
			t.Fatalf("after undo: %+v", cr)
		}
		// Another labeler has nothing to undo here.
		if _, err := st.UndoTrace(ctx, "t1", "bob"); !errors.Is(err, ErrNothingToUndo) {
			t.Fatalf("bob undo: %v", err)
		}
		evs, _ := st.Events(ctx, cr.Case.CaseID)
		if len(evs) != 5 || evs[4].Undoes != evs[1].ID {
			t.Fatalf("events: %+v", evs)
		}
		// The log is append-only.
		if _, err := st.db.Exec(`DELETE FROM events`); err == nil {
			t.Error("events could be deleted")
		}
	})
}

func TestListTracesPagesAndFilters(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		var body strings.Builder
		for i := 0; i < 250; i++ {
			server := "a"
			if i%3 == 0 {
				server = "b"
			}
			body.WriteString(`{"trace_id":"tr` + strings.Repeat("0", 3-len(itoa(i))) + itoa(i) + `","server":"` + server +
				`","question":"question ` + itoa(i) + `","steps":[{"kind":"answer","text":"x"}]}` + "\n")
		}
		if _, err := importString(t, st, "many.jsonl", body.String(), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, sort := range SortKeys {
			for _, desc := range []bool{false, true} {
				seen := map[string]bool{}
				q := Query{Filter: Filter{Servers: []string{"b"}}, Sort: sort, Desc: desc, Limit: 7}
				for {
					page, next, err := st.ListTraces(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					for _, p := range page {
						if seen[p.TraceID] || p.Server != "b" {
							t.Fatalf("sort %s: duplicate or wrong row %+v", sort, p)
						}
						seen[p.TraceID] = true
					}
					if next == nil {
						break
					}
					q.After = next
				}
				if len(seen) != 84 {
					t.Errorf("sort %s desc %v: %d rows, want 84", sort, desc, len(seen))
				}
			}
		}
		page, _, _ := st.ListTraces(ctx, Query{Filter: Filter{Search: "question 12"}, Limit: 50})
		if len(page) != 11 { // 12, 120-129
			t.Errorf("search found %d", len(page))
		}
		c, err := st.Counts(ctx, Filter{})
		if err != nil || c.Total != 250 || c.ByStatus[model.StatusNone] != 250 || c.ByClass["none"] != 250 {
			t.Errorf("counts %+v %v", c, err)
		}
	})
}

func itoa(i int) string { return strings.TrimSpace(jsonish(i)) }

func TestGlossary(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if err := st.SaveGlossary(ctx, GlossaryEntry{Term: "active"}, "ana"); err == nil {
			t.Fatal("entry without definition accepted")
		}
		e := GlossaryEntry{Term: "Active", Definition: "active = subscription_status in (ACTIVE, PAUSED_BILLING)",
			RequiredFields: []string{"customers.subscription_status"}}
		if err := st.SaveGlossary(ctx, e, "ana"); err != nil {
			t.Fatal(err)
		}
		e.Term = "active"
		e.ForbiddenFields = []string{"customers.is_active"}
		if err := st.SaveGlossary(ctx, e, "bob"); err != nil {
			t.Fatal(err)
		}
		g, err := st.Glossary(ctx)
		if err != nil || len(g) != 1 || g[0].UpdatedBy != "bob" || g[0].ForbiddenFields[0] != "customers.is_active" {
			t.Fatalf("%+v %v", g, err)
		}
	})
}

func TestScoresFeedTheQueue(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if _, err := importString(t, st, "a.jsonl", goodTraces, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		yes := true
		if err := st.SaveScores(ctx, []ScoreRow{{TraceID: "t2", SuggestedClass: "semantic", Markers: 1, Grounded: &yes,
			Detail: json.RawMessage(`{"x":1}`)}}, nil); err != nil {
			t.Fatal(err)
		}
		page, _, err := st.ListTraces(ctx, Query{Filter: Filter{Classes: []string{"semantic"}}})
		if err != nil || len(page) != 1 || page[0].TraceID != "t2" || page[0].Markers != 1 {
			t.Fatalf("%+v %v", page, err)
		}
		d, err := st.Score(ctx, "t2")
		if err != nil || string(d) != `{"x":1}` {
			t.Fatalf("%s %v", d, err)
		}
		if d, _ := st.Score(ctx, "t1"); d != nil {
			t.Fatalf("unscored trace has detail %s", d)
		}
	})
}

func TestSuggestCaseNeverOverwritesAPerson(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if _, err := importString(t, st, "a.jsonl", goodTraces, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		no := false
		g := model.Gold{RequiredFields: []string{"customers.sales_region"}}
		if err := st.SuggestCase(ctx, "t1", g, model.Label{Grounded: &no}); err != nil {
			t.Fatal(err)
		}
		cr, _ := st.CaseForTrace(ctx, "t1")
		if cr == nil || cr.Status != model.StatusSuggested || cr.GoldOrigin != "machine" || len(cr.Case.Gold.RequiredFields) != 1 {
			t.Fatalf("suggestion not stored: %+v", cr)
		}
		// A person edits the label; the next suggestion leaves the case alone.
		if _, err := st.EditTrace(ctx, "t1", "ana", "label.note", json.RawMessage(`"checked"`)); err != nil {
			t.Fatal(err)
		}
		if err := st.SuggestCase(ctx, "t1", model.Gold{}, model.Label{}); err != nil {
			t.Fatal(err)
		}
		cr, _ = st.CaseForTrace(ctx, "t1")
		if len(cr.Case.Gold.RequiredFields) != 1 || cr.Case.Label.Note != "checked" {
			t.Fatalf("suggestion overwrote a person's work: %+v", cr.Case)
		}
		ts, err := st.LoadTraces(ctx, []string{"t2", "nope", "t1"})
		if err != nil || len(ts) != 2 || ts[0].TraceID != "t2" || len(ts[1].Steps) != 3 || len(ts[1].Tools) != 1 {
			t.Fatalf("LoadTraces: %v %+v", err, ts)
		}
	})
}

// Cancelling an import (Ctrl-C) rolls the file in progress back.
func TestCancelledImportRollsBack(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		if _, err := importString(t, st, "first.jsonl", goodTraces, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, st)
		var body strings.Builder
		for i := 0; i < 5000; i++ {
			body.WriteString(`{"trace_id":"big` + itoa(i) + `","question":"q","steps":[{"kind":"answer","text":"` +
				strings.Repeat("x", 200) + `"}]}` + "\n")
		}
		ctx, cancel := context.WithCancel(context.Background())
		opts := ImportOptions{Progress: func(n int64, records int) {
			if records > 100 {
				cancel()
			}
		}}
		_, err := importReader(ctx, st, strings.NewReader(body.String()), "big.jsonl", opts)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if after := snapshot(t, st); after != before {
			t.Error("a cancelled import left rows behind")
		}
	})
}

// A trace repeated in one file with other content: without --replace the
// file is rejected; with it the later line wins and its steps alone remain
// (buffered step rows of the first are written before it is deleted).
func TestReplaceWithinOneFile(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		body := `{"trace_id":"d","question":"q","steps":[{"kind":"tool_call","tool":"a"},{"kind":"tool_call","tool":"b"},{"kind":"answer","text":"first"}]}
{"trace_id":"d","question":"q","steps":[{"kind":"tool_call","tool":"c"},{"kind":"answer","text":"second"}]}
`
		if _, err := importString(t, st, "dup.jsonl", body, ImportOptions{}); !errors.Is(err, ErrRejected) {
			t.Fatalf("duplicate id with other content accepted: %v", err)
		}
		res, err := importString(t, st, "dup.jsonl", body, ImportOptions{Replace: true})
		if err != nil || res.New != 1 || res.Replaced != 1 {
			t.Fatalf("%+v %v", res, err)
		}
		tr, err := st.Trace(ctx, "d")
		if err != nil || len(tr.Steps) != 2 || tr.Steps[1].Text != "second" {
			t.Fatalf("%+v %v", tr, err)
		}
		// Only the steps that name a tool have a row (migration 0016).
		rows, err := queryColumn[string](ctx, st.db, `SELECT tool FROM steps`)
		if err != nil || strings.Join(rows, " ") != "c" {
			t.Errorf("step rows %v %v, want the second line's one", rows, err)
		}
	})
}

// A trace with two cases is listed once, with its first case by id.
func TestTraceWithTwoCasesListedOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if _, err := importString(t, st, "a.jsonl", goodTraces, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		mk := func(id string) string {
			return `{"case_id":"` + id + `","source_trace":"t1","user_role":"r","as_user":"u1","question":"How many?","gold":{"answer":1,"tolerance":0,"required_fields":[],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":true,"grounded":true,"failure_class":null,"note":""},"cost":{"input_tokens":0,"output_tokens":0,"tool_calls":0,"turns":0,"usd":0}}` + "\n"
		}
		if _, err := importString(t, st, "cases.jsonl", mk("k2")+mk("k1"), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		page, _, err := st.ListTraces(ctx, Query{})
		if err != nil || len(page) != 2 {
			t.Fatalf("%d rows, %v", len(page), err)
		}
		if page[0].TraceID != "t1" || page[0].CaseID != "k1" || page[0].Status != model.StatusConfirmed {
			t.Errorf("row %+v, want t1 with its first case k1", page[0])
		}
		c, _ := st.Counts(ctx, Filter{})
		if c.Total != 2 || c.ByStatus[model.StatusConfirmed] != 1 {
			t.Errorf("counts %+v", c)
		}
	})
}

// An empty file (an export with no confirmed case) is nothing to import,
// not bad input.
func TestEmptyFileImportsNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		for _, body := range []string{"", "\n\n  \n", "\xef\xbb\xbf\n"} {
			res, err := importString(t, st, "cases.jsonl", body, ImportOptions{})
			if err != nil || res.Format != "empty" || res.New != 0 || len(res.Bad) != 0 {
				t.Fatalf("%q: %+v %v", body, res, err)
			}
		}
	})
}
