package store

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// olderDatabase writes a database as tracelab at schema version n did:
// its migrations up to n, then the statements given. It returns where it is.
func olderDatabase(t *testing.T, b backend, n int, stmts ...string) string {
	t.Helper()
	loc := b.fresh(t)
	st, err := OpenWith(context.Background(), loc, Options{upTo: n})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, err := st.SchemaVersion(context.Background()); err != nil || v != n {
		t.Fatalf("schema version %d (%v), want %d", v, err, n)
	}
	for _, q := range stmts {
		if _, err := st.db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return loc
}

// A database written by the schema of 0001-0002 (a trace, the machine's
// suggestion shadowing a person's confirmed case, a score) comes out of
// 0003 with one case per trace, the queue columns filled, question keys
// and gold hashes set, and its score stale.
func TestMigration3FillsWhatItAdds(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		loc := olderDatabase(t, b, 2,
			`INSERT INTO traces (id, trace_id, server, question, content_sha, imported_at) VALUES (1, 't1', 's1', 'How many, really?', 'sha1', 'now')`,
			`INSERT INTO cases (case_id, trace_pk, source_trace, question, gold, label, cost, status, gold_origin)
			VALUES ('t1', 1, 't1', 'q', '{}', '{"failure_class":"entity"}', '{}', 'suggested', 'machine')`,
			`INSERT INTO cases (case_id, trace_pk, source_trace, question, gold, label, cost, status, gold_origin)
			VALUES ('u9', 1, 't1', 'q', '{"required_fields":["a.b"]}', '{"failure_class":"semantic"}', '{}', 'confirmed', 'human')`,
			`INSERT INTO scores (trace_pk, suggested_class, detail, scored_at) VALUES (1, 'temporal', '{}', 'now')`)
		st := b.openAt(t, loc, Options{})
		page, _, err := st.ListTraces(ctx, Query{})
		if err != nil || len(page) != 1 {
			t.Fatalf("%+v %v", page, err)
		}
		if p := page[0]; p.CaseID != "u9" || p.Status != model.StatusConfirmed || p.LabelClass != "semantic" || p.SuggestedClass != "temporal" {
			t.Errorf("queue row %+v", p)
		}
		if cr, _ := st.Case(ctx, "t1"); cr != nil {
			t.Errorf("the machine's shadowed suggestion survived: %+v", cr)
		}
		var key, gold string
		st.db.QueryRow(`SELECT question_key FROM traces`).Scan(&key)
		st.db.QueryRow(`SELECT gold_sha FROM cases WHERE case_id = 'u9'`).Scan(&gold)
		if key != QuestionKey("How many, really?") || key != "how many really" {
			t.Errorf("question_key %q", key)
		}
		if gold != GoldSHA(OriginHuman, model.Gold{RequiredFields: []string{"a.b"}}) {
			t.Errorf("gold_sha %q", gold)
		}
		stale, err := st.StaleTraces(ctx, "any")
		if err != nil || len(stale) != 1 || !stale[0].HumanGold {
			t.Errorf("stale %+v %v", stale, err)
		}
	})
}

// A database of schema 12 (every step in its own row of thirteen columns)
// comes out of 0013 and 0014 with each trace's steps in its body, read
// back as they were written, and the steps table narrowed to kind and
// tool, which the tool filter still finds.
func TestMigrations13And14MoveStepsIntoBodies(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		loc := olderDatabase(t, b, 12,
			`INSERT INTO traces (id, trace_id, question, content_sha, imported_at, step_count) VALUES (1, 't1', 'q?', 'sha1', 'now', 3)`,
			`INSERT INTO traces (id, trace_id, question, content_sha, imported_at) VALUES (2, 't2', 'q?', 'sha2', 'now')`,
			`INSERT INTO steps (trace_pk, idx, kind, step_id, tool, args, credential) VALUES (1, 0, 'tool_call', 'c1', 'run_sql', '{"sql":"SELECT \"a\""}', 'svc')`,
			`INSERT INTO steps (trace_pk, idx, kind, call_id, result, as_of, is_error, next_cursor, has_more)
			VALUES (1, 1, 'tool_result', 'c1', '[1]', '2026-07-03T08:00:00Z', 1, 'n2', 1)`,
			`INSERT INTO steps (trace_pk, idx, kind, text) VALUES (1, 2, 'answer', 'caf`+"\u00e9"+` "1"
two lines')`)
		var told []int
		st := b.openAt(t, loc, Options{Upgrading: func(from, to int) { told = append(told, from, to) }})
		ms, _ := migrationList(sqliteDialect)
		if newest := ms[len(ms)-1].n; len(told) != 2 || told[0] != 12 || told[1] != newest {
			t.Errorf("Upgrading was told %v, want [12 %d]", told, newest)
		}
		got, err := st.LoadTraces(ctx, []string{"t1", "t2"})
		if err != nil || len(got) != 2 {
			t.Fatalf("%v %v", got, err)
		}
		want := []model.Step{
			{Kind: model.KindToolCall, ID: "c1", Tool: "run_sql", Args: json.RawMessage(`{"sql":"SELECT \"a\""}`), Credential: "svc"},
			{Kind: model.KindToolResult, CallID: "c1", Result: json.RawMessage(`[1]`), AsOf: "2026-07-03T08:00:00Z",
				IsError: true, NextCursor: "n2", HasMore: true},
			{Kind: model.KindAnswer, Text: "caf\u00e9 \"1\"\ntwo lines"},
		}
		if !reflect.DeepEqual(got[0].Steps, want) {
			t.Errorf("steps of t1:\n got %#v\nwant %#v", got[0].Steps, want)
		}
		if len(got[1].Steps) != 0 {
			t.Errorf("steps of t2: %#v", got[1].Steps)
		}
		// 0016 keeps the one step that names a tool.
		rows, err := queryColumn[string](ctx, st.db, `SELECT kind || ':' || tool FROM steps WHERE trace_pk = 1 ORDER BY idx`)
		if err != nil || strings.Join(rows, " ") != "tool_call:run_sql" {
			t.Errorf("step rows %v %v", rows, err)
		}
		if _, err := st.db.Exec(`SELECT text FROM steps`); err == nil {
			t.Error("the steps table still has its text column")
		}
		page, _, err := st.ListTraces(ctx, Query{Filter: Filter{Tools: []string{"run_sql"}}})
		if err != nil || len(page) != 1 || page[0].TraceID != "t1" {
			t.Errorf("tool filter: %+v %v", page, err)
		}
	})
}

// A database of schema 15 keeps, through 0016, the step rows that name a
// tool (the tool filter, the facet and the sample find them as before)
// and loses the others; the bodies, which hold every step, are untouched.
func TestMigration16KeepsTheToolSteps(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		loc := olderDatabase(t, b, 15,
			`INSERT INTO traces (id, trace_id, question, content_sha, imported_at, step_count) VALUES (1, 't1', 'q?', 'sha1', 'now', 3)`,
			`INSERT INTO steps (trace_pk, idx, kind, tool) VALUES (1, 0, 'user', ''), (1, 1, 'tool_call', 'run_sql'),
				(1, 2, 'tool_result', 'run_sql'), (1, 3, 'answer', '')`,
			`INSERT INTO step_bodies (trace_pk, body) VALUES (1, '[]')`)
		st := b.openAt(t, loc, Options{})
		rows, err := queryColumn[string](ctx, st.db, `SELECT idx || ':' || kind || ':' || tool FROM steps ORDER BY idx`)
		if err != nil || strings.Join(rows, " ") != "1:tool_call:run_sql 2:tool_result:run_sql" {
			t.Errorf("step rows %v %v", rows, err)
		}
		page, _, err := st.ListTraces(ctx, Query{Filter: Filter{Tools: []string{"run_sql"}}})
		if err != nil || len(page) != 1 || page[0].TraceID != "t1" {
			t.Errorf("tool filter: %+v %v", page, err)
		}
		if bodies, err := queryColumn[string](ctx, st.db, `SELECT body FROM step_bodies`); err != nil || len(bodies) != 1 {
			t.Errorf("bodies %v %v", bodies, err)
		}
	})
}

// A score of schema 14 keeps its configuration and time through 0015,
// in score_state: current under its configuration, stale under another.
func TestMigration15MovesTheConfigurationOut(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		loc := olderDatabase(t, b, 14,
			`INSERT INTO traces (id, trace_id, question, content_sha, imported_at) VALUES (1, 't1', 'q?', 'sha1', 'now')`,
			`INSERT INTO scores (trace_pk, detail, scored_at, content_sha, gold_sha, config_sha) VALUES (1, '{}', 'then', 'sha1', 'none', 'c1')`)
		st := b.openAt(t, loc, Options{})
		var config, at string
		if err := st.db.QueryRow(`SELECT config_sha, scored_at FROM score_state WHERE trace_pk = 1`).Scan(&config, &at); err != nil ||
			config != "c1" || at != "then" {
			t.Errorf("score_state: %q %q %v", config, at, err)
		}
		for _, tt := range []struct {
			config string
			stale  int
		}{{"c1", 0}, {"c2", 1}} {
			if stale, err := st.StaleTraces(ctx, tt.config); err != nil || len(stale) != tt.stale {
				t.Errorf("stale under %s: %+v %v, want %d", tt.config, stale, err, tt.stale)
			}
		}
		if ok, err := st.ScoreCurrent(ctx, "t1", "c1"); err != nil || !ok {
			t.Errorf("ScoreCurrent under c1: %v %v", ok, err)
		}
		if _, err := st.db.Exec(`SELECT config_sha FROM scores`); err == nil {
			t.Error("the scores table still has its config_sha column")
		}
	})
}

// The queue's columns on the trace row agree, after every kind of write,
// with what they denormalize: the first case's status and label class and
// the score's suggested class (read the slow way, through the JSON).
func TestQueueColumnsStayInStep(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		check := func(step string) {
			t.Helper()
			rows, err := st.db.Query(`SELECT t.trace_id, t.case_id, t.case_status, t.queue_class || ' ' || t.score_ok,
			COALESCE(c.case_id, ''), COALESCE(c.status, 'none'),
			COALESCE(c.label, '{}'), COALESCE(s.suggested_class, ''),
				COALESCE(s.content_sha = t.content_sha AND s.gold_sha = COALESCE(c.gold_sha, 'none'), FALSE)
			FROM traces t
			LEFT JOIN cases c ON c.trace_pk = t.id AND NOT EXISTS (SELECT 1 FROM cases c2 WHERE c2.trace_pk = t.id AND c2.case_id < c.case_id)
			LEFT JOIN scores s ON s.trace_pk = t.id`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var id, caseID, status, class, wantID, wantStatus, label, suggested string
				var ok bool
				if err := rows.Scan(&id, &caseID, &status, &class, &wantID, &wantStatus, &label, &suggested, &ok); err != nil {
					t.Fatal(err)
				}
				var l model.Label
				if err := json.Unmarshal([]byte(label), &l); err != nil {
					t.Fatal(err)
				}
				wantClass := "none"
				switch {
				case l.FailureClass != nil && *l.FailureClass != "":
					wantClass = string(*l.FailureClass)
				case suggested != "":
					wantClass = suggested
				}
				wantClass += map[bool]string{true: " 1", false: " 0"}[ok]
				if caseID != wantID || status != wantStatus || class != wantClass {
					t.Errorf("%s: %s has (%s, %s, %s), want (%s, %s, %s)", step, id, caseID, status, class, wantID, wantStatus, wantClass)
				}
			}
		}
		if _, err := importString(t, st, "a.jsonl", goodTraces, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		check("import")
		steps := []struct {
			name string
			do   func() error
		}{
			{"score", func() error {
				return st.SaveScores(ctx, []ScoreRow{{TraceID: "t1", SuggestedClass: "temporal"}, {TraceID: "t2", SuggestedClass: "semantic"}}, nil)
			}},
			{"suggest", func() error {
				c := model.ClassEntity
				return st.SuggestCase(ctx, "t1", model.Gold{RequiredFields: []string{"a.b"}}, model.Label{FailureClass: &c})
			}},
			{"rescore", func() error { return st.SaveScores(ctx, []ScoreRow{{TraceID: "t2", SuggestedClass: ""}}, nil) }},
			{"current scores", func() error {
				return st.SaveScores(ctx, []ScoreRow{{TraceID: "t1", SuggestedClass: "temporal", GoldSHA: OriginMachine},
					{TraceID: "t2", GoldSHA: GoldSHANone}}, nil)
			}},
			{"rescore under another configuration, same class", func() error {
				return st.SaveScores(ctx, []ScoreRow{{TraceID: "t1", SuggestedClass: "temporal", GoldSHA: OriginMachine, ConfigSHA: "b"},
					{TraceID: "t2", GoldSHA: GoldSHANone, ConfigSHA: "b"}}, nil)
			}},
			{"label edit", func() error {
				_, err := st.EditTrace(ctx, "t2", "ana", "label.failure_class", json.RawMessage(`"policy"`))
				return err
			}},
			{"confirm", func() error { _, err := st.ConfirmTrace(ctx, "t2", "ana"); return err }},
			{"undo", func() error { _, err := st.UndoTrace(ctx, "t2", "ana"); return err }},
			{"suite case replaces the suggestion", func() error {
				_, err := importString(t, st, "cases.jsonl", `{"case_id":"k1","source_trace":"t1","user_role":"r","as_user":"u1","question":"How many?","gold":{"answer":1,"tolerance":0,"required_fields":[],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":true,"grounded":true,"failure_class":null,"note":""},"cost":{"input_tokens":0,"output_tokens":0,"tool_calls":0,"turns":0,"usd":0}}`+"\n", ImportOptions{})
				return err
			}},
			{"trace replaced", func() error {
				_, err := importString(t, st, "b.jsonl", strings.Replace(goodTraces, `"text":"1"}`, `"text":"2"}`, 1), ImportOptions{Replace: true})
				return err
			}},
		}
		for _, s := range steps {
			if err := s.do(); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			check(s.name)
		}
		if cr, _ := st.Case(ctx, "t1"); cr != nil {
			t.Error("the machine's suggestion for t1 survived the suite case")
		}
	})
}
