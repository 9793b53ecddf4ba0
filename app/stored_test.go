package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
)

func openEngine(t *testing.T, withCases bool, files Files) *Engine {
	t.Helper()
	e, err := newEngine(context.Background(), openTestdata(t, withCases), files)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A stored score is reused while the trace, its gold and the configuration
// are unchanged, and recomputed when any of them changes.
func TestScoresAreReusedUntilSomethingChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lexicon := filepath.Join(dir, "lexicon.txt")
	if err := os.WriteFile(lexicon, []byte("suddenly\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, true, Files{Lexicon: lexicon})
	first, err := e.Scores.ScoreStale(ctx, nil)
	if err != nil || first.Scored != 32 || first.Total != 32 {
		t.Fatalf("first run: %+v %v", first, err)
	}
	before, _ := e.st.Score(ctx, "trace_9f31c2")
	steps := []struct {
		name   string
		change func(t *testing.T) *Engine
		scored func(n int) bool
	}{
		{"nothing changed", func(*testing.T) *Engine { return e }, func(n int) bool { return n == 0 }},
		{"trace content", func(t *testing.T) *Engine {
			body, err := os.ReadFile("../testdata/traces/generic-warehouse.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			line := strings.SplitN(string(body), "\n", 2)[0]
			var tr map[string]any
			json.Unmarshal([]byte(line), &tr)
			tr["outcome"] = "retry"
			b, _ := json.Marshal(tr)
			res, err := e.Imports.Reader(ctx, strings.NewReader(string(b)+"\n"), "changed.jsonl", ImportOptions{Replace: true})
			if err != nil || res.Replaced != 1 {
				t.Fatalf("%+v %v", res, err)
			}
			return e
		}, func(n int) bool { return n >= 1 && n < 32 }},
		{"gold", func(t *testing.T) *Engine {
			if _, err := e.st.EditTrace(ctx, "trace_9f31c2", "ana", "gold.required_fields", json.RawMessage(`["customers.sales_region"]`)); err != nil {
				t.Fatal(err)
			}
			return e
		}, func(n int) bool { return n >= 1 && n < 32 }},
		{"config file", func(t *testing.T) *Engine {
			if err := os.WriteFile(lexicon, []byte("suddenly\nall of a sudden\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e2, err := newEngine(ctx, e.st, Files{Lexicon: lexicon})
			if err != nil {
				t.Fatal(err)
			}
			return e2
		}, func(n int) bool { return n == 32 }},
	}
	for _, s := range steps {
		eng := s.change(t)
		sum, err := eng.Scores.ScoreStale(ctx, nil)
		if err != nil || !s.scored(sum.Scored) {
			t.Errorf("%s: scored %d of %d (%v)", s.name, sum.Scored, sum.Total, err)
		}
		again, err := eng.Scores.ScoreStale(ctx, nil)
		if err != nil || again.Scored != 0 {
			t.Errorf("%s: a second run scored %d", s.name, again.Scored)
		}
	}
	after, _ := e.st.Score(ctx, "trace_9f31c2")
	if string(before) == string(after) {
		t.Error("the gold edit left trace_9f31c2's stored score as it was")
	}
}

// A gold edit rescores the trace and, when its gold can teach, the traces
// of the same question whose gold is the machine's.
func TestGoldEditRescoresItsQuestion(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t, false, Files{})
	if _, err := e.Scores.ScoreStale(ctx, nil); err != nil {
		t.Fatal(err)
	}
	tr, err := e.Traces.Trace(ctx, "trace_9f31c2")
	if err != nil {
		t.Fatal(err)
	}
	takers, err := e.st.SuggestionTakers(ctx, []string{store.QuestionKey(tr.Question)})
	if err != nil || len(takers) < 2 {
		t.Fatalf("peers of %q: %v %v", tr.Question, takers, err)
	}
	if _, err := e.st.EditTrace(ctx, "trace_9f31c2", "ana", "gold.required_fields", json.RawMessage(`["customers.subscription_status"]`)); err != nil {
		t.Fatal(err)
	}
	sum, err := e.Scores.ScoreTraces(ctx, []string{"trace_9f31c2"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The edited trace plus the others of its question (it left the takers).
	if sum.Scored != len(takers) {
		t.Errorf("scored %d, want %d (the trace and its question's takers)", sum.Scored, len(takers))
	}
}

// export writes report.json over exactly the cases of cases.jsonl: a
// confirmed case with the machine's gold counts, a touched-then-undone
// unconfirmed case does not.
func TestExportReportCoversExactlyTheExportedCases(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t, false, Files{})
	if _, err := e.Scores.ScoreStale(ctx, nil); err != nil {
		t.Fatal(err)
	}
	page, _, err := e.Traces.ListTraces(ctx, Query{Filter: Filter{Statuses: []model.Status{model.StatusSuggested}}})
	if err != nil || len(page) < 3 {
		t.Fatalf("%d suggested, %v", len(page), err)
	}
	for _, ts := range page[:2] {
		if _, err := e.st.ConfirmTrace(ctx, ts.TraceID, "ana"); err != nil {
			t.Fatal(err)
		}
	}
	undone := page[2].TraceID
	if _, err := e.st.EditTrace(ctx, undone, "ana", "gold.required_fields", json.RawMessage(`["x.y"]`)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.UndoTrace(ctx, undone, "ana"); err != nil {
		t.Fatal(err)
	}
	for _, all := range []bool{false, true} {
		dir := t.TempDir()
		res, err := e.Suite.Export(ctx, ExportOptions{Dir: dir, All: all})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := os.ReadFile(res.CasesPath)
		lines := strings.Count(string(body), "\n")
		var reports []model.Report
		raw, _ := os.ReadFile(res.ReportPath)
		if err := json.Unmarshal(raw, &reports); err != nil {
			t.Fatal(err)
		}
		counted := 0
		for _, r := range reports {
			counted += r.Cases
		}
		if lines != res.Cases || counted != lines || (!all && lines != 2) {
			t.Errorf("all=%v: cases.jsonl has %d cases, report.json counts %d", all, lines, counted)
		}
	}
}

// Cases imported onto traces the machine already suggested cases for
// replace the suggestions: every imported case is the trace's case, and
// confirmed.
func TestCasesImportedAfterTracesAreAllConfirmed(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t, false, Files{})
	if _, err := e.Scores.ScoreStale(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := e.Imports.File(ctx, "../testdata/cases.jsonl", ImportOptions{})
	if err != nil || res.New != 28 {
		t.Fatalf("%+v %v", res, err)
	}
	c, err := e.Traces.Counts(ctx, Filter{Statuses: []model.Status{model.StatusConfirmed}})
	if err != nil || c.Total != 28 {
		t.Fatalf("%d confirmed traces, want 28 (%v)", c.Total, err)
	}
	reports, err := e.Suite.Report(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range reports {
		n += r.Cases
	}
	if n != 28 {
		t.Errorf("report counts %d cases, want 28", n)
	}
}
