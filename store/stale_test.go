package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// sharedTraces are four traces asking one question (a-d) and one asking
// another (x).
func sharedTraces() string {
	var b strings.Builder
	for _, id := range []string{"a", "b", "c", "d", "x"} {
		q := "How many active customers?"
		if id == "x" {
			q = "Which region?"
		}
		fmt.Fprintf(&b, `{"trace_id":%q,"server":"s1","question":%q,"steps":[{"kind":"answer","text":"1"}]}`+"\n", id, q)
	}
	return b.String()
}

const sharedKey = "how many active customers"

func traceIDsOf(ms []StaleTrace) []string {
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.TraceID)
	}
	slices.Sort(ids)
	return ids
}

// The peers of a question are read from its teachers (traces.teaches, kept
// by triggers) and are exactly the teachers the unindexed query finds,
// through a person's gold, a confirm and its undo, and a suggestion
// accepted without changing the gold (only its origin moves).
func TestPeersOfAQuestionAreItsTeachers(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if _, err := importString(t, st, "s.jsonl", sharedTraces(), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		if k := QuestionKey("How many active customers?"); k != sharedKey {
			t.Fatalf("question key %q", k)
		}
		check := func(when string, want ...string) {
			t.Helper()
			keyed, err := st.Peers(ctx, []string{sharedKey})
			if err != nil {
				t.Fatal(err)
			}
			all, err := st.Peers(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got, ref []string
			for _, p := range keyed {
				got = append(got, p.TraceID)
			}
			for _, p := range all {
				if QuestionKey(p.Question) == sharedKey {
					ref = append(ref, p.TraceID)
				}
			}
			if !slices.Equal(got, want) || !slices.Equal(ref, want) {
				t.Errorf("%s: peers %v (every teacher of the question: %v), want %v", when, got, ref, want)
			}
		}
		check("before any case")
		if _, err := st.EditTrace(ctx, "a", "ana", "label.correct", json.RawMessage(`true`)); err != nil {
			t.Fatal(err)
		}
		check("a label edit")
		if _, err := st.EditTrace(ctx, "a", "ana", "gold.required_fields", json.RawMessage(`["customers.status"]`)); err != nil {
			t.Fatal(err)
		}
		check("a person's gold", "a")
		if _, err := st.EditTrace(ctx, "b", "ana", "label.correct", json.RawMessage(`true`)); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ConfirmTrace(ctx, "b", "ana"); err != nil {
			t.Fatal(err)
		}
		check("a confirm", "a", "b")
		if _, err := st.UndoTrace(ctx, "b", "ana"); err != nil {
			t.Fatal(err)
		}
		check("the confirm undone", "a")
		if _, err := st.EditTrace(ctx, "c", "ana", "label.correct", json.RawMessage(`true`)); err != nil {
			t.Fatal(err)
		}
		if _, err := st.EditGroup(ctx, "c", "ana", true, func(*CaseRecord) ([]FieldChange, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
		check("a suggestion accepted as it was", "a", "c")
	})
}

// A teaching change marks its question with one row: the takers' scores
// are not written, yet every test of currency calls them stale until they
// are rescored; a mark made after PeerMarks was read survives the
// ClearPeerMarks of that reading, and a taker rescored alone (SawPeerMark)
// is current while the others stay marked.
func TestMarkTakersStaleMarksTheQuestionOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if _, err := importString(t, st, "s.jsonl", sharedTraces(), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.EditTrace(ctx, "a", "ana", "gold.required_fields", json.RawMessage(`["customers.status"]`)); err != nil {
			t.Fatal(err)
		}
		var goldA string
		if err := st.db.QueryRow(`SELECT gold_sha FROM cases`).Scan(&goldA); err != nil {
			t.Fatal(err)
		}
		var rows []ScoreRow
		for _, id := range []string{"a", "b", "c", "d", "x"} {
			g := GoldSHANone
			if id == "a" {
				g = goldA
			}
			rows = append(rows, ScoreRow{TraceID: id, Detail: json.RawMessage(`{}`), GoldSHA: g, ConfigSHA: "cfg"})
		}
		if err := st.SaveScores(ctx, rows, nil); err != nil {
			t.Fatal(err)
		}
		stale := func() ([]string, []string) {
			t.Helper()
			m, err := st.MarkedTraces(ctx)
			if err != nil {
				t.Fatal(err)
			}
			s, err := st.StaleTraces(ctx, "cfg")
			if err != nil {
				t.Fatal(err)
			}
			return traceIDsOf(m), traceIDsOf(s)
		}
		isCurrent := func(id string) bool {
			t.Helper()
			ok, err := st.ScoreCurrent(ctx, id, "cfg")
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		expect := func(when string, want ...string) {
			t.Helper()
			m, s := stale()
			if !slices.Equal(m, want) || !slices.Equal(s, want) {
				t.Errorf("%s: marked %v, stale %v, want %v", when, m, s, want)
			}
			for _, id := range []string{"a", "b", "c", "d", "x"} {
				if cur := isCurrent(id); cur == slices.Contains(want, id) {
					t.Errorf("%s: ScoreCurrent(%s) = %v", when, id, cur)
				}
			}
		}
		expect("scored")
		scores := func() string {
			t.Helper()
			var b strings.Builder
			r, err := st.db.Query(`SELECT s.trace_pk, s.gold_sha, ss.scored_at, s.peer_mark FROM scores s
				JOIN score_state ss ON ss.trace_pk = s.trace_pk ORDER BY s.trace_pk`)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for r.Next() {
				var pk, mark int64
				var gold, at string
				if err := r.Scan(&pk, &gold, &at, &mark); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "%d %s %s %d\n", pk, gold, at, mark)
			}
			return b.String()
		}
		before := scores()

		if n, err := st.MarkTakersStale(ctx, []string{"a"}); err != nil || n != 1 {
			t.Fatalf("MarkTakersStale(a) = %d, %v; want the 1 question marked", n, err)
		}
		if after := scores(); after != before {
			t.Errorf("marking wrote the takers' scores:\n%s\nwas\n%s", after, before)
		}
		expect("a marked its question", "b", "c", "d")
		if n, err := st.MarkTakersStale(ctx, []string{"x"}); err != nil || n != 0 {
			t.Errorf("MarkTakersStale(x) = %d, %v; x's question has no other taker", n, err)
		}

		seen, err := st.PeerMarks(ctx)
		if err != nil || len(seen) != 1 {
			t.Fatalf("marks %v, %v", seen, err)
		}
		if _, err := st.MarkTakersStale(ctx, []string{"a"}); err != nil { // meanwhile, another change
			t.Fatal(err)
		}
		newest, err := st.PeerMarkOf(ctx, "b")
		if err != nil || newest <= seen[0] {
			t.Fatalf("PeerMarkOf(b) = %d, %v; want newer than %d", newest, err, seen[0])
		}
		if err := st.SawPeerMark(ctx, "b", newest); err != nil {
			t.Fatal(err)
		}
		expect("b rescored alone", "c", "d")
		if err := st.ClearPeerMarks(ctx, seen); err != nil {
			t.Fatal(err)
		}
		expect("the first mark cleared", "c", "d")
		all, err := st.PeerMarks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.ClearPeerMarks(ctx, all); err != nil {
			t.Fatal(err)
		}
		expect("every mark cleared")
	})
}

// SQLite reads a question's peers through the partial index of its
// teachers, not through every trace that asks it (traces_question).
func TestPeersOfAQuestionUseTheTeachersIndex(t *testing.T) {
	st := sqliteStore(t)
	if p := queryPlan(t, st.db, withList(sqlPeers+sqlPeersOfQuestions, 1)+` ORDER BY t.id`, sharedKey); !strings.Contains(p, "traces_teachers") {
		t.Errorf("plan of the peers of a question:\n%s\nwant it through traces_teachers", p)
	}
}

// queryPlan is SQLite's plan of q on db (the store's pool, or a
// transaction on a connection with a staging database attached), one
// step a line.
func queryPlan(t *testing.T, db interface {
	Query(string, ...any) (*sql.Rows, error)
}, q string, args ...any) string {
	t.Helper()
	rows, err := db.Query(`EXPLAIN QUERY PLAN `+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// A database from before 0011 comes out with its teachers flagged: the
// confirmed case teaches, the machine's suggestion does not.
func TestMigrationFlagsTheTeachers(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		loc := olderDatabase(t, b, 9,
			`INSERT INTO traces (id, trace_id, server, question, content_sha, imported_at, question_key) VALUES
				(1, 't1', 's1', 'How many active customers?', 'sha1', 'now', '`+sharedKey+`'),
				(2, 't2', 's1', 'How many active customers?', 'sha2', 'now', '`+sharedKey+`')`,
			`INSERT INTO cases (case_id, trace_pk, source_trace, question, gold, label, cost, status, gold_origin) VALUES
				('c1', 1, 't1', 'q', '{}', '{}', '{}', 'confirmed', 'machine'),
				('c2', 2, 't2', 'q', '{}', '{}', '{}', 'suggested', 'machine')`)
		st := b.openAt(t, loc, Options{})
		ps, err := st.Peers(ctx, []string{sharedKey})
		if err != nil || len(ps) != 1 || ps[0].TraceID != "t1" {
			t.Fatalf("peers after the migration: %+v %v; want t1", ps, err)
		}
	})
}

// The header counts read an index alone (SQLite's plan says COVERING), with
// and without a filter on class or status.
func TestCountsReadOnlyAnIndex(t *testing.T) {
	st := sqliteStore(t)
	for _, f := range []Filter{{}, {Classes: []string{"policy"}}, {Statuses: []model.Status{model.StatusConfirmed}}} {
		where, args := f.where(st.d)
		if p := queryPlan(t, st.db, sqlCounts+where+` GROUP BY 1, 2`, args...); !strings.Contains(p, "COVERING INDEX") {
			t.Errorf("counts with filter %+v read the table:\n%s", f, p)
		}
	}
}

// StaleTraces lists each stale trace once, however many reasons it has to
// be stale, those with a person's gold first, each group in import order.
func TestStaleTracesOnceHumanFirst(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if _, err := importString(t, st, "a.jsonl", manyTraces(5), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.EditTrace(ctx, "t003", "ana", "gold.required_fields", json.RawMessage(`["customers.status"]`)); err != nil {
			t.Fatal(err)
		}
		// t000 current; t001 unscored; t002, t003 scored from other gold
		// under another configuration (two reasons each); t004 under
		// another configuration.
		var rows []ScoreRow
		for id, sc := range map[string][2]string{"t000": {GoldSHANone, "c1"}, "t002": {"other", "c0"},
			"t003": {GoldSHANone, "c0"}, "t004": {GoldSHANone, "c0"}} {
			rows = append(rows, ScoreRow{TraceID: id, Detail: json.RawMessage(`{}`), GoldSHA: sc[0], ConfigSHA: sc[1]})
		}
		if err := st.SaveScores(ctx, rows, nil); err != nil {
			t.Fatal(err)
		}
		stale, err := st.StaleTraces(ctx, "c1")
		if err != nil {
			t.Fatal(err)
		}
		want := []StaleTrace{{"t003", true}, {"t001", false}, {"t002", false}, {"t004", false}}
		if !slices.Equal(stale, want) {
			t.Errorf("stale %+v, want %+v", stale, want)
		}
	})
}
