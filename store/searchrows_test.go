package store

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

// searchTextCorpus is traces whose steps hold what the index's text
// depends on: empty and missing fields, documents and text that is not
// JSON, numbers as written, keys out of order, a repeated key, escapes,
// in one trace and across traces. (From h/pgimp's test of its Go reader.)
const searchTextCorpus = `{"trace_id":"s1","server":"w","run_id":"r1","started_at":"2026-07-03T09:12:00Z","question":"How many active customers in EMEA?","outcome":"pass","steps":[{"kind":"user","text":"How many active customers in EMEA?"},{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":"SELECT count(*)\nFROM customers c\nWHERE c.is_active AND c.region_code = 'EMEA'"}},{"kind":"tool_result","call_id":"c1","result":{"rows":[{"count":1284}],"bb":1,"a":{"z":[1,2,{"k":"v"}],"y":null},"bb":2.50}},{"kind":"answer","text":"1,284 customers"}]}
{"trace_id":"s2","server":"w","run_id":"r1","started_at":"2026-07-03T09:13:00Z","question":"","outcome":"failure","steps":[{"kind":"user","text":"look it up"},{"kind":"reasoning","text":""},{"kind":"tool_call","id":"c1","tool":"lookup","args":{"x":1.5E-2,"face":"\ud83d\ude00"}},{"kind":"tool_result","call_id":"c1","result":"plain"},{"kind":"tool_call","id":"c2","tool":"lookup","args":{}},{"kind":"tool_result","call_id":"c2","result":[]},{"kind":"tool_call","id":"c3","tool":"lookup","args":{"nul":"a\u0000b"}},{"kind":"tool_result","call_id":"c3","result":null}]}
{"trace_id":"s3","server":"v","run_id":"r2","started_at":"2026-07-03T09:14:00Z","question":"caf\u00e9 \u003c tables \u0026 views","outcome":"pass","steps":[{"kind":"tool_call","id":"c1","tool":"describe_table","args":{"table":"customers"}},{"kind":"tool_result","call_id":"c1","result":{"table":"customers","columns":[{"name":"is_active","type":"boolean"},{"name":"region_code","type":"text"}]}},{"kind":"tool_call","id":"c2","tool":"run_sql","args":{"n":-0}},{"kind":"tool_result","call_id":"c2","result":"not json {"},{"kind":"tool_call","id":"c3","tool":"run_sql","args":{"sql":"SELECT 1e3"}},{"kind":"tool_result","call_id":"c3","result":{"":"","é":true}}]}
`

// replacingTraces is n traces of three steps, each with its own words, and
// the trace of index again (same id, other content) after the others.
func replacingTraces(n, again int) string {
	var b strings.Builder
	line := func(i int, word string) {
		fmt.Fprintf(&b, `{"trace_id":"m%04d","server":"w","run_id":"r9","started_at":"2026-07-03T10:00:00Z","question":"q%d %s?","outcome":"pass","steps":[{"kind":"user","text":"q%d"},{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":"SELECT %s_%d FROM t%d"}},{"kind":"tool_result","call_id":"c1","result":{"rows":[{"n":%d}]}}]}`+"\n",
			i, i, word, i, word, i, i, i)
	}
	for i := range n {
		line(i, "first")
	}
	line(again, "second")
	return b.String()
}

// bigBodyTraces is three traces of three steps, the second's tool result
// the words "many words" n times (11n bytes). Over bigBody, its index rows
// are computed where its body is stored (pgsearch.go's addStored), the
// others' on the search connection; under it, over batchBytes, it
// ends its job early.
func bigBodyTraces(n int) string {
	var b strings.Builder
	for i := range 3 {
		result := fmt.Sprintf(`{"rows":[{"n":%d}]}`, i)
		if i == 1 {
			result = `"` + strings.Repeat("many words ", n) + `"`
		}
		fmt.Fprintf(&b, `{"trace_id":"b%d","server":"w","run_id":"r8","started_at":"2026-07-03T10:00:00Z","question":"q%d?","outcome":"pass","steps":[{"kind":"user","text":"q%d"},{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":"SELECT %d"}},{"kind":"tool_result","call_id":"c1","result":%s}]}`+"\n",
			i, i, i, i, result)
	}
	return b.String()
}

// indexRows is the index's rows by trace id, each as trace:idx:kind, its
// text and its tsvector.
func indexRows(t *testing.T, st *Store) []string {
	t.Helper()
	return queryStrings(t, st, `SELECT t.trace_id || ':' || s.idx || ':' || s.kind || E'\n' || s.text || E'\n' || s.tsv::text
		FROM step_search s JOIN traces t ON t.id = s.trace_pk ORDER BY t.trace_id, s.idx`)
}

// sqlIndexFromBodies is what step_search_vectors (0047's) gives from the
// stored bodies and 0018's search_vector from the questions, each vector
// made from its row's text again, in indexRows' form.
const sqlIndexFromBodies = `SELECT trace_id || ':' || idx || ':' || kind || E'\n' || text || E'\n' || search_vector(text)::text FROM (
	SELECT t.trace_id, r.idx, r.kind, r.text FROM step_bodies b JOIN traces t ON t.id = b.trace_pk, step_search_vectors(b.body) r
	UNION ALL SELECT trace_id, -1, 'question', question FROM traces) x ORDER BY trace_id, idx`

// noOrphans fails t when an index holds rows of a trace it no longer
// has (indexRows, a join, would not show them): deleting a trace must
// delete its rows (0046's trigger).
func noOrphans(t *testing.T, stores ...*Store) {
	t.Helper()
	for i, st := range stores {
		n := queryStrings(t, st, `SELECT count(*)::text FROM step_search s WHERE NOT EXISTS (SELECT 1 FROM traces t WHERE t.id = s.trace_pk)`)
		if n[0] != "0" {
			t.Errorf("store %d: %s index rows of traces that are gone", i, n[0])
		}
	}
}

func queryStrings(t *testing.T, st *Store, q string) []string {
	t.Helper()
	out, err := queryColumn[string](context.Background(), st.db, q)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// liveImport writes the traces of body through a live batch, whose rows
// the triggers of 0018 and 0047 index one by one.
func liveImport(t *testing.T, st *Store, body string) {
	t.Helper()
	ctx := context.Background()
	im, err := st.BeginLive(ctx, "live")
	if err != nil {
		t.Fatal(err)
	}
	defer im.Rollback()
	_, err = importers.Parse(ctx, strings.NewReader(body), "live.jsonl", "", func(rec importers.Record) error {
		if rec.Trace == nil {
			t.Fatalf("record %d: %+v", rec.Line, rec.Err)
		}
		rec.Trace.Source = model.Source{File: "live", Line: rec.Line}
		_, rerr, err := im.PutRow(PrepareTrace(rec.Trace))
		if rerr != nil {
			t.Fatalf("record %d: %v", rec.Line, rerr)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := im.Commit("jsonl", "", 0); err != nil {
		t.Fatal(err)
	}
}

// The index rows of a bulk import on PostgreSQL (the import's writer,
// 64-row batches) must be the rows of a live batch (one statement a
// trace), and both the rows 0047's function gives from the stored
// bodies (and 0018's from the questions), text and tsvector alike; search must answer the same. The big file
// replaces one of its own traces; a trace replaced by a later import is
// indexed as its new content, and a write after the import (a live
// batch) is indexed too.
func TestBulkSearchRowsMatchTrigger(t *testing.T) {
	big := replacingTraces(330, 3)
	tests := []struct {
		name, body string
		rows       int // each trace's question and the parts of its body
	}{
		{"kinds of text", searchTextCorpus, 3 * 2},
		{"many traces, one replaced", big, 330 * 2},
		// The second body's 4.6 million characters, indexed to their
		// first 4,000,000: 138 parts of 30,000 a part's 29,000 apart.
		{"a body over bigBody among others", bigBodyTraces(bigBody / 10), 2 + 2 + 1 + 138},
		// 1.15 million characters: 40 parts.
		{"a job sent by size", bigBodyTraces(batchBytes / 10), 2 + 2 + 1 + 40},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bulk, live := backends[1].open(t), backends[1].open(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if res, err := importReader(ctx, bulk, strings.NewReader(tc.body), "a.jsonl", ImportOptions{Replace: true}); err != nil {
				for _, b := range res.Bad {
					t.Error(b)
				}
				t.Fatal(err)
			}
			liveImport(t, live, tc.body)
			got, want := indexRows(t, bulk), indexRows(t, live)
			noOrphans(t, bulk, live)
			if len(got) != tc.rows {
				t.Errorf("%d rows in the bulk import's index, want %d", len(got), tc.rows)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("bulk import's index differs from the trigger's:\n%s", diffLines(got, want))
			}
			if fromBodies := queryStrings(t, bulk, sqlIndexFromBodies); !reflect.DeepEqual(got, fromBodies) {
				t.Errorf("bulk import's index differs from 0047's function over the bodies:\n%s", diffLines(got, fromBodies))
			}
			if fromBodies := queryStrings(t, live, sqlIndexFromBodies); !reflect.DeepEqual(want, fromBodies) {
				t.Errorf("the trigger's index differs from 0047's function over the bodies:\n%s", diffLines(want, fromBodies))
			}
		})
	}

	// A replacing import, then a live trace into the same database.
	bulk, live := backends[1].open(t), backends[1].open(t)
	if _, err := importString(t, bulk, "a.jsonl", searchTextCorpus, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	liveImport(t, live, searchTextCorpus)
	s1 := strings.SplitN(searchTextCorpus, "\n", 2)[0]
	replaced := strings.Replace(s1, "1,284 customers", "1,285 customers after all", 1) + "\n"
	if _, err := importString(t, bulk, "b.jsonl", replaced, ImportOptions{Replace: true}); err != nil {
		t.Fatal(err)
	}
	liveImport(t, live, replaced)
	s4 := strings.ReplaceAll(s1, `"s1"`, `"s4"`) + "\n"
	liveImport(t, bulk, s4)
	liveImport(t, live, s4)
	got, want := indexRows(t, bulk), indexRows(t, live)
	noOrphans(t, bulk, live)
	if len(got) != 4*2 || !reflect.DeepEqual(got, want) {
		t.Errorf("after a replace and a live trace, %d rows, the index differs:\n%s", len(got), diffLines(got, want))
	}
	ctx := context.Background()
	for _, q := range []string{"is_active", "region_code", "1284", "1,285", "customers", "plain", "café", "lookup", "json", "views", "face", "nul"} {
		a, err := bulk.Search(ctx, SearchQuery{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		b, err := live.Search(ctx, SearchQuery{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || !reflect.DeepEqual(hitKeys(a), hitKeys(b)) {
			t.Errorf("%q: bulk %v, trigger %v", q, hitKeys(a), hitKeys(b))
		}
	}
}

// A bulk import computes its search rows on a second connection
// (pgsearch.go); where the server refuses one (here the role's CONNECTION
// LIMIT 1), the import goes on with the per-row triggers, and its index
// is the one a live batch writes.
func TestBulkSearchWithoutASecondConnection(t *testing.T) {
	dsn := backends[1].fresh(t)
	admin := backends[1].openAt(t, dsn, Options{}) // runs the migrations
	ctx := context.Background()
	role := fmt.Sprintf("tl_one_conn_%d", os.Getpid())
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.db.ExecContext(ctx, "CREATE ROLE "+role+" LOGIN CONNECTION LIMIT 1"); err != nil {
		t.Skipf("cannot make a role with one connection: %v", err)
	}
	t.Cleanup(func() { // after the role's store closes (cleanups run last first)
		for _, q := range []string{"DROP OWNED BY " + role, "DROP ROLE " + role} {
			if _, err := admin.db.ExecContext(ctx, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	sp := u.Query().Get("search_path")
	for _, q := range []string{"GRANT ALL ON SCHEMA " + sp + " TO " + role,
		"GRANT ALL ON ALL TABLES IN SCHEMA " + sp + " TO " + role,
		"GRANT ALL ON ALL SEQUENCES IN SCHEMA " + sp + " TO " + role} {
		if _, err := admin.db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	u.User = url.User(role)
	limited := backends[1].openAt(t, u.String(), Options{})
	if res, err := importString(t, limited, "a.jsonl", searchTextCorpus, ImportOptions{}); err != nil {
		t.Fatalf("import with one connection: %v (%v)", err, res.Bad)
	}
	live := backends[1].open(t)
	liveImport(t, live, searchTextCorpus)
	if got, want := indexRows(t, admin), indexRows(t, live); len(got) != 3*2 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d rows, the index differs from a live batch's:\n%s", len(got), diffLines(got, want))
	}
}

// diffLines lists the lines only one side holds.
func diffLines(got, want []string) string {
	in := func(s []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range s {
			m[x] = true
		}
		return m
	}
	g, w := in(got), in(want)
	var b strings.Builder
	for _, x := range got {
		if !w[x] {
			b.WriteString("+ " + strings.ReplaceAll(x, "\n", " | ") + "\n")
		}
	}
	for _, x := range want {
		if !g[x] {
			b.WriteString("- " + strings.ReplaceAll(x, "\n", " | ") + "\n")
		}
	}
	return b.String()
}

// 0047's search_words makes each ASCII punctuation mark and space a
// space where 0018's made each run of them one: the vectors of the index
// and the queries of a search must come out as 0018's did, on text with
// every mark, runs of them, Unicode spaces and letters, and escapes.
func TestSearchWordsAsBefore(t *testing.T) {
	st := backends[1].open(t)
	var marks strings.Builder
	for c := '!'; c <= '~'; c++ {
		marks.WriteString("w" + string(c) + "x" + string(c) + string(c) + " ")
	}
	texts := []string{marks.String(), "c.is_active AND c.region_code = 'EMEA'", "a\t\tb\n\r\vc\fd", "café\u00a0naïve\u2003日本語 e-mail x@y.z v1.2.3 /usr/bin C:\\new",
		"  lead and trail  ", "", "--", `{"sql":"SELECT count(*)\nFROM t"}`, `a\"b\\c`}
	if _, err := importString(t, st, "a.jsonl", searchTextCorpus, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	texts = append(texts, queryStrings(t, st, `SELECT text FROM step_search`)...)
	const old = `regexp_replace(?, '[!-/:-@{-~[-` + "`" + `[:space:]]+', ' ', 'g')`
	for _, x := range texts {
		var sameVector, sameQuery bool
		err := st.db.QueryRowContext(context.Background(), `SELECT to_tsvector('simple', search_words(?)) = to_tsvector('simple', `+old+`),
			phraseto_tsquery('simple', search_words(?))::text = phraseto_tsquery('simple', `+old+`)::text`, x, x, x, x).Scan(&sameVector, &sameQuery)
		if err != nil || !sameVector || !sameQuery {
			t.Errorf("%.60q: same vector %v, same query %v, %v", x, sameVector, sameQuery, err)
		}
	}
}

// A team store indexed a row per step (0018) has its bodies indexed again
// by 0047: its rows are then 0047's, none of 0018's step rows left, a
// search finds a trace holding its words in two steps, and the vectors'
// statistics are kept finer.
func TestMigration47IndexesBodiesAgain(t *testing.T) {
	loc := olderDatabase(t, backends[1], 46,
		`INSERT INTO traces (id, trace_id, question, content_sha, imported_at, step_count) VALUES (1, 't1', 'Active customers?', 'sha1', 'now', 2)`,
		`INSERT INTO step_bodies (trace_pk, body) VALUES (1, '[["reasoning","","","is_active it is","",null,null,"",0,"","",0],`+
			`["tool_call","c1","","","run_sql","{\"sql\":\"SELECT 1\\nFROM t WHERE region_code\"}",null,"",0,"","",0]]')`)
	before := backends[1].openAt(t, loc, Options{upTo: 46})
	if n := queryStrings(t, before, `SELECT count(*)::text FROM step_search`); n[0] != "3" {
		t.Fatalf("%s rows at 0046, want 3 (the question and two steps)", n[0])
	}
	before.Close()
	st := backends[1].openAt(t, loc, Options{})
	if got, want := indexRows(t, st), queryStrings(t, st, sqlIndexFromBodies); len(got) != 2 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d rows after 0047, want its two:\n%s", len(got), diffLines(got, want))
	}
	if n, err := st.SearchTraceCount(context.Background(), "is_active region_code", Filter{}); err != nil || n != 1 {
		t.Errorf("a trace holding the words in two steps: %d, %v; want 1", n, err)
	}
	// The vectors' statistics keep 10,000 words (see 0047).
	if got := queryStrings(t, st, `SELECT attstattarget::text FROM pg_attribute WHERE attrelid = 'step_search'::regclass AND attname = 'tsv'`); got[0] != "1000" {
		t.Errorf("statistics target of step_search.tsv %s, want 1000", got[0])
	}
}
