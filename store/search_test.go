package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// searchTrace is a native trace whose SQL filters on col and whose
// reasoning says why.
func searchTrace(id, server, col, reasoning string) string {
	line := fmt.Sprintf(`{"trace_id":%q,"server":%q,"run_id":"r1","started_at":"2026-07-03T09:12:00Z","question":"How many active customers in EMEA?","outcome":"pass",
"steps":[{"kind":"reasoning","text":%q},
{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":"SELECT count(*)\nFROM customers c\nWHERE c.%s = true AND c.region_code = 'EMEA'"}},
{"kind":"tool_result","call_id":"c1","result":{"rows":[{"count":1284}]},"as_of":"2026-07-03T08:00:00Z"},
{"kind":"answer","text":"1,284 customers"}]}`, id, server, reasoning, col)
	return strings.ReplaceAll(line, ",\n", ",") + "\n"
}

// searchStores are the ways a trace reaches the index: a SQLite import
// staged beside the file, one straight into it, and PostgreSQL.
var searchStores = []struct {
	name string
	open func(t *testing.T) *Store
}{
	{"sqlite staged", sqliteStore},
	{"sqlite direct", func(t *testing.T) *Store { st := sqliteStore(t); st.stage = false; return st }},
	{"postgres", backends[1].open},
}

func TestSearchFindsStepsAsWritten(t *testing.T) {
	for _, k := range searchStores {
		t.Run(k.name, func(t *testing.T) {
			ctx := context.Background()
			st := k.open(t)
			body := searchTrace("t1", "a", "is_active", "is_active sounds like the right flag") +
				searchTrace("t2", "b", "active_flag", "I will use the subscription status")
			if _, err := importString(t, st, "s.jsonl", body, ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			cases := []struct {
				query string
				want  []string // trace:step:kind
			}{
				{"is_active", []string{"t1:0:reasoning", "t1:1:tool_call"}},
				{"IS_ACTIVE", []string{"t1:0:reasoning", "t1:1:tool_call"}},
				{"active", []string{"t1:-1:question", "t2:-1:question"}}, // not is_active
				{"region_code", []string{"t1:1:tool_call", "t2:1:tool_call"}},
				{"FROM customers", []string{"t1:1:tool_call", "t2:1:tool_call"}}, // "\nFROM" in the SQL string
				{`"subscription status"`, []string{"t2:0:reasoning"}},
				{`"status subscription"`, nil},
				{`"right flag" is_active`, []string{"t1:0:reasoning"}},
				{"run_sql", []string{"t1:1:tool_call", "t2:1:tool_call"}},
				{"1284", []string{"t1:2:tool_result", "t2:2:tool_result"}},
				{"EMEA customers", []string{"t1:-1:question", "t1:1:tool_call", "t2:-1:question", "t2:1:tool_call"}},
			}
			for _, c := range cases {
				hits, err := st.Search(ctx, SearchQuery{Text: c.query})
				if err != nil {
					t.Fatalf("%q: %v", c.query, err)
				}
				if got := hitKeys(hits); !reflect.DeepEqual(got, c.want) {
					t.Errorf("%q: hits %v, want %v", c.query, got, c.want)
				}
			}
			// FTS5's own syntax in the user's text is only text.
			for _, q := range []string{`") OR 1=1 --`, `NEAR(a b) * ^col:x`, "-- ()", `"`} {
				if _, err := st.Search(ctx, SearchQuery{Text: q}); err != nil {
					t.Errorf("%q: %v", q, err)
				}
			}
			hits, err := st.Search(ctx, SearchQuery{Text: "region_code", Filter: Filter{Servers: []string{"b"}}})
			if err != nil || !reflect.DeepEqual(hitKeys(hits), []string{"t2:1:tool_call"}) {
				t.Errorf("server b: %v %v", hitKeys(hits), err)
			}
			if len(hits) == 1 && !strings.Contains(hits[0].Snippet, "region_code = 'EMEA'") {
				t.Errorf("snippet %q", hits[0].Snippet)
			}
			if steps, err := st.SearchSteps(ctx, "t1", "is_active"); err != nil || !reflect.DeepEqual(steps, []int{0, 1}) {
				t.Errorf("steps of t1: %v %v", steps, err)
			}
			if n, err := st.SearchTraceCount(ctx, "customers", Filter{}); err != nil || n != 2 {
				t.Errorf("traces holding customers: %d %v", n, err)
			}
			// The queue's search finds a trace by its steps too.
			page, _, err := st.ListTraces(ctx, Query{Filter: Filter{Search: "is_active"}})
			if err != nil || len(page) != 1 || page[0].TraceID != "t1" {
				t.Errorf("queue search: %+v %v", page, err)
			}
		})
	}
}

// A trace imported after the index was built is in it; a replaced
// trace's old steps are gone from it.
func TestSearchFollowsImportsAndReplaces(t *testing.T) {
	for _, k := range searchStores {
		t.Run(k.name, func(t *testing.T) {
			ctx := context.Background()
			st := k.open(t)
			if _, err := importString(t, st, "a.jsonl", searchTrace("t1", "a", "is_active", "first"), ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := importString(t, st, "b.jsonl", searchTrace("t2", "a", "is_active", "second"), ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			hits, err := st.Search(ctx, SearchQuery{Text: "is_active"})
			if err != nil || !reflect.DeepEqual(hitKeys(hits), []string{"t1:1:tool_call", "t2:1:tool_call"}) {
				t.Fatalf("after two imports: %v %v", hitKeys(hits), err)
			}
			// t1 again, its SQL now on another column: the old steps leave the index.
			if _, err := importString(t, st, "c.jsonl", searchTrace("t1", "a", "churned_at", "third"), ImportOptions{Replace: true}); err != nil {
				t.Fatal(err)
			}
			for q, want := range map[string][]string{
				"is_active":  {"t2:1:tool_call"},
				"first":      nil,
				"churned_at": {"t1:1:tool_call"},
				"third":      {"t1:0:reasoning"},
			} {
				hits, err := st.Search(ctx, SearchQuery{Text: q})
				if err != nil || !reflect.DeepEqual(hitKeys(hits), want) {
					t.Errorf("%q after the replace: %v %v, want %v", q, hitKeys(hits), err, want)
				}
			}
			// The replaced trace's rows left the index: a row per trace on
			// SQLite, two on PostgreSQL (its question, its body's one part).
			want := map[string]int{"postgres": 4}[k.name]
			if want == 0 {
				want = 2
			}
			var n int
			if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM step_search`).Scan(&n); err != nil || n != want {
				t.Errorf("index rows %d %v, want %d", n, err, want)
			}
		})
	}
}

// A database written before migration 0018 has its traces indexed by it.
func TestMigration18IndexesStoredTraces(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		loc := olderDatabase(t, b, 16,
			`INSERT INTO traces (id, trace_id, question, content_sha, imported_at, step_count) VALUES (1, 't1', 'Active customers?', 'sha1', 'now', 2)`,
			`INSERT INTO step_bodies (trace_pk, body) VALUES (1, '[["reasoning","","","is_active it is","",null,null,"",0,"","",0],`+
				`["tool_call","c1","","","run_sql","{\"sql\":\"SELECT 1\\nFROM t WHERE is_active\"}",null,"",0,"","",0]]')`)
		st := b.openAt(t, loc, Options{})
		hits, err := st.Search(ctx, SearchQuery{Text: "is_active"})
		if err != nil || !reflect.DeepEqual(hitKeys(hits), []string{"t1:0:reasoning", "t1:1:tool_call"}) {
			t.Errorf("hits %v %v", hitKeys(hits), err)
		}
		hits, err = st.Search(ctx, SearchQuery{Text: "from customers"})
		if err != nil || len(hits) != 0 {
			t.Errorf("no row holds both: %v %v", hitKeys(hits), err)
		}
		hits, err = st.Search(ctx, SearchQuery{Text: "active"})
		if err != nil || !reflect.DeepEqual(hitKeys(hits), []string{"t1:-1:question"}) {
			t.Errorf("question: %v %v", hitKeys(hits), err)
		}
	})
}

func hitKeys(hits []SearchHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s:%d:%s", h.TraceID, h.Step, h.Kind))
	}
	return out
}

func TestSearchTerms(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"is_active", []string{"is_active"}},
		{`  "right  flag" is_active `, []string{"right flag", "is_active"}},
		{`a"b c"d`, []string{"a", "b c", "d"}},
		{`"unclosed phrase`, []string{"unclosed phrase"}},
		{`-- () "" "`, nil},
		{"", nil},
	} {
		if got := SearchTerms(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SearchTerms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("x ", 40) + "WHERE Is_Active = 1\n  AND region_code = 'EMEA' " + strings.Repeat("y ", 40)
	for _, c := range []struct {
		text  string
		terms []string
		want  string
	}{
		{"short is_active text", []string{"is_active"}, "short is_active text"},
		{long, []string{"is_active"}, "…x x x x x x x x x x x x WHERE Is_Active = 1 AND region_code = 'EMEA' y y y y y y y y y y y y y y…"},
		{"no match here", []string{"zzz"}, "no match here"},
		{"the right\nflag", []string{"right flag"}, "the right flag"},
		{"ééééééééééééééééééééé is_active", []string{"is_active"}, "…ééééééééééééééé is_active"},
	} {
		if got := Snippet(c.text, c.terms); got != c.want {
			t.Errorf("Snippet(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// A saved view keeps its filter and search under its name; saving the
// name again replaces it.
func TestSavedViews(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		st := b.open(t)
		f := Filter{Classes: []string{"semantic"}, Servers: []string{"a"}, Search: "is_active", TraceIDs: []string{"t1"}}
		if err := st.SaveView(ctx, "flag guesses", f, "ana"); err != nil {
			t.Fatal(err)
		}
		if err := st.SaveView(ctx, " ", f, "ana"); err == nil {
			t.Error("a blank name was saved")
		}
		v, err := st.View(ctx, "flag guesses")
		f.TraceIDs = nil
		if err != nil || !reflect.DeepEqual(v.Filter, f) || v.SavedBy != "ana" {
			t.Errorf("view %+v %v", v, err)
		}
		f.Servers = []string{"b"}
		if err := st.SaveView(ctx, "flag guesses", f, "bo"); err != nil {
			t.Fatal(err)
		}
		if err := st.SaveView(ctx, "all", Filter{}, "bo"); err != nil {
			t.Fatal(err)
		}
		vs, err := st.Views(ctx)
		if err != nil || len(vs) != 2 || vs[0].Name != "all" || vs[1].Filter.Servers[0] != "b" {
			t.Errorf("views %+v %v", vs, err)
		}
		if _, err := st.View(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing view: %v", err)
		}
	})
}

// The search text is typed by anyone: splitting it, matching it and
// cutting snippets around it never panics, every term has a word to look
// for, and a snippet stays short whatever the text.
func FuzzSearchTerms(f *testing.F) {
	f.Add(`"right flag" is_active`, "is_active sounds like the right flag")
	f.Add(`"`, "")
	f.Add(`a"b c"d é_ü`, "\xff\xfe é_ü a b c d")
	f.Fuzz(func(t *testing.T, query, text string) {
		terms := SearchTerms(query)
		for _, term := range terms {
			if len(words(term)) == 0 {
				t.Fatalf("term %q of %q has no word", term, query)
			}
		}
		m := matcherOf(terms)
		m.holds(words(text))
		if s := Snippet(text, terms); len(s) > 200+len(query) {
			t.Fatalf("snippet of %d bytes", len(s))
		}
	})
}

// The queue's `/` finds a trace by a piece of its id, of its case's id or
// of its question, as written, or by the words its steps hold; the
// indexes that find the candidates never widen what it finds. Each way a
// trace reaches the id index (a staged copy, a direct write whose case
// comes after its row) keeps it.
func TestQueueSearchFindsIDsAndQuestions(t *testing.T) {
	for _, k := range searchStores {
		t.Run(k.name, func(t *testing.T) { queueSearchFindsIDsAndQuestions(t, k.open(t)) })
	}
}

func queueSearchFindsIDsAndQuestions(t *testing.T, st *Store) {
	ctx := context.Background()
	traces := `{"trace_id":"ord-7731","server":"a","question":"Revenue in Q3-2026, by region?","steps":[{"kind":"answer","text":"x"}]}
{"trace_id":"ord-7732","server":"b","question":"Revenue in Q3 2026 by region","steps":[{"kind":"answer","text":"is_active"}]}
`
	if _, err := importString(t, st, "t.jsonl", traces, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	mk := func(id, trace string) string {
		return `{"case_id":"` + id + `","source_trace":"` + trace + `","user_role":"r","as_user":"u1","question":"How many?","gold":{"answer":1,"tolerance":0,"required_fields":[],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":true,"grounded":true,"failure_class":null,"note":""},"cost":{"input_tokens":0,"output_tokens":0,"tool_calls":0,"turns":0,"usd":0}}` + "\n"
	}
	if _, err := importString(t, st, "c.jsonl", mk("k-beta", "ord-7731")+mk("k-alpha", "ord-7731")+mk("k-gamma", "ord-7732"), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		search  string
		servers []string
		want    string
	}{
		{"7731", nil, "ord-7731"},
		{"ORD-77", nil, "ord-7731 ord-7732"},  // ASCII case ignored
		{"ord-77", []string{"b"}, "ord-7732"}, // with the other filters
		{"alpha", nil, "ord-7731"},            // the trace's case
		{"k-beta", nil, ""},                   // not the trace's case (its first by id)
		{"gamma", nil, "ord-7732"},            //
		{"evenue in Q3-2", nil, "ord-7731"},   // as written, not as its question key
		{"egion?", nil, "ord-7731"},           //
		{"?", nil, "ord-7731"},                // no letter or digit: no key to narrow by
		{"is_active", nil, "ord-7732"},        // in the steps
		{"50%", nil, ""},                      // % is a character
		{"nowhere", nil, ""},                  //
	}
	for _, c := range cases {
		page, _, err := st.ListTraces(ctx, Query{Filter: Filter{Search: c.search, Servers: c.servers}})
		if err != nil {
			t.Fatalf("%q: %v", c.search, err)
		}
		var got []string
		for _, p := range page {
			got = append(got, p.TraceID)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%q: found %v, want %q", c.search, got, c.want)
		}
	}
}

// A trace holding a search's terms in different steps is counted as
// holding them on both backends, though no step is a hit: SQLite's index
// has a row per trace, and PostgreSQL's (0047) finds a term in any of the
// trace's rows. A word joined by '_' is not its parts apart. A word across
// the end of the first 30,000 characters of a long body, and a phrase in
// its last part, are found: PostgreSQL's parts overlap by 1,000
// characters.
func TestSearchTermsAcrossStepsAndParts(t *testing.T) {
	// The needle's 400 characters start at 29,797 of the result, which
	// the body's text starts well under 200 characters in: they hold the
	// 30,000th character of the body's text.
	needle := "needle_" + strings.Repeat("x", 393)
	long := strings.Repeat("lorem ", 4966) + " " + needle + " " + strings.Repeat("lorem ", 5000) + ` \"alpha beta\"`
	corpus := `{"trace_id":"p1","server":"w","run_id":"r1","started_at":"2026-07-03T09:12:00Z","question":"q?","outcome":"pass","steps":[{"kind":"user","text":"q"},{"kind":"tool_call","id":"c1","tool":"read","args":{}},{"kind":"tool_result","call_id":"c1","result":"` + long + `"}]}
{"trace_id":"p2","server":"w","run_id":"r1","started_at":"2026-07-03T09:13:00Z","question":"q?","outcome":"pass","steps":[{"kind":"user","text":"redfox here"},{"kind":"reasoning","text":"then"},{"kind":"answer","text":"bluejay there"}]}
{"trace_id":"p3","server":"w","run_id":"r1","started_at":"2026-07-03T09:14:00Z","question":"q?","outcome":"pass","steps":[{"kind":"answer","text":"it is active now"}]}
`
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if _, err := importString(t, st, "p.jsonl", corpus, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			text   string
			traces int
			hits   []string
		}{
			{"redfox bluejay", 1, nil},
			{"redfox", 1, []string{"p2:0:user"}},
			{needle, 1, []string{"p1:2:tool_result"}},
			{`"alpha beta"`, 1, []string{"p1:2:tool_result"}},
			{"needle", 0, nil},
			// PostgreSQL's index holds p3 as the phrase is <-> active:
			// the words whole decide, for the count and for the hits.
			{"is_active", 0, nil},
			{`"is active"`, 1, []string{"p3:0:answer"}},
		} {
			n, err := st.SearchTraceCount(ctx, c.text, Filter{})
			if err != nil || n != c.traces {
				t.Errorf("%q: %d traces %v, want %d", c.text, n, err, c.traces)
			}
			hits, err := st.Search(ctx, SearchQuery{Text: c.text})
			if err != nil || !reflect.DeepEqual(hitKeys(hits), c.hits) {
				t.Errorf("%q: hits %v %v, want %v", c.text, hitKeys(hits), err, c.hits)
			}
		}
	})
}
