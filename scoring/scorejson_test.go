package scoring

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// sameAsMarshal fails t unless AppendJSON writes what json.Marshal
// writes for ts, and fails where it fails.
func sameAsMarshal(t *testing.T, ts *TraceScore) {
	t.Helper()
	want, werr := json.Marshal(ts)
	got, gerr := ts.AppendJSON(nil)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("json.Marshal error %v, AppendJSON error %v", werr, gerr)
	}
	if werr == nil && !bytes.Equal(got, want) {
		t.Fatalf("AppendJSON\n %s\njson.Marshal\n %s", got, want)
	}
}

// Every golden score, and scores with every optional part set and strings
// that need escapes, encode as json.Marshal encodes them.
func TestAppendJSONMatchesMarshal(t *testing.T) {
	f, err := os.Open("testdata/scores.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var ts TraceScore
		if err := json.Unmarshal(sc.Bytes(), &ts); err != nil {
			t.Fatal(err)
		}
		sameAsMarshal(t, &ts)
		n++
	}
	if n == 0 {
		t.Fatal("no golden scores")
	}
	class := model.FailureClass("semantic")
	p, yes, no, k := 0.25, true, false, 3
	row := 7
	full := TraceScore{TraceID: "t<1>&\"\\\u2028\u2029\xff\x01\b\f\n\r\t", CaseID: "c", Server: "s é",
		FieldsUsed: []FieldStatus{{Field: "a.b", Status: FieldRequired, Steps: []int{1, 2}, Roles: []Role{RoleWhere}}, {Field: "c", Steps: []int{}}},
		Markers:    []Marker{{Step: 1, Start: 2, End: 3, Text: "sounds like"}}, MarkersMore: 5,
		SuggestedClass:     &class,
		Classes:            []ClassSuggestion{{Class: class, Confidence: 0.99, Evidence: []Evidence{{Step: 1, Reason: "r"}}}, {Class: class}},
		GroundingPrecision: &p, GroundingRecall: &p,
		CallGrounding:   []CallGrounding{{Step: 1, Tool: "run_sql", Used: 2, Required: 1, Precision: 1e-7}},
		DefinitionMatch: &yes, FreshnessPass: &no, PolicyViolations: &k, Correct: &yes, Grounded: &no,
		NeedsHumanReview: true, RunID: "r1", Calls: 3, Clarifications: 1, CostUSD: 1e21,
		ReviewReasons: []string{"why"},
		Violations:    []CallViolation{{Step: 2, Violations: []Violation{{Row: &row, Column: "x", Value: "v", Reason: "no"}, {Reason: "only"}}}, {Step: 3}},
		UnparsedSQL:   []Evidence{{Step: 4, Reason: "bad"}},
		Unscorable:    "unscorable, because <x>", DetailMore: 12,
	}
	sameAsMarshal(t, &full)
	sameAsMarshal(t, &TraceScore{})
	for _, f := range []float64{0, math.Copysign(0, -1), 1e-6, 9.99e-7, 123456789, 1e20, 1e21, -2.5e-9, 0.1 + 0.2, math.NaN(), math.Inf(1)} {
		sameAsMarshal(t, &TraceScore{CostUSD: f})
	}
}

// FuzzAppendJSON: any strings and numbers encode as json.Marshal encodes
// them.
func FuzzAppendJSON(f *testing.F) {
	f.Add("t1", "<&>\u2028", "\xff\xfe", 0.5, -1e-7, 3, true)
	f.Fuzz(func(t *testing.T, a, b, c string, x, y float64, n int, flag bool) {
		class := model.FailureClass(b)
		ts := TraceScore{TraceID: a, CaseID: b, Server: c, RunID: c,
			FieldsUsed:         []FieldStatus{{Field: a, Status: b, Steps: []int{n}, Roles: []Role{Role(c)}}},
			Markers:            []Marker{{Step: n, Start: -n, End: n, Text: c}},
			SuggestedClass:     &class,
			Classes:            []ClassSuggestion{{Class: class, Confidence: x, Evidence: []Evidence{{Step: n, Reason: a}}}},
			GroundingPrecision: &x, GroundingRecall: &y,
			CallGrounding:   []CallGrounding{{Step: n, Tool: b, Precision: y}},
			DefinitionMatch: &flag, PolicyViolations: &n, NeedsHumanReview: flag, CostUSD: y,
			ReviewReasons: []string{a, b}, Violations: []CallViolation{{Step: n, Violations: []Violation{{Column: a, Value: b, Reason: c}}}},
		}
		sameAsMarshal(t, &ts)
	})
}

func BenchmarkAppendJSON(b *testing.B) {
	line, err := os.ReadFile("testdata/scores.golden.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	var scores []TraceScore
	for _, l := range bytes.Split(bytes.TrimSpace(line), []byte("\n")) {
		var ts TraceScore
		if err := json.Unmarshal(l, &ts); err != nil {
			b.Fatal(err)
		}
		scores = append(scores, ts)
	}
	b.Run("json.Marshal", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			json.Marshal(&scores[i%len(scores)])
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		var buf []byte
		for i := 0; b.Loop(); i++ {
			buf, _ = scores[i%len(scores)].AppendJSON(buf[:0])
		}
	})
}
