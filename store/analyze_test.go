package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// A PostgreSQL import that grows the database refreshes the planner's
// statistics of every table the report, the queue and export read before
// anyone reads them: a table left "never analyzed" is planned on guesses
// (trace_contracts at 579 rows a trace made export's case page cross
// jit_above_cost: 25 s for export --all at 100k where 1.8 s was due).
func TestImportAnalyzesWhatExportReads(t *testing.T) {
	st := backends[1].open(t) // postgres
	var b strings.Builder
	for i := range analyzeAfter + 10 {
		fmt.Fprintf(&b, `{"trace_id":"a%05d","server":"s","question":"q%d?","steps":[{"kind":"answer","text":"x"}]}`+"\n", i, i)
	}
	if _, err := importString(t, st, "a.jsonl", b.String(), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"traces", "scores", "score_state", "cases", "trace_contracts"} {
		var tuples float64
		if err := st.db.QueryRowContext(context.Background(),
			`SELECT reltuples::float8 FROM pg_class WHERE oid = to_regclass($1)`, table).Scan(&tuples); err != nil {
			t.Fatal(table, err)
		}
		if tuples < 0 {
			t.Errorf("%s was never analyzed after an import of %d traces", table, analyzeAfter+10)
		}
	}
}
