package store

import (
	"context"
	"encoding/json"
	"testing"
)

// An edit rewrites its trace's row only when the trace's queue columns
// move (PostgreSQL's 0038): a key that leaves the class, status and case
// as they were (correct toggled) leaves the row as it was, while one
// that moves the class or the status still lands in the queue columns,
// and a case an import confirmed still goes back to "pending" when its
// label is emptied again, though its queue columns stay put meanwhile.
func TestEditRewritesTraceOnlyWhenQueueMoves(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if _, err := importString(t, st, "a.jsonl", goodTraces, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		const suite = `{"case_id":"k1","source_trace":"t1","user_role":"r","as_user":"u1","question":"How many?","gold":{"answer":1,"tolerance":0,"required_fields":[],"forbidden_fields":[],"definition":"","window":null,"freshness_bound_hours":null,"policy_scope":""},"label":{"correct":null,"grounded":null,"failure_class":null,"note":""},"cost":{"input_tokens":0,"output_tokens":0,"tool_calls":0,"turns":0,"usd":0}}` + "\n"
		if _, err := importString(t, st, "cases.jsonl", suite, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		// version is the row's version on PostgreSQL (its xmin: the
		// transaction that wrote it), "" on SQLite.
		row := func(trace string) (status, class, version string) {
			t.Helper()
			q := `SELECT case_status, label_class, '' FROM traces WHERE trace_id = ?`
			if b.name == "postgres" {
				q = `SELECT case_status, label_class, xmin::text FROM traces WHERE trace_id = ?`
			}
			if err := st.db.QueryRowContext(ctx, q, trace).Scan(&status, &class, &version); err != nil {
				t.Fatal(err)
			}
			return status, class, version
		}
		edit := func(trace, field, value string) {
			t.Helper()
			if _, err := st.EditTrace(ctx, trace, "ana", field, json.RawMessage(value)); err != nil {
				t.Fatalf("%s %s: %v", field, value, err)
			}
		}

		edit("t2", "label.failure_class", `"policy"`)
		s0, c0, v0 := row("t2")
		if s0 != "suggested" || c0 != "policy" {
			t.Fatalf("after the class: (%s, %s), want (suggested, policy)", s0, c0)
		}
		edit("t2", "label.correct", `true`)
		edit("t2", "label.grounded", `false`)
		if s, c, v := row("t2"); s != s0 || c != c0 || v != v0 {
			t.Errorf("correct and grounded set: (%s, %s, version %s), want (%s, %s, version %s): the row was rewritten with nothing moved",
				s, c, v, s0, c0, v0)
		}
		edit("t2", "label.failure_class", `"entity"`)
		if s, c, v := row("t2"); s != "suggested" || c != "entity" || (b.name == "postgres" && v == v0) {
			t.Errorf("class moved: (%s, %s, version %s), want (suggested, entity) in a new version", s, c, v)
		}
		if _, err := st.ConfirmTrace(ctx, "t2", "ana"); err != nil {
			t.Fatal(err)
		}
		var teaches int
		if err := st.db.QueryRowContext(ctx, `SELECT teaches FROM traces WHERE trace_id = 't2'`).Scan(&teaches); err != nil {
			t.Fatal(err)
		}
		if s, _, _ := row("t2"); s != "confirmed" || teaches != 1 {
			t.Errorf("confirmed: status %s, teaches %d, want confirmed, 1", s, teaches)
		}
		if _, err := st.UndoTrace(ctx, "t2", "ana"); err != nil {
			t.Fatal(err)
		}
		if err := st.db.QueryRowContext(ctx, `SELECT teaches FROM traces WHERE trace_id = 't2'`).Scan(&teaches); err != nil {
			t.Fatal(err)
		}
		if s, _, _ := row("t2"); s != "suggested" || teaches != 0 {
			t.Errorf("confirm undone: status %s, teaches %d, want suggested, 0", s, teaches)
		}

		// The suite's case: confirmed by the import with an empty label.
		if s, _, _ := row("t1"); s != "pending" {
			t.Fatalf("imported case with an empty label: %s, want pending", s)
		}
		edit("t1", "label.correct", `true`)
		if s, _, _ := row("t1"); s != "confirmed" {
			t.Errorf("imported case labeled: %s, want confirmed", s)
		}
		edit("t1", "label.correct", `null`)
		if s, _, _ := row("t1"); s != "pending" {
			t.Errorf("imported case whose label is emptied again: %s, want pending", s)
		}
	})
}
