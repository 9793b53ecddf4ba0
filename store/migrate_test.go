package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"tracelab/model"
)

// A database written by the schema of 0001-0002 (a trace, the machine's
// suggestion shadowing a person's confirmed case, a score) comes out of
// 0003 with one case per trace, the queue columns filled, question keys
// and gold hashes set, and its score stale.
func TestMigration3FillsWhatItAdds(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v2.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"0001_init.sql", "0002_drift.sql"} {
		body, err := migrations.ReadFile("migrations/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(body)); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`PRAGMA user_version = 2`,
		`INSERT INTO traces (id, trace_id, server, question, content_sha, imported_at) VALUES (1, 't1', 's1', 'How many, really?', 'sha1', 'now')`,
		`INSERT INTO cases (case_id, trace_pk, source_trace, question, gold, label, cost, status, gold_origin)
			VALUES ('t1', 1, 't1', 'q', '{}', '{"failure_class":"entity"}', '{}', 'suggested', 'machine')`,
		`INSERT INTO cases (case_id, trace_pk, source_trace, question, gold, label, cost, status, gold_origin)
			VALUES ('u9', 1, 't1', 'q', '{"required_fields":["a.b"]}', '{"failure_class":"semantic"}', '{}', 'confirmed', 'human')`,
		`INSERT INTO scores (trace_pk, suggested_class, detail, scored_at) VALUES (1, 'temporal', '{}', 'now')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
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
}
