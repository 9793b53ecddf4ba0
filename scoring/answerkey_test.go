package scoring

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// updateGolden is the -update flag, declared in sql_golden_test.go: it rewrites
// the golden files under testdata/.

// bundled loads the repository's sample traces, their gold, and the policy
// and lineage files, and scores every trace the way `tracelab score
// --policy testdata/policy.json --lineage testdata/lineage.json` does.
type bundled struct {
	traces []*model.Trace
	cases  map[string]*model.Case // by source trace
	scores map[string]TraceScore
}

func loadBundled(t *testing.T) bundled {
	t.Helper()
	files, err := filepath.Glob("../testdata/traces/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bundled traces under ../testdata/traces: %v", err)
	}
	b := bundled{cases: map[string]*model.Case{}, scores: map[string]TraceScore{}}
	for _, f := range files {
		b.traces = append(b.traces, readTraces(t, f)...)
	}
	for _, c := range readCases(t, "../testdata/cases.jsonl") {
		b.cases[c.SourceTrace] = c
	}
	pdata, err := os.ReadFile("../testdata/policy.json")
	if err != nil {
		t.Fatal(err)
	}
	policy, err := ParsePolicy(pdata)
	if err != nil {
		t.Fatal(err)
	}
	ldata, err := os.ReadFile("../testdata/lineage.json")
	if err != nil {
		t.Fatal(err)
	}
	lin, err := ParseLineage(ldata)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewScorer(Config{Policy: policy, Lineage: lin})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range b.traces {
		b.scores[tr.TraceID] = s.ScoreCase(tr, b.cases[tr.TraceID])
	}
	return b
}

// keyRow is one row of the answer key in testdata/README.md.
type keyRow struct {
	class     string   // a failure class or "clean"
	steps     []int    // every step the evidence names
	callSteps []int    // the tool_call / tool_result steps it names
	evidence  string   // the text, for messages
	cells     []string // the raw row
}

var keyStep = regexp.MustCompile(`step (\d+) \((\w+)\)`)

func readAnswerKey(t *testing.T) map[string]keyRow {
	t.Helper()
	f, err := os.Open("../testdata/README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]keyRow{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "| trace_") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) < 8 {
			t.Fatalf("answer key row with %d cells: %s", len(cells), line)
		}
		r := keyRow{class: cells[6], evidence: cells[7], cells: cells}
		for _, m := range keyStep.FindAllStringSubmatch(cells[7], -1) {
			n, _ := strconv.Atoi(m[1])
			r.steps = append(r.steps, n)
			if m[2] == "tool_call" || m[2] == "tool_result" {
				r.callSteps = append(r.callSteps, n)
			}
		}
		out[cells[0]] = r
	}
	if len(out) < 30 {
		t.Fatalf("answer key has %d rows, want the 32 bundled traces", len(out))
	}
	return out
}

// TestAnswerKey: each class fires on its traces with the evidence steps the
// answer key names (every tool step it names, and nothing outside the steps
// it names), and the clean traces get no class at all.
func TestAnswerKey(t *testing.T) {
	b := loadBundled(t)
	key := readAnswerKey(t)
	perClass := map[string]int{}
	for _, tr := range b.traces {
		row, ok := key[tr.TraceID]
		if !ok {
			t.Errorf("%s is not in the answer key", tr.TraceID)
			continue
		}
		ts := b.scores[tr.TraceID]
		t.Run(tr.TraceID+"_"+row.class, func(t *testing.T) {
			if row.class == "clean" {
				if len(ts.Classes) != 0 {
					t.Errorf("clean trace got classes %s", mustJSON(t, ts.Classes))
				}
				if ts.Grounded != nil && !*ts.Grounded {
					t.Errorf("clean trace not grounded")
				}
				return
			}
			if ts.SuggestedClass == nil || string(*ts.SuggestedClass) != row.class {
				t.Fatalf("suggested %v, want %s; classes %s", ts.SuggestedClass, row.class, mustJSON(t, ts.Classes))
			}
			perClass[row.class]++
			got := map[int]bool{}
			for _, e := range ts.Classes[0].Evidence {
				got[e.Step] = true
				if !containsInt(row.steps, e.Step) {
					t.Errorf("evidence at step %d (%s) is not among the key's steps %v", e.Step, e.Reason, row.steps)
				}
			}
			for _, s := range row.callSteps {
				if !got[s] {
					t.Errorf("no evidence at step %d; key: %s; got %s", s, row.evidence, mustJSON(t, ts.Classes[0].Evidence))
				}
			}
			if ts.Grounded == nil || *ts.Grounded {
				t.Errorf("a trace with a suggested class is grounded = %v", bptr(ts.Grounded))
			}
		})
	}
	for _, c := range model.Classes {
		if perClass[string(c)] < 2 {
			t.Errorf("class %s fired on %d answer-key traces, want at least 2", c, perClass[string(c)])
		}
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Figures the answer key states in prose.
func TestAnswerKeyFigures(t *testing.T) {
	b := loadBundled(t)
	e1 := b.scores["trace_e1a7d0"] // join keys: 4 of 6 fields required
	if e1.GroundingPrecision == nil || *e1.GroundingPrecision != round6(4.0/6) || *e1.GroundingRecall != 1 || e1.DefinitionMatch == nil || !*e1.DefinitionMatch {
		t.Errorf("trace_e1a7d0 precision %v recall %v definition %v, want 0.666667 1 true",
			f64(e1.GroundingPrecision), f64(e1.GroundingRecall), bptr(e1.DefinitionMatch))
	}
	p := b.scores["trace_27f6e9"] // the run_sql result is the only violating call of two
	if p.PolicyViolations == nil || *p.PolicyViolations != 1 || p.Calls != 2 {
		t.Errorf("trace_27f6e9 violations %v of %d calls, want 1 of 2", p.PolicyViolations, p.Calls)
	}
	for _, id := range []string{"trace_6b04fd", "trace_19ce53"} { // 14h-old snapshot, 4h bound
		if s := b.scores[id]; s.FreshnessPass == nil || *s.FreshnessPass {
			t.Errorf("%s freshness = %v, want false", id, bptr(s.FreshnessPass))
		}
	}
	for _, id := range []string{"trace_c5e812", "trace_8b7e24", "trace_07b9c4"} { // error results are skipped
		if s := b.scores[id]; len(s.Classes) != 0 || s.FreshnessPass != nil && !*s.FreshnessPass {
			t.Errorf("%s: retry after an error result got %s / freshness %v", id, mustJSON(t, s.Classes), bptr(s.FreshnessPass))
		}
	}
	for _, id := range []string{"trace_7a18cb", "trace_5e7f20"} {
		if s := b.scores[id]; s.Clarifications != 1 {
			t.Errorf("%s clarifications = %d, want 1", id, s.Clarifications)
		}
	}
	// "Every server passes (correct and grounded)" these two questions.
	for _, id := range []string{"trace_c5e812", "trace_d92a3e", "trace_7a18cb", "trace_5e7f20"} {
		if s := b.scores[id]; s.Correct == nil || !*s.Correct || s.Grounded == nil || !*s.Grounded {
			t.Errorf("%s correct %v grounded %v, want both true", id, bptr(s.Correct), bptr(s.Grounded))
		}
	}
}

// TestReportGolden pins report.json on the bundled traces with the machine's
// verdicts (no confirmed label applied), and the per-trace score objects
// (`score --format jsonl`). Run `go test ./scoring -run Golden -update` to
// rewrite them after a deliberate change.
func TestReportGolden(t *testing.T) {
	b := loadBundled(t)
	var results []CaseResult
	ids := make([]string, 0, len(b.scores))
	for id := range b.scores {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var jsonl strings.Builder
	for _, id := range ids {
		ts := b.scores[id]
		line, err := json.Marshal(ts)
		if err != nil {
			t.Fatal(err)
		}
		jsonl.Write(line)
		jsonl.WriteByte('\n')
		if b.cases[id] != nil {
			results = append(results, CaseResult{Score: ts})
		}
	}
	rep, err := json.MarshalIndent(BuildReport(results), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	rep = append(rep, '\n')
	golden(t, "testdata/report.golden.json", rep)
	golden(t, "testdata/scores.golden.jsonl", []byte(jsonl.String()))
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	// Values are pinned, key order is not: the order of failures_by_class
	// is model.Report's business (the seed's order once model encodes it
	// so), and determinism byte for byte is TestReportDeterministic's.
	if w, g := canonicalLines(t, want), canonicalLines(t, got); w != g {
		t.Errorf("%s differs from the output (run with -update after a deliberate change):\n%s", path, firstDiff(w, g))
	}
}

// canonicalLines re-encodes a JSON document, or each line of a JSON Lines
// file, with sorted keys, one value per line.
func canonicalLines(t *testing.T, data []byte) string {
	t.Helper()
	var docs [][]byte
	if trimmed := strings.TrimSpace(string(data)); strings.HasPrefix(trimmed, "[") {
		docs = [][]byte{[]byte(trimmed)}
	} else {
		for _, l := range strings.Split(trimmed, "\n") {
			docs = append(docs, []byte(l))
		}
	}
	var b strings.Builder
	for _, d := range docs {
		var v any
		if err := json.Unmarshal(d, &v); err != nil {
			t.Fatalf("golden is not JSON: %v", err)
		}
		if arr, ok := v.([]any); ok {
			for _, e := range arr {
				c, err := model.CanonicalValue(e)
				if err != nil {
					t.Fatal(err)
				}
				b.Write(c)
				b.WriteByte('\n')
			}
			continue
		}
		c, err := model.CanonicalValue(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(c)
		b.WriteByte('\n')
	}
	return b.String()
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n- " + x + "\n+ " + y
		}
	}
	return ""
}
