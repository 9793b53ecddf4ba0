package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// TestStagedImportMatchesDirect runs one sequence of imports into a
// database that stages them and one that does not: every result, every
// error and every row must come out the same.
func TestStagedImportMatchesDirect(t *testing.T) {
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	changed := strings.Replace(goodTraces, `"text":"1"}]`, `"text":"2"}]`, 1)
	suite := read("testdata/cases_canonical.jsonl")
	samples := read("../testdata/traces/generic-warehouse.jsonl")
	steps := []struct {
		name, body string
		opts       ImportOptions
	}{
		{"cases first.jsonl", suite, ImportOptions{}}, // cases that wait for their traces
		{"good.jsonl", goodTraces, ImportOptions{}},
		{"samples.jsonl", samples, ImportOptions{}},
		{"again.jsonl", goodTraces, ImportOptions{}},                           // unchanged
		{"changed.jsonl", changed, ImportOptions{}},                            // conflict: rejected whole
		{"changed skip.jsonl", changed, ImportOptions{SkipBad: true}},          // conflict skipped, t2 unchanged
		{"replace.jsonl", changed, ImportOptions{Replace: true}},               // t1 replaced, its case relinked
		{"suite again.jsonl", suite, ImportOptions{}},                          // cases unchanged
		{"bad.jsonl", goodTraces + "{\"trace_id\":\"t9\"}\n", ImportOptions{}}, // bad record: nothing
		{"dup in file.jsonl", goodTraces + changed, ImportOptions{}},           // a trace twice, other content
		{"dup in file skip.jsonl", goodTraces + changed, ImportOptions{SkipBad: true}},
		{"dup replace.jsonl", changed + goodTraces, ImportOptions{Replace: true}},
		{"traces then cases.jsonl", strings.Replace(samples, "emea-active-q2-017", "mixed-1", 1) + suite, ImportOptions{}},
		{"empty.jsonl", "", ImportOptions{}},
		// Step bodies over bigBody are written at once and copied one
		// by one (copyBigBodies): new, unchanged, replaced, beside
		// ordinary ones.
		{"big.jsonl", bigTrace("t-big", "zebra") + goodTraces, ImportOptions{}},
		{"big again.jsonl", bigTrace("t-big", "zebra"), ImportOptions{}},
		{"big replace.jsonl", bigTrace("t-big", "okapi") + bigTrace("t-big2", "zebra"), ImportOptions{Replace: true}},
	}
	direct, staged := sqliteStore(t), sqliteStore(t)
	direct.stage = false
	ctx := context.Background()
	for _, s := range steps {
		r1, e1 := importReader(ctx, direct, strings.NewReader(s.body), s.name, s.opts)
		r2, e2 := importReader(ctx, staged, strings.NewReader(s.body), s.name, s.opts)
		if errText(e1) != errText(e2) {
			t.Errorf("%s: error %q, staged %q", s.name, errText(e1), errText(e2))
		}
		if a, b := jsonish(r1), jsonish(r2); a != b {
			t.Errorf("%s: %s\nstaged %s", s.name, a, b)
		}
		if a, b := snapshot(t, direct), snapshot(t, staged); a != b {
			t.Fatalf("%s: the databases differ:\n%s", s.name, firstDiff(a, b))
		}
		// The copy fills the search index in bulk where the direct
		// writer's trigger fills it row by row, and drops and creates
		// that trigger again (quietInsertTriggers).
		if a, b := searchIndex(t, direct, "step_search"), searchIndex(t, staged, "step_search"); a != b {
			t.Fatalf("%s: the search indexes differ:\n%s", s.name, firstDiff(a, b))
		}
		// So are what the traces' insert triggers keep (landTraces).
		if a, b := searchIndex(t, direct, "id_search"), searchIndex(t, staged, "id_search"); a != b {
			t.Fatalf("%s: the id search indexes differ:\n%s", s.name, firstDiff(a, b))
		}
		if a, b := keptRows(t, direct), keptRows(t, staged); a != b {
			t.Fatalf("%s: the kept counts and keys differ:\n%s", s.name, firstDiff(a, b))
		}
		if a, b := schemaText(t, direct), schemaText(t, staged); a != b {
			t.Fatalf("%s: the schemas differ:\n%s", s.name, firstDiff(a, b))
		}
		assertForeignKeysHold(t, staged, s.name)
	}
	if n := countStaging(t, staged); n > 0 {
		t.Errorf("%d staging database(s) left behind", n)
	}
	// The search index has the big bodies copied one by one: t-big2
	// holds zebra, t-big (replaced) okapi.
	for word, want := range map[string]int{"zebra": 1, "okapi": 1} {
		for name, st := range map[string]*Store{"direct": direct, "staged": staged} {
			if n, err := st.SearchTraceCount(ctx, word, Filter{}); err != nil || n != want {
				t.Errorf("%s: search %q finds %d traces (%v), want %d", name, word, n, err, want)
			}
		}
	}
}

// A big trace replaced later in its own file is deleted from the
// staging database before the copy: the copy leaves its first body out
// and lands the second (its staged id left a gap in the staged ids, so
// a direct import gives the trace another id: compared by content here).
func TestStagedBigBodyReplacedInItsFile(t *testing.T) {
	st := sqliteStore(t)
	ctx := context.Background()
	file := bigTrace("t-big", "zebra") + bigTrace("t-big", "okapi")
	if _, err := importReader(ctx, st, strings.NewReader(file), "twice.jsonl", ImportOptions{Replace: true}); err != nil {
		t.Fatal(err)
	}
	var n int
	var body string
	if err := st.db.QueryRowContext(ctx, `SELECT count(*), max(body) FROM step_bodies`).Scan(&n, &body); err != nil {
		t.Fatal(err)
	}
	if n != 1 || !strings.Contains(body[:200], "okapi") {
		t.Errorf("%d step bodies, the last starting %.60q; want one, the second trace's", n, body)
	}
	for word, want := range map[string]int{"zebra": 0, "okapi": 1} {
		if got, err := st.SearchTraceCount(ctx, word, Filter{}); err != nil || got != want {
			t.Errorf("search %q finds %d traces (%v), want %d", word, got, err, want)
		}
	}
}

// bigTrace is a one-line trace whose step body is over bigBody, a word
// near its start.
func bigTrace(id, word string) string {
	return `{"trace_id":"` + id + `","server":"s1","question":"How big?","steps":[{"kind":"tool_call","id":"c1","tool":"run_sql","args":{}},{"kind":"tool_result","call_id":"c1","result":"` +
		word + " " + strings.Repeat("lorem ipsum dolor sit amet ", bigBody/27+1) + `"},{"kind":"answer","text":"1"}]}` + "\n"
}

// assertForeignKeysHold fails when a row of st refers to a row it lacks.
func assertForeignKeysHold(t *testing.T, st *Store, after string) {
	t.Helper()
	rows, err := st.db.Query(`PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if rows.Next() {
		var table, parent string
		var rowid, fk any
		rows.Scan(&table, &rowid, &parent, &fk)
		t.Fatalf("after %s: a row of %s refers to a missing row of %s", after, table, parent)
	}
}

// TestStagedCopyLeavesForeignKeysOn: the last copy of a staged file runs
// without foreign keys; afterwards every connection of the pool has them
// again, and deleting a trace cascades to its rows.
func TestStagedCopyLeavesForeignKeysOn(t *testing.T) {
	st := sqliteStore(t)
	ctx := context.Background()
	for _, name := range []string{"first.jsonl", "second.jsonl"} {
		body := strings.ReplaceAll(goodTraces, `"trace_id":"t`, `"trace_id":"`+strings.TrimSuffix(name, ".jsonl")+`-t`)
		if _, err := importReader(ctx, st, strings.NewReader(body), name, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	assertForeignKeysHold(t, st, "the imports")
	// Hold every open connection at once, so that each is asked.
	n := st.db.Stats().OpenConnections
	if n == 0 {
		t.Fatal("no open connection")
	}
	var conns []*sql.Conn
	for range n {
		c, err := st.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var on bool
		if err := c.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on); err != nil || !on {
			t.Errorf("a pooled connection has foreign_keys %v (%v)", on, err)
		}
	}
	for _, c := range conns {
		c.Close()
	}
	var pk int64
	if err := st.db.QueryRow(`SELECT id FROM traces WHERE trace_id = 'second-t1'`).Scan(&pk); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec(`DELETE FROM traces WHERE id = ?`, pk); err != nil {
		t.Fatal(err)
	}
	var left int
	st.db.QueryRow(`SELECT (SELECT count(*) FROM steps WHERE trace_pk = ?1) + (SELECT count(*) FROM step_bodies WHERE trace_pk = ?1)`, pk).Scan(&left)
	if left != 0 {
		t.Errorf("%d step rows left after their trace was deleted", left)
	}
}

func countStaging(t *testing.T, st *Store) int {
	t.Helper()
	m, err := filepath.Glob(stagingPrefix(st.Path()) + ".*")
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "direct: " + al[i] + "\nstaged: " + bl[i]
		}
	}
	return fmt.Sprintf("direct has %d rows, staged %d", len(al), len(bl))
}

// TestStagingHoldsNoLock: while a file's traces are staged, another
// writer with a short lock wait gets through; the file lands whole.
func TestStagingHoldsNoLock(t *testing.T) {
	st := sqliteStore(t)
	ctx := context.Background()
	other, err := OpenWith(ctx, st.Path(), Options{LockWait: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	im, _ := st.BeginImport(ctx, "slow.jsonl", false)
	defer im.Rollback()
	for _, id := range []string{"a", "b"} {
		if rerr, err := im.PutTrace(&model.Trace{TraceID: id, Question: "q"}); rerr != nil || err != nil {
			t.Fatal(rerr, err)
		}
		if err := other.SaveGlossary(ctx, GlossaryEntry{Term: "active " + id, Definition: "status in (ACTIVE)"}, "ana"); err != nil {
			t.Errorf("a write while a file is staged: %v", err)
		}
	}
	if n := countStaging(t, st); n != 1 {
		t.Errorf("%d staging databases while importing, want 1", n)
	}
	if err := im.Commit("native", "sha", 0); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.db.QueryRow(`SELECT count(*) FROM traces`).Scan(&n); err != nil || n != 2 {
		t.Errorf("%d traces after the import, %v", n, err)
	}
	if n := countStaging(t, st); n != 0 {
		t.Errorf("%d staging databases after the import", n)
	}
}

// TestStagedTracesDecidedAgainAtCommit: another process writes a staged
// trace's id between the staging and the copy. Same content: unchanged.
// Other content: the file fails whole, naming both places, unless
// --replace. A trace staged to replace one that changed meanwhile
// replaces it still.
func TestStagedTracesDecidedAgainAtCommit(t *testing.T) {
	trace := func(id, answer string) *model.Trace {
		return &model.Trace{TraceID: id, Question: "q", Steps: []model.Step{{Kind: model.KindAnswer, Text: answer}},
			Source: model.Source{File: "other.jsonl", Line: 3}}
	}
	other := func(t *testing.T, st *Store, tr *model.Trace) {
		t.Helper()
		im, _ := st.BeginImport(context.Background(), "other.jsonl", true)
		defer im.Rollback()
		if rerr, err := im.PutTrace(tr); rerr != nil || err != nil {
			t.Fatal(rerr, err)
		}
		if err := im.Commit("native", "sha", 0); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name     string
		before   *model.Trace // stored before the import starts
		meantime *model.Trace // written by the other process while staging
		replace  bool
		want     WriteStats
		wantErr  string
	}{
		{name: "same content meanwhile", meantime: trace("a", "1"), want: WriteStats{Unchanged: 1, Written: 0}},
		{name: "other content meanwhile", meantime: trace("a", "2"),
			wantErr: `mine.jsonl:7: trace "a" was imported by another process from other.jsonl:3 while this file was read`},
		{name: "other content meanwhile, replace", meantime: trace("a", "2"), replace: true,
			want: WriteStats{Replaced: 1, Steps: 1, Written: 1}},
		{name: "replaced meanwhile, replace", before: trace("a", "0"), meantime: trace("a", "2"), replace: true,
			want: WriteStats{Replaced: 1, Steps: 1, Written: 1}},
	}
	for _, c := range cases {
		for _, atEnd := range []bool{false, true} {
			name := c.name
			if atEnd {
				name += ", scored after EndOfFile"
			}
			t.Run(name, func(t *testing.T) {
				st := sqliteStore(t)
				if c.before != nil {
					other(t, st, c.before)
				}
				ctx := context.Background()
				im, _ := st.BeginImport(ctx, "mine.jsonl", c.replace)
				defer im.Rollback()
				mine := trace("a", "1")
				mine.Source = model.Source{File: "mine.jsonl", Line: 7}
				fresh, rerr, err := im.PutRow(PrepareTrace(mine))
				if rerr != nil || err != nil {
					t.Fatal(rerr, err)
				}
				other(t, st, c.meantime)
				want := c.want
				if atEnd {
					// The copy runs at EndOfFile; the score put after it
					// lands only for a trace the copy did not skip.
					err = im.EndOfFile("native")
					if err == nil {
						r, s := scoreOf("a")
						err = im.PutScores([]ScoreRow{r}, []Suggestion{s})
					}
					if err == nil {
						if _, _, perr := im.PutRow(PrepareTrace(trace("b", "1"))); !errors.Is(perr, errAfterEnd) {
							t.Errorf("a trace put after EndOfFile: %v", perr)
						}
						err = im.Commit("native", "sha", 0)
					}
					if fresh != nil && want.Unchanged == 0 {
						want.Scored = 1 // a trace that replaces a stored one is not fresh
					}
				} else {
					err = im.Commit("native", "sha", 0)
				}
				if !strings.HasPrefix(errText(err), c.wantErr) || (c.wantErr == "") != (err == nil) {
					t.Fatalf("commit: %v, want %q", err, c.wantErr)
				}
				if err != nil {
					var n int
					st.db.QueryRow(`SELECT count(*) FROM imports WHERE path = 'mine.jsonl'`).Scan(&n)
					if n != 0 {
						t.Error("the failed file was recorded as imported")
					}
					return
				}
				if jsonish(im.Stats) != jsonish(want) {
					t.Errorf("stats %s, want %s", jsonish(im.Stats), jsonish(want))
				}
				var answer string
				if err := st.db.QueryRow(`SELECT answer FROM traces WHERE trace_id = 'a'`).Scan(&answer); err != nil || answer != "1" && c.replace {
					t.Errorf("stored answer %q, %v", answer, err)
				}
				var scores int
				st.db.QueryRow(`SELECT count(*) FROM scores s JOIN traces t ON t.id = s.trace_pk WHERE t.trace_id = 'a'`).Scan(&scores)
				if scores != want.Scored {
					t.Errorf("%d scores stored for a, want %d", scores, want.Scored)
				}
				assertForeignKeysHold(t, st, name)
			})
		}
	}
}

// TestOrphanStagingRemoved: a staging database whose import was killed is
// removed by the next import; one of a running process stays.
func TestOrphanStagingRemoved(t *testing.T) {
	st := sqliteStore(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	orphan := fmt.Sprintf("%s.%d-x", stagingPrefix(st.Path()), dead.Process.Pid)
	live := fmt.Sprintf("%s.%d-y", stagingPrefix(st.Path()), os.Getpid())
	for _, p := range []string{orphan, live} {
		if err := os.WriteFile(p, []byte("staged"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := importString(t, st, "good.jsonl", goodTraces, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); err == nil {
		t.Error("the killed import's staging database is still there")
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a running import's staging database was removed: %v", err)
	}
}

// The staging database writes its pages of 64 KiB (openStaging): each
// page is one system call when it is written and when the copy reads it.
func TestStagingPageSize(t *testing.T) {
	st := sqliteStore(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "staging")
	sdb, err := openStaging(ctx, st, path)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	var size int
	if err := sdb.db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&size); err != nil || size != 65536 {
		t.Fatalf("page size %d (%v), want 65536", size, err)
	}
}

// searchIndex lists every token of the full-text index table: term,
// trace, column and position.
func searchIndex(t *testing.T, st *Store, table string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := st.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_tokens USING fts5vocab(main, `+table+`, instance)`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `DROP TABLE temp.search_tokens`)
	rows, err := conn.QueryContext(ctx, `SELECT term, doc, col, offset FROM temp.search_tokens ORDER BY doc, offset, term`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var term, col string
		var doc, offset int64
		if err := rows.Scan(&term, &doc, &col, &offset); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d %s %d %s\n", doc, col, offset, term)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// keptRows renders the rows triggers keep beside the traces: the
// counts of the queue and of the traces, the question keys, and which
// scores are marked confirmed.
func keptRows(t *testing.T, st *Store) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT queue_class, case_status, n, disputed FROM queue_counts WHERE n <> 0 OR disputed <> 0 ORDER BY 1, 2`,
		`SELECT n FROM trace_count`,
		`SELECT key FROM question_keys ORDER BY key`,
		`SELECT t.trace_id, s.confirmed FROM scores s JOIN traces t ON t.id = s.trace_pk ORDER BY t.trace_id`,
		`SELECT trace_id, queue_class FROM traces ORDER BY trace_id`,
	} {
		for _, vals := range scanRows(t, st, q) {
			fmt.Fprintln(&b, vals...)
		}
	}
	return b.String()
}

// schemaText is the database's schema as sqlite_master holds it, by name.
func schemaText(t *testing.T, st *Store) string {
	t.Helper()
	rows, err := st.db.Query(`SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var typ, name, table, def string
		if err := rows.Scan(&typ, &name, &table, &def); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s on %s: %s\n", typ, name, table, def)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The copy drops the insert triggers of cases, scores, step_bodies and traces
// while it copies (quietTriggers), doing their work itself: one that a
// migration adds to these tables would silently not fire for a staged
// import. This fails until it is decided there.
func TestQuietTriggersAreAllTheInsertTriggers(t *testing.T) {
	st := sqliteStore(t)
	rows, err := st.db.Query(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('cases', 'scores', 'step_bodies', 'traces') ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	insert := regexp.MustCompile(`(?is)^CREATE\s+TRIGGER\s+\S+\s+(BEFORE\s+|AFTER\s+|INSTEAD\s+OF\s+)?INSERT\s+ON\b`)
	var got []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			t.Fatal(err)
		}
		if insert.MatchString(def) {
			got = append(got, name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := append([]string(nil), quietTriggers...)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("insert triggers on cases, scores, step_bodies and traces: %v; the copy quiets %v", got, want)
	}
}

// The copy fills the search index with a larger hash (bulkSearchHash)
// and leaves the index's settings as they were: none, or one a user made.
func TestStagedCopyLeavesSearchSettings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before string // a hashsize set before the import; "" none
	}{
		{"no setting", ""},
		{"a setting of its own", "2097152"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := sqliteStore(t)
			ctx := context.Background()
			if tc.before != "" {
				if _, err := st.db.ExecContext(ctx, `INSERT INTO step_search (step_search, rank) VALUES ('hashsize', ?)`, tc.before); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := importReader(ctx, st, strings.NewReader(goodTraces), "good.jsonl", ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			var got []string
			rows, err := st.db.QueryContext(ctx, `SELECT k || '=' || v FROM step_search_config WHERE k <> 'version' ORDER BY k`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var kv string
				if err := rows.Scan(&kv); err != nil {
					t.Fatal(err)
				}
				got = append(got, kv)
			}
			rows.Close()
			want := ""
			if tc.before != "" {
				want = "hashsize=" + tc.before
			}
			if strings.Join(got, " ") != want {
				t.Errorf("search settings after the import: %q, want %q", got, want)
			}
			if n, err := st.SearchTraceCount(ctx, "fiscal", Filter{}); err != nil || n != 1 {
				t.Errorf("search fiscal finds %d traces (%v), want 1", n, err)
			}
		})
	}
}

// The copy quiets the traces' insert triggers and does their work once
// for all the landed traces (landTraces): the queue class and counts,
// the trace count, the question keys, the id index and the confirmed
// mark of a score. A file whose traces are scored while it is read and
// whose case confirms one of them lands them as a direct import does.
func TestLandedTracesKeepWhatTheirTriggersKeep(t *testing.T) {
	ctx := context.Background()
	long := `{"trace_id":"` + strings.Repeat("x", 1500) + `","question":"long?","steps":[{"kind":"answer","text":"1"}]}`
	put := func(st *Store) {
		t.Helper()
		im, err := st.BeginImport(ctx, "mixed.jsonl", false)
		if err != nil {
			t.Fatal(err)
		}
		defer im.Rollback()
		var rows []ScoreRow
		var sugg []Suggestion
		for i, line := range strings.Split(strings.TrimSpace(goodTraces)+"\n"+long, "\n") {
			tr := parseTrace(t, "mixed.jsonl", i+1, line)
			if _, rerr, err := im.PutRow(PrepareTrace(tr)); rerr != nil || err != nil {
				t.Fatal(rerr, err)
			}
			r, s := scoreOf(tr.TraceID)
			rows, sugg = append(rows, r), append(sugg, s)
		}
		if err := im.PutScores(rows, sugg); err != nil {
			t.Fatal(err)
		}
		c := suiteCase(t, "t1")
		if rerr, err := im.PutCase(&c, 4); rerr != nil || err != nil {
			t.Fatal(rerr, err)
		}
		if err := im.Commit("native", "sha", 0); err != nil {
			t.Fatal(err)
		}
	}
	direct, staged := sqliteStore(t), sqliteStore(t)
	direct.stage = false
	put(direct)
	put(staged)
	if a, b := keptRows(t, direct), keptRows(t, staged); a != b {
		t.Fatalf("the kept counts and keys differ:\n%s", firstDiff(a, b))
	}
	if a, b := searchIndex(t, direct, "id_search"), searchIndex(t, staged, "id_search"); a != b {
		t.Fatalf("the id search indexes differ:\n%s", firstDiff(a, b))
	}
}

// A copy that lands many traces into a database holding fewer builds
// rebuiltIndexes again after the traces land (rebuildsIndexes; the
// threshold is lowered here to a file's few traces). The schema, the
// rows and the index's entries are those of a copy that kept it, and a
// smaller file into the database keeps it as it is. Dropping and
// creating an index are two changes of the schema more (its cookie,
// PRAGMA schema_version, counts each).
func TestManyTracesRebuildTheQuestionIndex(t *testing.T) {
	defer func(at int64) { rebuildIndexesAt = at }(rebuildIndexesAt)
	changes := func(st *Store, name, body string) int {
		t.Helper()
		var before, after int
		if err := st.db.QueryRow(`PRAGMA schema_version`).Scan(&before); err != nil {
			t.Fatal(err)
		}
		if _, err := importString(t, st, name, body, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := st.db.QueryRow(`PRAGMA schema_version`).Scan(&after); err != nil {
			t.Fatal(err)
		}
		return after - before
	}
	rebuildIndexesAt = 1 << 40
	kept := sqliteStore(t)
	keptChanges := changes(kept, "a.jsonl", goodTraces)
	rebuildIndexesAt = 1
	rebuilt := sqliteStore(t)
	if got := changes(rebuilt, "a.jsonl", goodTraces); got != keptChanges+2 {
		t.Errorf("the copy over the threshold changed the schema %d times, the one under it %d: want 2 more (drop and create)", got, keptChanges)
	}
	var plan string
	for _, vals := range scanRows(t, rebuilt, `EXPLAIN QUERY PLAN SELECT id FROM traces WHERE question_key = 'how many?'`) {
		plan += fmt.Sprint(vals...)
	}
	if !strings.Contains(plan, "USING COVERING INDEX traces_question") {
		t.Errorf("a question is looked up by %q after the rebuild", plan)
	}
	if a, b := schemaText(t, kept), schemaText(t, rebuilt); a != b {
		t.Errorf("the schemas differ:\n%s", firstDiff(a, b))
	}
	if a, b := keptRows(t, kept), keptRows(t, rebuilt); a != b {
		t.Errorf("the kept rows differ:\n%s", firstDiff(a, b))
	}
	for _, vals := range scanRows(t, rebuilt, `PRAGMA integrity_check`) {
		if fmt.Sprint(vals...) != "ok" {
			t.Errorf("integrity_check after the rebuild: %v", vals)
		}
	}
	// A file of fewer traces than the database holds keeps the index.
	one := strings.SplitN(strings.TrimSpace(goodTraces), "\n", 2)[0]
	if got := changes(rebuilt, "b.jsonl", strings.Replace(one, `"t1"`, `"t9"`, 1)); got != keptChanges {
		t.Errorf("one trace into the database changed its schema %d times, want %d (the triggers only)", got, keptChanges)
	}
}

// landTraces, statement by statement, leaves what the insert triggers of
// traces leave, on rows of every kind, some a staged copy cannot land
// today (a case confirmed or pending when its trace lands: the cases of
// a file send its import direct first).
func TestLandTracesDoesWhatTheTriggersDo(t *testing.T) {
	ctx := context.Background()
	type row struct {
		id, caseID, status, label, suggested string
		disputed                             int
	}
	rows := []row{
		{"a", "", "none", "", "", 0},
		{"b", "b", "suggested", "", "semantic", 0},
		{"c", "case-c", "confirmed", "policy", "semantic", 1},
		{"d", "case-d", "pending", "", "entity", 0},
		{strings.Repeat("e", 1100), "", "none", "", "", 0},
		{"f", strings.Repeat("f", 1100), "confirmed", "temporal", "", 0},
	}
	var few bool // landTraces's, when land
	kept := func(land bool) string {
		st := sqliteStore(t)
		tx, err := st.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				t.Fatal(err)
			}
		}
		exec(`PRAGMA defer_foreign_keys = ON`)
		im := &Importer{ctx: ctx, tx: tx}
		restore := func() error { return nil }
		if land {
			if restore, err = im.setAside("trigger", quietTriggers); err != nil {
				t.Fatal(err)
			}
		}
		for i, r := range rows { // scores first, as the copy puts them
			exec(`INSERT INTO scores (trace_pk, detail, suggested_class) VALUES (?, '{}', ?)`, i+1, r.suggested)
		}
		// The copy lands each trace with the class of the view's rule
		// (queueClassRule); the trigger gives it after the insert.
		class := `'none'`
		if land {
			rule, err := queueClassRule(ctx, tx)
			if err != nil {
				t.Fatal(err)
			}
			class = strings.NewReplacer("label_class", "?6", "suggested_class", "?7").Replace(rule)
		}
		for i, r := range rows {
			exec(`INSERT INTO traces (id, trace_id, question, content_sha, imported_at, case_id, case_status, label_class,
				suggested_class, disputed, question_key, queue_class) VALUES (?1, ?2, 'q', 'sha', 'now', ?3, ?4, ?6, ?7, ?5, ?8, `+class+`)`,
				i+1, r.id, r.caseID, r.status, r.disputed, r.label, r.suggested, "key "+r.label)
		}
		if land {
			if err := im.landTraces(0, few); err != nil {
				t.Fatal(err)
			}
		}
		if err := restore(); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return keptRows(t, st) + searchIndex(t, st, "id_search")
	}
	want := kept(false)
	for _, few = range []bool{false, true} {
		if got := kept(true); got != want {
			t.Fatalf("landTraces (few: %v) leaves other rows than the triggers:\n%s", few, firstDiff(want, got))
		}
	}
}

// Landing a few traces into many reads the landed ones by id, in every
// statement: none scans a table or an index of all the traces.
func TestLandingFewReadsThemByID(t *testing.T) {
	st := sqliteStore(t)
	for _, q := range sqlLandTraces {
		plan := queryPlan(t, st.db, landedBy(q, true), 99000)
		if strings.Contains(plan, "SCAN main.traces") {
			t.Errorf("%s\nplans:\n%s\nwant the landed traces searched by id", q, plan)
		}
	}
}

// The copy reads the queue class rule from the view's definition
// (queueClassRule); a migration that gives the view another shape fails
// here, and every staged import with it, until the reading follows.
func TestQueueClassRuleIsRead(t *testing.T) {
	ctx, tx := sqliteTx(t)
	rule, err := queueClassRule(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ label, suggested, want string }{
		{"", "", "none"}, {"", "semantic", "semantic"}, {"policy", "", "policy"}, {"policy", "semantic", "policy"},
	} {
		var got string
		if err := tx.QueryRowContext(ctx, `SELECT `+rule+` FROM (SELECT ? AS label_class, ? AS suggested_class)`, c.label, c.suggested).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("label %q, suggested %q: the rule read gives %q, want %q", c.label, c.suggested, got, c.want)
		}
	}
}

// The copy of the staged traces reads them in their order and sorts
// nothing: a sort of a million landed rows held 46 MiB more.
func TestCopyTracesReadsInOrder(t *testing.T) {
	ctx := context.Background()
	tx := attachStaging(t, sqliteStore(t), nil)
	cols, err := stagedColumns(ctx, tx, "traces", "id")
	if err != nil {
		t.Fatal(err)
	}
	rule, err := queueClassRule(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	plan := queryPlan(t, tx, copyTracesSQL(cols, rule, "WHERE id IS NOT NULL ORDER BY id", true), 0, "native")
	if !strings.HasPrefix(plan, "SCAN staged.traces\n") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("the copy of the traces plans:\n%s\nwant a scan of staged.traces in its order and no sort", plan)
	}
}

// attachStaging makes a staging database for st, fills it (fill, on the
// staging store; nil: empty) and attaches it as the copy does, to a
// connection of st's; it returns a transaction on that connection, rolled
// back and detached when the test ends.
func attachStaging(t *testing.T, st *Store, fill func(*Store)) *sql.Tx {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "staging")
	sdb, err := openStaging(ctx, st, path)
	if err != nil {
		t.Fatal(err)
	}
	if fill != nil {
		fill(sdb)
	}
	sdb.Close()
	conn, err := st.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS staged`, path); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tx.Rollback()
		conn.ExecContext(ctx, `DETACH DATABASE staged`)
	})
	return tx
}

// A suite imported while a file of traces is staged holds a case that
// waits for one of its traces: the machine's case of that trace, staged
// before the suite came, stays out of the copy, and the waiting case is
// linked to the trace instead (the copy's condition notWaitedFor).
func TestStagedMachineCaseGivesWayToAWaitingCase(t *testing.T) {
	ctx := context.Background()
	for _, waits := range []bool{false, true} {
		t.Run(fmt.Sprintf("a case waits: %v", waits), func(t *testing.T) {
			st := sqliteStore(t)
			im, err := st.BeginImport(ctx, "traces.jsonl", false)
			if err != nil {
				t.Fatal(err)
			}
			defer im.Rollback()
			tr := parseTrace(t, "traces.jsonl", 1, strings.SplitN(goodTraces, "\n", 2)[0])
			if _, rerr, err := im.PutRow(PrepareTrace(tr)); rerr != nil || err != nil {
				t.Fatal(rerr, err)
			}
			r, s := scoreOf(tr.TraceID)
			if err := im.PutScores([]ScoreRow{r}, []Suggestion{s}); err != nil {
				t.Fatal(err)
			}
			want := "t1 t1 suggested"
			if waits {
				c := suiteCase(t, "t1")
				other, _ := st.BeginImport(ctx, "suite.jsonl", false)
				defer other.Rollback()
				if rerr, err := other.PutCase(&c, 1); rerr != nil || err != nil {
					t.Fatal(rerr, err)
				}
				if err := other.Commit("cases", "sha", 0); err != nil {
					t.Fatal(err)
				}
				want = c.CaseID + " t1 confirmed"
			}
			if err := im.Commit("native", "sha", 0); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range scanRows(t, st, `SELECT c.case_id || ' ' || t.trace_id || ' ' || c.status FROM cases c JOIN traces t ON t.id = c.trace_pk ORDER BY 1`) {
				got = append(got, fmt.Sprint(r[0]))
			}
			if strings.Join(got, "; ") != want {
				t.Errorf("the cases of t1: %q, want %q", got, want)
			}
			assertForeignKeysHold(t, st, "")
		})
	}
}

// suiteLine is the first case of testdata/cases_canonical.jsonl, as a
// line of a suite, made to wait for the trace traceID.
func suiteLine(t *testing.T, traceID string) string {
	t.Helper()
	return strings.Replace(strings.SplitN(readFile(t, "testdata/cases_canonical.jsonl"), "\n", 2)[0], "trace_9f31c2", traceID, 1)
}

// suiteCase is suiteLine's case.
func suiteCase(t *testing.T, traceID string) model.Case {
	t.Helper()
	var c model.Case
	if err := json.Unmarshal([]byte(suiteLine(t, traceID)), &c); err != nil {
		t.Fatal(err)
	}
	return c
}
