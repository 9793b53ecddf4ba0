package app

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracelab-dev/tracelab/scoring"
)

// With only traces imported (no cases, no glossary, no lineage file),
// trace_e7c3b5 ("How much new business did we close last quarter?" on the
// generic warehouse) is suggested the fields trace_3a6e0f read through
// closed_won_total, whose contract encodes the definition: before, it was
// suggested nothing and the queue said "none" (issue 26). The suggestion
// makes its created_at filter the temporal failure a person labeled it.
func TestContractTeachesItsQuestion(t *testing.T) {
	ctx := context.Background()
	want := []string{"opportunities.amount_usd", "opportunities.closed_at", "opportunities.stage"}
	check := func(t *testing.T, e *Engine) {
		t.Helper()
		sg, err := e.Scores.SuggestGold(ctx, "trace_e7c3b5")
		if err != nil || sg == nil {
			t.Fatalf("SuggestGold: %v %v", sg, err)
		}
		if !slices.Equal(sg.Gold.RequiredFields, want) {
			t.Errorf("suggested required %v, want %v (sources %v)", sg.Gold.RequiredFields, want, sg.Sources)
		}
		ts, err := e.Scores.Of(ctx, "trace_e7c3b5")
		if err != nil || ts == nil {
			t.Fatalf("Of: %v %v", ts, err)
		}
		if ts.SuggestedClass == nil || *ts.SuggestedClass != "temporal" {
			t.Errorf("suggested class %v, want temporal", ts.SuggestedClass)
		}
		rec, err := e.Traces.CaseForTrace(ctx, "trace_e7c3b5")
		if err != nil || rec == nil || !slices.Equal(rec.Case.Gold.RequiredFields, want) {
			t.Errorf("stored suggestion %+v %v, want required %v", rec, err, want)
		}
	}
	t.Run("scored after the import", func(t *testing.T) {
		e := engineOver(openTestdata(t, false), Files{}, scoring.Config{})
		if _, err := e.Scores.Rescore(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		check(t, e)
	})
	t.Run("scored by the import", func(t *testing.T) {
		e, err := Open(ctx, filepath.Join(t.TempDir(), "t.db"), Files{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		files, _ := filepath.Glob("../testdata/traces/*.jsonl")
		var ids []string
		for _, f := range files {
			res, err := e.Imports.File(ctx, f, ImportOptions{Score: true})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, res.ToScore...)
		}
		if _, err := e.Imports.AfterImport(ctx, ids, false); err != nil {
			t.Fatal(err)
		}
		check(t, e)
	})
	t.Run("a person's gold on that server wins", func(t *testing.T) {
		e := engineOver(openTestdata(t, true), Files{}, scoring.Config{})
		if _, err := e.Scores.Rescore(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		sg, err := e.Scores.SuggestGold(ctx, "trace_e7c3b5")
		if err != nil || sg == nil {
			t.Fatal(sg, err)
		}
		if !slices.Contains(sg.Gold.ForbiddenFields, "opportunities.created_at") {
			t.Errorf("forbidden %v: the confirmed gold of trace_3a6e0f forbids created_at (sources %v)", sg.Gold.ForbiddenFields, sg.Sources)
		}
	})
}
