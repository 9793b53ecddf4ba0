package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/store"
)

// importStep is one file a scenario imports, in order.
type importStep struct {
	file    string // a path, or the body itself when name is set
	name    string
	replace bool
}

// An import that scores its new traces as it writes them leaves the
// database exactly as importing and then scoring what was written does:
// the same scores, cases and queue columns, nothing stale, whether a
// stored case waits for some of the traces, the file's traces teach each
// other nothing, or a trace replaces another.
func TestImportScoresAsScoringAfterIt(t *testing.T) {
	traces, _ := filepath.Glob("../testdata/traces/*.jsonl")
	var steps []importStep
	for _, f := range traces {
		steps = append(steps, importStep{file: f})
	}
	cases := importStep{file: "../testdata/cases.jsonl"}
	body, err := os.ReadFile("../testdata/traces/generic-warehouse.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var changed map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(string(body), "\n", 2)[0]), &changed); err != nil {
		t.Fatal(err)
	}
	changed["outcome"] = "retry"
	line, _ := json.Marshal(changed)
	replaced := importStep{file: string(line) + "\n", name: "changed.jsonl", replace: true}
	// A trace of a labeled trace's question on another server: its
	// suggested gold comes from that peer.
	changed["trace_id"], changed["server"] = "trace_peer_of_9f31c2", "another-warehouse"
	line, _ = json.Marshal(changed)
	peer := importStep{file: string(line) + "\n", name: "peer.jsonl"}
	scenarios := []struct {
		name  string
		steps []importStep
		// later says some trace was left to AfterImport (a case waited
		// for it, or it replaced another).
		later bool
	}{
		{"traces", steps, false},
		{"traces then their cases", append(append([]importStep{}, steps...), cases), false},
		{"cases then their traces", append([]importStep{cases}, steps...), true},
		{"a trace replaced", append(append([]importStep{}, steps...), replaced), true},
		// The peers a new trace learns from are in the database already.
		{"traces of labeled questions", append(append([]importStep{steps[0], cases}, steps[1:]...), peer), true},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			eachTeamBackend(t, func(t *testing.T, loc string) {
				after, _, _ := importAndScore(t, freshLike(t, loc), sc.steps, false)
				in, scored, later := importAndScore(t, loc, sc.steps, true)
				if scored == 0 {
					t.Fatal("the import scored no trace as it wrote it")
				}
				if later != sc.later {
					t.Errorf("traces left to after the import: %v, want %v", later, sc.later)
				}
				if in != after {
					t.Errorf("scored during the import:\n%s\nscored after it:\n%s", in, after)
				}
			})
		})
	}
}

// freshLike is a new empty database of loc's kind.
func freshLike(t *testing.T, loc string) string {
	if store.IsPostgres(loc) {
		return teamBackends[1].fresh(t)
	}
	return filepath.Join(t.TempDir(), "other.db")
}

// importAndScore imports steps into the empty database at loc and scores
// what is left after each, the way tracelab import does, scoring the new
// traces during the import or not; it returns a snapshot of what was
// stored, how many traces the imports scored, and whether some were left
// to after them.
func importAndScore(t *testing.T, loc string, steps []importStep, during bool) (snap string, scored int, later bool) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	e, err := newEngine(ctx, st, Files{Lineage: "../testdata/lineage.json"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.SetPolicy(policy(t))
	for _, s := range steps {
		opts := ImportOptions{Score: during, Replace: s.replace}
		var res ImportResult
		if s.name != "" {
			res, err = e.Imports.Reader(ctx, strings.NewReader(s.file), s.name, opts)
		} else {
			res, err = e.Imports.File(ctx, s.file, opts)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !during && (res.Scored != 0 || len(res.ToScore) != res.Written) {
			t.Fatalf("an import without Score scored %d traces, left %d of %d", res.Scored, len(res.ToScore), res.Written)
		}
		scored += res.Scored
		later = later || len(res.ToScore) > 0
		if res.Scored+len(res.ToScore) != res.Written {
			t.Fatalf("%d scored + %d to score != %d written", res.Scored, len(res.ToScore), res.Written)
		}
		if _, err := e.Imports.AfterImport(ctx, res.ToScore, false); err != nil {
			t.Fatal(err)
		}
	}
	if sum, err := e.Scores.ScoreStale(ctx, nil); err != nil || sum.Scored != 0 {
		t.Fatalf("stale after the imports: %+v %v", sum, err)
	}
	var b strings.Builder
	page, _, err := e.Traces.ListTraces(ctx, Query{Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range page {
		j, _ := json.Marshal(s)
		b.Write(append(j, '\n'))
	}
	err = e.Scores.EachResult(ctx, ScopeAll, func(r Result) error {
		j, _ := json.Marshal(r.Score)
		b.Write(append(j, '\n'))
		if r.Case != nil {
			c := r.Case
			j, _ := json.Marshal([]any{c.Case.CaseID, c.TraceID, c.Case.Gold, c.Case.Label, c.Status, c.GoldOrigin, c.UpdatedBy})
			b.Write(append(j, '\n'))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), scored, later
}
