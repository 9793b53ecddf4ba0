package scoring_test

import (
	"bufio"
	"fmt"
	"os"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
)

// Score the seed's two servers against its case and build report.json.
func Example() {
	f, err := os.Open("testdata/seed_opening.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	data, _ := os.ReadFile("testdata/seed_case.json")
	c, lerr := importers.ParseCase("seed_case.json", 1, data[:len(data)-1])
	if lerr != nil {
		fmt.Println(lerr)
		return
	}
	s, err := scoring.NewScorer(scoring.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var results []scoring.CaseResult
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		tr, lerr := importers.ParseNativeTrace("seed_opening.jsonl", n, sc.Bytes())
		if lerr != nil {
			fmt.Println(lerr)
			return
		}
		ts := s.ScoreCase(tr, c)
		class := "none"
		if ts.SuggestedClass != nil {
			class = string(*ts.SuggestedClass)
		}
		fmt.Printf("%s: precision %.2f recall %.2f definition %v class %s markers %d\n",
			ts.Server, *ts.GroundingPrecision, *ts.GroundingRecall, *ts.DefinitionMatch, class, len(ts.Markers))
		results = append(results, scoring.CaseResult{Score: ts})
	}
	for _, r := range scoring.BuildReport(results) {
		fmt.Printf("%s: correct %d, correct and grounded %d\n", r.Server, r.Correct, r.CorrectAndGrounded)
	}
	// Output:
	// generic-warehouse: precision 0.00 recall 0.00 definition false class semantic markers 2
	// task-specific: precision 1.00 recall 1.00 definition true class none markers 0
	// generic-warehouse: correct 1, correct and grounded 0
	// task-specific: correct 1, correct and grounded 1
}

// A case whose gold an expert confirmed and whose label is still empty:
// the scorer's verdict counts; a person's field wins where they set it.
func ExampleDecideVerdict() {
	yes, no := true, false
	semantic := model.ClassSemantic
	ts := scoring.TraceScore{Correct: &yes, Grounded: &no, SuggestedClass: &semantic, NeedsHumanReview: true}

	pending := scoring.DecideVerdict(&model.Label{}, ts)
	fmt.Println(pending.State, *pending.Correct, *pending.Grounded, *pending.Class, pending.Review)

	// The person says grounded and leaves the class empty: no failure.
	partial := scoring.DecideVerdict(&model.Label{Grounded: &yes}, ts)
	fmt.Println(partial.State, *partial.Correct, partial.From.Correct, *partial.Grounded, partial.Class == nil)
	// Output:
	// label_pending true false semantic true
	// partly_labeled true scorer true true
}
