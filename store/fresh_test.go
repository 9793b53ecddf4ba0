package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
)

// scoreOf is a score and a machine suggestion for trace id, as the engine
// makes them.
func scoreOf(id string) (ScoreRow, Suggestion) {
	yes, half := true, 0.5
	class := model.FailureClass("semantic")
	return ScoreRow{TraceID: id, SuggestedClass: string(class), Markers: 1, NeedsReview: true, Correct: &yes,
			Detail: json.RawMessage(`{"trace_id":"` + id + `"}`), GoldSHA: GoldSHA(OriginMachine, model.Gold{}),
			ConfigSHA: "cfg", Metrics: ScoreMetrics{Precision: &half, Calls: 2, CostUSD: 0.01}},
		Suggestion{TraceID: id, Gold: model.Gold{RequiredFields: []string{"t.a"}},
			Label: model.Label{FailureClass: &class}}
}

// The scores an import puts for its fresh traces land as SaveScores would
// write them after the import: the same rows in every table, the queue
// columns included, staged or not, on either backend, whether they are
// put before the file's end (EndOfFile, where a staged file is copied) or
// after it.
func TestPutScoresAsSaveScoresAfter(t *testing.T) {
	kinds := []struct {
		name string
		open func(t *testing.T) *Store
	}{
		{"staged", sqliteStore},
		{"direct", func(t *testing.T) *Store { st := sqliteStore(t); st.stage = false; return st }},
		{"postgres", backends[1].open},
	}
	for _, k := range kinds {
		for endAt := range 3 { // the scores of the first endAt traces come before EndOfFile
			t.Run(fmt.Sprintf("%s, %d scored before the end", k.name, endAt), func(t *testing.T) {
				putScoresAsSaveScoresAfter(t, k.open(t), k.open(t), endAt)
			})
		}
	}
}

func putScoresAsSaveScoresAfter(t *testing.T, during, after *Store, endAt int) {
	ctx := context.Background()
	im, err := during.BeginImport(ctx, "good.jsonl", false)
	if err != nil {
		t.Fatal(err)
	}
	defer im.Rollback()
	var rows []ScoreRow
	var sugg []Suggestion
	for i, line := range strings.Split(strings.TrimSpace(goodTraces), "\n") {
		tr := parseTrace(t, "good.jsonl", i+1, line)
		fresh, rerr, err := im.PutRow(PrepareTrace(tr))
		if rerr != nil || err != nil || fresh == nil {
			t.Fatalf("%s: fresh %v, %v %v", tr.TraceID, fresh, rerr, err)
		}
		r, s := scoreOf(tr.TraceID)
		rows, sugg = append(rows, r), append(sugg, s)
	}
	if err := im.PutScores(rows[:endAt], sugg[:endAt]); err != nil {
		t.Fatal(err)
	}
	if err := im.EndOfFile("native"); err != nil {
		t.Fatal(err)
	}
	if err := im.PutScores(rows[endAt:], sugg[endAt:]); err != nil {
		t.Fatal(err)
	}
	if err := im.Commit("native", "sha", 0); err != nil {
		t.Fatal(err)
	}
	if im.Stats.Scored != 2 || len(im.Unscored()) != 0 {
		t.Errorf("scored %d, unscored %v", im.Stats.Scored, im.Unscored())
	}
	if _, err := importString(t, after, "good.jsonl", goodTraces, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := after.SaveScores(ctx, rows, sugg); err != nil {
		t.Fatal(err)
	}
	if a, b := snapshot(t, after), snapshot(t, during); a != b {
		t.Errorf("scored during the import, the databases differ:\n%s", firstDiff(a, b))
	}
	if stale, err := during.StaleTraces(ctx, "cfg"); err != nil || len(stale) != 0 {
		t.Errorf("stale after the import: %v %v", stale, err)
	}
	if during.d == sqliteDialect {
		assertForeignKeysHold(t, during, "the import")
	}
}

// A trace is fresh (scored during its import) only when it is new and no
// case waits for it; it comes back as LoadTraces reads it.
func TestFreshTraces(t *testing.T) {
	ctx := context.Background()
	const tools = `"tools":[{"name":"zeta","description":"z", "inputSchema":{"type":"object","required":[],"properties":{}}},{"name":"alpha","description":"a"}]`
	withTools := `{"trace_id":"t3","question":"q",` + tools + `,"steps":[{"kind":"answer","text":"42"}]}`
	suite := suiteLine(t, "t2")
	steps := []struct {
		name      string
		before    []string // files imported first
		line      string
		replace   bool
		wantFresh bool
	}{
		{"new", nil, withTools, false, true},
		{"unchanged", []string{withTools}, withTools, false, false},
		{"replaces another", []string{withTools}, strings.Replace(withTools, "42", "43", 1), true, false},
		{"a case waits for it", []string{suite}, strings.Split(goodTraces, "\n")[1], false, false},
		{"a case waits for another", []string{suite}, withTools, false, true},
	}
	for _, b := range append(backends, backend{"sqlite direct", backends[0].fresh}) {
		t.Run(b.name, func(t *testing.T) {
			for _, s := range steps {
				st := b.open(t)
				st.stage = st.stage && b.name != "sqlite direct"
				for i, body := range s.before {
					if _, err := importString(t, st, "before"+string(rune('0'+i))+".jsonl", body+"\n", ImportOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				im, err := st.BeginImport(ctx, "f.jsonl", s.replace)
				if err != nil {
					t.Fatal(err)
				}
				tr := parseTrace(t, "f.jsonl", 1, s.line)
				fresh, rerr, err := im.PutRow(PrepareTrace(tr))
				if rerr != nil || err != nil {
					t.Fatalf("%s: %v %v", s.name, rerr, err)
				}
				if (fresh != nil) != s.wantFresh {
					t.Errorf("%s: fresh %v, want %v", s.name, fresh != nil, s.wantFresh)
				}
				if err := im.Commit("native", "sha", 0); err != nil {
					t.Fatal(err)
				}
				if fresh == nil {
					continue
				}
				loaded, err := st.LoadTraces(ctx, []string{tr.TraceID})
				if err != nil || len(loaded) != 1 {
					t.Fatalf("%s: %v %v", s.name, loaded, err)
				}
				fresh.Source, loaded[0].Source = model.Source{}, model.Source{}
				if a, b := traceText(fresh), traceText(loaded[0]); a != b {
					t.Errorf("%s: fresh\n%s\nloaded\n%s", s.name, a, b)
				}
			}
		})
	}
}

// traceText is a trace and its tools' bytes.
func traceText(t *model.Trace) string {
	s := jsonish(t)
	for _, tc := range t.Tools {
		s += "\n" + string(tc.Raw)
	}
	return s
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// parseTrace reads a native trace line as the engine does.
func parseTrace(t *testing.T, file string, line int, text string) *model.Trace {
	t.Helper()
	tr, lerr := importers.ParseNativeTrace(file, line, []byte(text))
	if lerr != nil {
		t.Fatal(lerr)
	}
	tr.Source = model.Source{File: file, Line: line}
	return tr
}
