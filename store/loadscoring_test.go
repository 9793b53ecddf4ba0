package store

import (
	"context"
	"os"
	"reflect"
	"testing"
)

// LoadScoring gives the traces LoadTraces gives and the cases
// CasesForTraces gives, field for field: traces with and without
// contracts, a trace with two cases (its first is its case), a case
// imported before its trace, a standalone case, an unknown id.
func TestLoadScoringReadsAsCasesForTraces(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		waiting := `{"case_id":"w1","source_trace":"late","question":"q?","gold":{"answer":"1","required_fields":["a.b"]},"label":{"failure_class":"entity"},"contracts":{"x":"y"}}
{"case_id":"alone","source_trace":"nowhere","question":"q?","gold":{"answer":"2"},"label":{},"cost":{"input_tokens":5}}
`
		if _, err := importString(t, st, "waiting.jsonl", waiting, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"../testdata/traces/generic-warehouse.jsonl", "../testdata/traces/support-crm.jsonl",
			"../testdata/traces/task-specific.jsonl", "../testdata/cases.jsonl"} {
			r, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			_, err = importReader(ctx, st, r, f, ImportOptions{})
			r.Close()
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
		late := `{"trace_id":"late","server":"s","question":"q?","usage":{"input_tokens":7,"output_tokens":3,"usd":0.5},"steps":[{"kind":"answer","text":"1"}]}
{"trace_id":"twice","server":"s","question":"q?","tools":[{"name":"run_sql","inputSchema":{"type":"object"}}],"steps":[{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":"SELECT 1"}}]}
`
		if _, err := importString(t, st, "late.jsonl", late, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		two := `{"case_id":"twice-b","source_trace":"twice","question":"q?","gold":{"answer":"b"},"label":{}}
{"case_id":"twice-a","source_trace":"twice","question":"q?","gold":{"answer":"a"},"label":{"grounded":true}}
`
		if _, err := importString(t, st, "two.jsonl", two, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		ids, err := queryColumn[string](ctx, st.db, `SELECT trace_id FROM traces ORDER BY id DESC`)
		if err != nil || len(ids) < 10 {
			t.Fatalf("%d traces, %v", len(ids), err)
		}
		ids = append(ids, "unknown")
		wantTraces, err := st.LoadTraces(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		wantCases, err := st.CasesForTraces(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		gotTraces, gotCases, err := st.LoadScoring(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotTraces, wantTraces) {
			t.Error("LoadScoring's traces differ from LoadTraces'")
		}
		for _, id := range []string{"late", "twice"} {
			if wantCases[id] == nil {
				t.Errorf("fixture: trace %s has no case", id)
			}
		}
		if len(gotCases) != len(wantCases) {
			t.Errorf("%d cases, CasesForTraces has %d", len(gotCases), len(wantCases))
		}
		for id, want := range wantCases {
			if got := gotCases[id]; !reflect.DeepEqual(got, want) {
				t.Errorf("case of %s:\n got %#v\nwant %#v", id, got, want)
			}
		}
	})
}
