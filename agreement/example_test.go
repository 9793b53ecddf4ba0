package agreement_test

import (
	"os"

	"github.com/tracelab-dev/tracelab/agreement"
)

// A caller builds one Ratings per field from the labels it holds: one
// Item per trace, one value per rater who labeled it, the machine's
// suggestion as one more rater. By hand: Fleiss' P_a = mean(1, 1/3, 1)
// = 7/9, π = (4/9, 5/9), κ = (63 − 41)/(81 − 41) = 0.55; alpha has n = 9,
// one disagreeing unit adding 2, α = 1 − 8·2/40 = 0.6. A pair's alpha:
// ana and bo have n = 6 values, 3 entity and 3 semantic, one disagreeing
// unit, α = 1 − 5·2/(36 − 18) = 0.444.
func Example() {
	r := agreement.Ratings{
		Raters:     []string{"ana", "bo", "tracelab"},
		Categories: []string{"entity", "semantic"},
		Items: []agreement.Item{
			{ID: "t1", Values: map[string]string{"ana": "entity", "bo": "entity", "tracelab": "entity"}},
			{ID: "t2", Values: map[string]string{"ana": "semantic", "bo": "entity", "tracelab": "semantic"}},
			{ID: "t3", Values: map[string]string{"ana": "semantic", "bo": "semantic", "tracelab": "semantic"}},
			{ID: "t4", Values: map[string]string{"tracelab": "entity"}}, // nobody reviewed it yet
		},
	}
	res := agreement.Nominal(r)
	rep := agreement.Report{By: "class", Nominal: &res, Machine: "tracelab", Trust: agreement.MachineTrust(r, "tracelab")}
	if err := rep.WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// Agreement by class
	// 3 raters, 4 items rated
	//
	// Across all raters
	//   Fleiss' kappa         0.550  3 items, 3 ratings each
	//   Krippendorff's alpha  0.600  3 items, 9 values
	//
	// Rater pairs
	//   rater  rater     items  agreement  kappa  alpha
	//   ana    bo            3      66.7%  0.400  0.444
	//   ana    tracelab      3     100.0%  1.000  1.000
	//   bo     tracelab      3      66.7%  0.400  0.444
	//
	// Confusion: ana (rows) by bo (columns)
	//             entity  semantic
	//   entity         1         0
	//   semantic       1         1
	//
	// Confusion: ana (rows) by tracelab (columns)
	//             entity  semantic
	//   entity         1         0
	//   semantic       0         2
	//
	// Confusion: bo (rows) by tracelab (columns)
	//             entity  semantic
	//   entity         1         1
	//   semantic       0         1
	//
	// Trust in tracelab's suggestions
	//   trust: the share of the other raters' labels that matched the suggestion
	//   class     suggested  rated  ratings  agreed   trust
	//   entity            2      1        2       2  100.0%
	//   semantic          2      2        4       3   75.0%
	//   all               4      3        6       5   83.3%
}
