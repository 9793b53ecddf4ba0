package store

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The ids of TestIDTrigramsFindWhatTheLikeFinds: LIKE's own characters,
// mixed case, letters whose case only Unicode folds, a NUL, bytes that
// are not UTF-8, and ids too long for the index.
var trickyIDs = []string{
	"ord-7731", "ORD-7732", "Trace_ABC", "trace%50", "trace_50", `back\slash`, `a\%b_c`,
	"héllo-ÉTÉ", "hÉllo-été", "\u212Aelvin", "kelvin", "straße", "STRASSE", "日本語のトレース",
	"nul\x00after-nul", "bad\xffutf8", "bad\xc3(utf8", "\"quoted\" OR x",
	strings.Repeat("long", 300) + "-tail",           // 1,205 bytes: not tokenized
	"nul\x00" + strings.Repeat("n", 1100) + "-tail", // the same (length() stops at the NUL)
	"short",
}

// The texts searched: each runs through the scan and the index.
var trickyTexts = []string{
	"ord", "ORD-77", "7731", "race_", "RACE_ab", "%50", "_50", "e%5", `\sl`, `\%b`, `%b_`, "a\\%",
	"été", "ÉTÉ", "éll", "ÉLL", "kelvin", "KELVIN", "\u212Ael", "aße", "ASS", "本語の",
	"after", "nul", "bad", "tf8", "\xffutf", "\"quoted\"", " OR ", "OR x", "long", "gtai", "-tail", "longlong",
	"case-", "CASE-B", "-first", "Axx", "xxxcase-l", "nowhere", "lon", "ong",
}

// Every id a search finds through the trigram index (migration 0035) is
// one the LIKEs over every id find, and the other way round: on a
// database migrated with ids already stored (its backfill), then with
// traces added, cases added in front of a trace's first case (the
// trace's case id moves), a case removed and a trace deleted (the
// triggers). A page bounded in trace order holds the first ids of the
// whole.
func TestIDTrigramsFindWhatTheLikeFinds(t *testing.T) {
	ctx := context.Background()
	b := backends[0]
	var before []string
	insert := func(pk int, id string) []string {
		return []string{`INSERT INTO traces (id, trace_id, question, content_sha, imported_at, step_count) VALUES (` +
			strconv.Itoa(pk) + `, '` + strings.ReplaceAll(id, "'", "''") + `', 'q', 'sha', 'now', 0)`}
	}
	// Two ids in three are stored before the migration: its backfill
	// indexes them. SQL text cannot carry a NUL or bad bytes: those go in
	// as parameters, after, with the third.
	early := func(i int, id string) bool { return i%3 != 2 && plainText(id) }
	for i, id := range trickyIDs {
		if early(i, id) {
			before = append(before, insert(i+1, id)...)
		}
	}
	loc := olderDatabase(t, b, 34, before...)
	st := b.openAt(t, loc, Options{})
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := st.db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ids := func(q string, args []any) []string {
		t.Helper()
		rows, err := st.db.QueryContext(ctx, `SELECT trace_id FROM traces t WHERE t.id IN (`+q+`) ORDER BY t.id`, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out = append(out, id)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	check := func(when string) {
		t.Helper()
		found := 0
		for _, text := range trickyTexts {
			pat := "%" + likeEscape(text) + "%"
			want := ids(st.d.idsByScan(pat))
			found += len(want)
			if !idSearchable(text) {
				if utf8.RuneCountInString(text) >= 3 && plainText(text) {
					t.Errorf("%s: %q is not searched by the index", when, text)
				}
				continue
			}
			if got := ids(idsByTrigrams(text, pat, nil)); !slices.Equal(got, want) {
				t.Errorf("%s: %q: the index finds %q, the LIKEs %q", when, text, brief(got), brief(want))
			}
			for _, limit := range []int{1, 2} {
				for _, desc := range []bool{false, true} {
					page := ids(idsByTrigrams(text, pat, &searchPageBound{desc: desc, limit: limit}))
					first := slices.Clone(want)
					if desc {
						slices.Reverse(first)
					}
					first = first[:min(limit, len(first))]
					if !sameSet(page, first) {
						t.Errorf("%s: %q, page of %d desc %v: %q, want %q", when, text, limit, desc, brief(page), brief(first))
					}
				}
			}
		}
		if found < len(trickyTexts)/2 {
			t.Fatalf("%s: the texts find %d ids in all: the table tests little", when, found)
		}
		// The rows marked long are the traces with an id over 1,024 bytes.
		long := ids(`SELECT rowid FROM id_search WHERE id_search MATCH 'long : "long"'`, nil)
		wantLong := ids(`SELECT id FROM traces WHERE octet_length(trace_id) > 1024 OR octet_length(case_id) > 1024`, nil)
		if !slices.Equal(long, wantLong) {
			t.Errorf("%s: rows marked long %q, want %q", when, brief(long), brief(wantLong))
		}
		var n, traces int
		if err := st.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM id_search), (SELECT count(*) FROM traces)`).Scan(&n, &traces); err != nil || n != traces {
			t.Fatalf("%s: the index holds %d rows (%v), want one per stored trace (%d)", when, n, err, traces)
		}
	}
	check("after the migration")
	addCase := func(caseID string, pk int) {
		exec(`INSERT INTO cases (case_id, trace_pk, source_trace, question, gold, label, cost, status, gold_origin)
			VALUES (?, ?, '', 'q', '{}', '{}', '{}', 'suggested', 'machine')`, caseID, pk)
	}
	for i, id := range trickyIDs {
		pk := i + 1
		if early(i, id) {
			continue
		}
		exec(`INSERT INTO traces (id, trace_id, question, content_sha, imported_at, step_count) VALUES (?, ?, 'q', 'sha', 'now', 0)`, pk, id)
	}
	check("with traces added")
	// Cases: a machine case named for its trace, one in front of it (the
	// trace's case id moves), a long one, one removed again, and a
	// trace deleted with its case.
	for i, id := range trickyIDs {
		addCase(id, i+1)
	}
	addCase("case-B-first", 1)
	addCase("CASE-b-first", 2)
	addCase("A"+strings.Repeat("x", 1100)+"case-long", 3)
	addCase("case-gone", 4)
	exec(`DELETE FROM cases WHERE case_id = 'case-gone'`)
	exec(`DELETE FROM traces WHERE trace_id = 'short'`)
	exec(`UPDATE traces SET trace_id = 'ord-renamed-7731' WHERE id = 1`)
	check("after the writes")

	// Short texts, a NUL and bytes that are not UTF-8 read every id.
	for _, text := range []string{"", "ab", "é%", "a\x00bc", "ab\xff"} {
		if idSearchable(text) {
			t.Errorf("%q is searched by the index", text)
		}
	}
}

// plainText is UTF-8 without a NUL.
func plainText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// brief cuts each id to 40 bytes for a message.
func brief(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		if len(id) > 40 {
			id = id[:40] + "…"
		}
		out[i] = id
	}
	return out
}
