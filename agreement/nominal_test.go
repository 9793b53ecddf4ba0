package agreement

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// fromConfusion turns a two-rater contingency table (rows rater "A",
// columns rater "B") into ratings, one item per counted pair.
func fromConfusion(cats []string, m [][]int) Ratings {
	r := Ratings{Raters: []string{"A", "B"}, Categories: cats}
	for i := range m {
		for j, n := range m[i] {
			for range n {
				r.Items = append(r.Items, Item{ID: fmt.Sprint(len(r.Items)), Values: map[string]string{"A": cats[i], "B": cats[j]}})
			}
		}
	}
	return r
}

// fromCounts turns Fleiss-style rows (how many raters chose each
// category) into ratings; which rater chose what does not matter to
// Fleiss' kappa or Krippendorff's alpha, so raters are r1, r2, … in order.
func fromCounts(cats []string, counts [][]int) Ratings {
	var r Ratings
	r.Categories = cats
	for u, row := range counts {
		it := Item{ID: fmt.Sprint(u), Values: map[string]string{}}
		k := 0
		for c, n := range row {
			for range n {
				k++
				it.Values[fmt.Sprintf("r%02d", k)] = cats[c]
			}
		}
		r.Items = append(r.Items, it)
	}
	return r
}

// fromColumns builds ratings from a raters × items table in which ""
// is a missing value.
func fromColumns(raters []string, rows [][]string) Ratings {
	r := Ratings{Raters: raters}
	for u := range rows[0] {
		it := Item{ID: fmt.Sprint(u + 1), Values: map[string]string{}}
		for i, rt := range raters {
			if v := rows[i][u]; v != "" {
				it.Values[rt] = v
			}
		}
		r.Items = append(r.Items, it)
	}
	return r
}

// want is an expected statistic: a value to tol, or undefined.
type want struct {
	v       float64
	defined bool
}

func val(v float64) want { return want{v, true} }

var undefined = want{}

func checkStat(t *testing.T, what string, got Stat, w want, tol float64) {
	t.Helper()
	if got.Defined != w.defined {
		t.Errorf("%s: defined %v, want %v (value %v)", what, got.Defined, w.defined, got.Value)
		return
	}
	if got.Defined && math.Abs(got.Value-w.v) > tol {
		t.Errorf("%s = %.6f, want %.6f ± %g", what, got.Value, w.v, tol)
	}
}

// TestCohenLiterature checks Cohen's kappa against published worked
// examples of 2×2 tables.
func TestCohenLiterature(t *testing.T) {
	yn := []string{"yes", "no"}
	cases := []struct {
		name      string
		m         [][]int
		agreement float64
		kappa     float64
		tol       float64
	}{
		// Wikipedia "Cohen's kappa", simple example (also howcodex.com,
		// "Cohen's kappa coefficient"): 50 grant proposals, two readers;
		// p_o = 0.70, p_e = 0.50, κ = 0.40.
		{"wikipedia grant proposals", [][]int{{20, 5}, {10, 15}}, 0.70, 0.40, 1e-12},
		// Wikipedia "Cohen's kappa", same agreement different kappa: both
		// tables have p_o = 0.60; κ = 0.1304 and κ = 0.2593.
		{"wikipedia same agreement 1", [][]int{{45, 15}, {25, 15}}, 0.60, 0.1304, 5e-5},
		{"wikipedia same agreement 2", [][]int{{25, 35}, {5, 35}}, 0.60, 0.2593, 5e-5},
		// easycalculation.com, "Cohen's kappa index": 20 patients, two
		// doctors; Pr(a) = 0.70, Pr(e) = 0.62, κ = 0.08/0.38 = 0.21.
		{"easycalculation doctors", [][]int{{12, 4}, {2, 2}}, 0.70, 0.08 / 0.38, 1e-12},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Nominal(fromConfusion(yn, tc.m))
			if len(res.Pairs) != 1 {
				t.Fatalf("%d pairs, want 1", len(res.Pairs))
			}
			p := res.Pairs[0]
			checkStat(t, "agreement", p.Agreement, val(tc.agreement), 1e-12)
			checkStat(t, "kappa", p.Kappa, val(tc.kappa), tc.tol)
			if !slices.EqualFunc(p.Confusion, tc.m, slices.Equal) {
				t.Errorf("confusion %v, want %v", p.Confusion, tc.m)
			}
		})
	}
}

// TestFleissLiterature is the worked example of Wikipedia's "Fleiss'
// kappa" article: 10 subjects, 14 raters each, 5 categories; P̄ = 0.378,
// P_e = 0.213, κ = 0.210.
func TestFleissLiterature(t *testing.T) {
	counts := [][]int{
		{0, 0, 0, 0, 14},
		{0, 2, 6, 4, 2},
		{0, 0, 3, 5, 6},
		{0, 3, 9, 2, 0},
		{2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0},
		{3, 2, 6, 3, 0},
		{2, 5, 3, 2, 2},
		{6, 5, 2, 1, 0},
		{0, 2, 2, 3, 7},
	}
	res := Nominal(fromCounts([]string{"1", "2", "3", "4", "5"}, counts))
	checkStat(t, "fleiss", res.Fleiss.Kappa, val(0.210), 5e-4)
	if res.Fleiss.Items != 10 || res.Fleiss.MinRaters != 14 || res.Fleiss.MaxRaters != 14 {
		t.Errorf("fleiss over %+v, want 10 items of 14 ratings", res.Fleiss)
	}
}

// TestKrippendorffBinary is the first example of Krippendorff (2011),
// "Computing Krippendorff's Alpha-Reliability", section A (binary data,
// two observers, no missing data): 10 units, 4 disagreements, n = 20,
// n_0 = 14, n_1 = 6; α = 1 − 19·8/168 = 0.095.
func TestKrippendorffBinary(t *testing.T) {
	r := fromColumns([]string{"A", "B"}, [][]string{
		{"0", "1", "0", "0", "0", "0", "0", "0", "1", "0"},
		{"1", "1", "1", "0", "0", "1", "0", "0", "0", "0"},
	})
	res := Nominal(r)
	checkStat(t, "alpha", res.Alpha.Alpha, val(0.095), 5e-4)
	checkStat(t, "alpha exact", res.Alpha.Alpha, val(1-19.0*8/168), 1e-12)
}

// TestKrippendorffLiterature is the nominal example with missing values
// of Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability",
// section C (the same data are the "C" example of R's irr::kripp.alpha
// and DescTools::KrippAlpha): 4 observers, 12 units, one unit with a
// single value; n = 40 pairable values, α = 0.743.
func TestKrippendorffLiterature(t *testing.T) {
	r := fromColumns([]string{"A", "B", "C", "D"}, [][]string{
		{"1", "2", "3", "3", "2", "1", "4", "1", "2", "", "", ""},
		{"1", "2", "3", "3", "2", "2", "4", "1", "2", "5", "", "3"},
		{"", "3", "3", "3", "2", "3", "4", "2", "2", "5", "1", ""},
		{"1", "2", "3", "3", "2", "4", "4", "1", "2", "5", "1", ""},
	})
	res := Nominal(r)
	checkStat(t, "alpha", res.Alpha.Alpha, val(0.743), 5e-4)
	if res.Alpha.Units != 11 || res.Alpha.Values != 40 {
		t.Errorf("alpha over %d units, %d values; want 11, 40", res.Alpha.Units, res.Alpha.Values)
	}
	if res.Items != 12 {
		t.Errorf("items %d, want 12", res.Items)
	}
}

// TestNominalHandComputed covers the cases worked out by hand in the
// comments; expected values are exact fractions.
func TestNominalHandComputed(t *testing.T) {
	type pairWant struct {
		a, b             string
		n                int
		agreement, kappa want
	}
	cases := []struct {
		name        string
		r           Ratings
		items       int
		pairs       []pairWant
		fleiss      want
		fleissOver  [3]int // items, min, max raters
		alpha       want
		alphaOver   [2]int // units, values
		categories  []string
		confusionAB [][]int
	}{
		{
			// A: x x y y, B: x y y y. p_o = 3/4, p_e = (2·1+2·3)/16 = 1/2,
			// κ = 1/2. Fleiss: P̄ = 3/4, p = (3/8, 5/8), P_e = 34/64,
			// κ = (3/4 − 34/64)/(30/64) = 14/30. Alpha: n = 8, Σ_{c≠k} o = 2,
			// n_x = 3, n_y = 5, α = 1 − 7·2/(64 − 9 − 25) = 1 − 14/30.
			name: "two raters",
			r: fromColumns([]string{"A", "B"}, [][]string{
				{"x", "x", "y", "y"},
				{"x", "y", "y", "y"},
			}),
			items:  4,
			pairs:  []pairWant{{"A", "B", 4, val(0.75), val(0.5)}},
			fleiss: val(14.0 / 30), fleissOver: [3]int{4, 2, 2},
			alpha: val(1 - 14.0/30), alphaOver: [2]int{4, 8},
			categories:  []string{"x", "y"},
			confusionAB: [][]int{{1, 1}, {0, 2}},
		},
		{
			// The same with a category z known in advance that nobody
			// used: an empty row and column, and no statistic moves.
			name: "a class nobody used",
			r: func() Ratings {
				r := fromColumns([]string{"A", "B"}, [][]string{
					{"x", "x", "y", "y"},
					{"x", "y", "y", "y"},
				})
				r.Categories = []string{"z", "x"}
				return r
			}(),
			items:  4,
			pairs:  []pairWant{{"A", "B", 4, val(0.75), val(0.5)}},
			fleiss: val(14.0 / 30), fleissOver: [3]int{4, 2, 2},
			alpha: val(1 - 14.0/30), alphaOver: [2]int{4, 8},
			categories:  []string{"z", "x", "y"},
			confusionAB: [][]int{{0, 0, 0}, {0, 1, 1}, {0, 0, 2}},
		},
		{
			// Three raters with missing labels and one item only b rated.
			// a–b over 1,2,3: p_o = 2/3, κ = (3·2 − 4)/(9 − 4) = 2/5.
			// a–c over 1,2,4: c said x throughout, κ = (3·2 − 6)/(9 − 6) = 0.
			// b–c over 1,2: κ = (2·1 − 2)/(4 − 2) = 0.
			// Fleiss over items 1–4 (2 or 3 ratings): P_a = mean(1, 1/3, 1,
			// 0) = 7/12; π_x = (1 + 2/3 + 0 + 1/2)/4 = 13/24, π_y = 11/24,
			// P_e = 290/576, κ = (336 − 290)/(576 − 290) = 23/143.
			// Alpha: n = 10, Σ_{c≠k} o = 0 + 4/2 + 0 + 2 = 4,
			// α = 1 − 9·4/(100 − 36 − 16) = 1/4.
			name: "three raters, missing labels",
			r: fromColumns([]string{"a", "b", "c"}, [][]string{
				{"x", "x", "y", "y", ""},
				{"x", "y", "y", "", "x"},
				{"x", "x", "", "x", ""},
			}),
			items: 5,
			pairs: []pairWant{
				{"a", "b", 3, val(2.0 / 3), val(0.4)},
				{"a", "c", 3, val(2.0 / 3), val(0)},
				{"b", "c", 2, val(0.5), val(0)},
			},
			fleiss: val(23.0 / 143), fleissOver: [3]int{4, 2, 3},
			alpha: val(0.25), alphaOver: [2]int{4, 10},
			categories:  []string{"x", "y"},
			confusionAB: [][]int{{1, 1}, {0, 1}},
		},
		{
			// Five traces only A rated (as the machine's suggestion is on
			// every trace) leave every statistic as it is on the three
			// both rated. Fleiss: P_a = 2/3, π = (1/2, 1/2), κ = 1/3.
			// Alpha: n = 6, Σ_{c≠k} o = 2, α = 1 − 5·2/18 = 4/9. Cohen:
			// κ = (3·2 − 4)/(9 − 4) = 2/5.
			name: "single-rated items",
			r: fromColumns([]string{"A", "B"}, [][]string{
				{"x", "y", "x", "x", "x", "x", "x", "x"},
				{"x", "y", "y", "", "", "", "", ""},
			}),
			items:  8,
			pairs:  []pairWant{{"A", "B", 3, val(2.0 / 3), val(0.4)}},
			fleiss: val(1.0 / 3), fleissOver: [3]int{3, 2, 2},
			alpha: val(4.0 / 9), alphaOver: [2]int{3, 6},
			categories:  []string{"x", "y"},
			confusionAB: [][]int{{1, 1}, {0, 1}},
		},
		{
			// A rater listed twice is one rater: one pair, not three.
			name: "rater listed twice",
			r: fromColumns([]string{"A", "B", "A"}, [][]string{
				{"x", "y"},
				{"x", "y"},
				{"x", "y"},
			}),
			items:  2,
			pairs:  []pairWant{{"A", "B", 2, val(1), val(1)}},
			fleiss: val(1), fleissOver: [3]int{2, 2, 2},
			alpha: val(1), alphaOver: [2]int{2, 4},
			categories:  []string{"x", "y"},
			confusionAB: [][]int{{1, 0}, {0, 1}},
		},
		{
			name: "perfect agreement",
			r: fromColumns([]string{"A", "B", "C"}, [][]string{
				{"x", "y", "x", "z"},
				{"x", "y", "x", "z"},
				{"x", "y", "x", "z"},
			}),
			items:  4,
			pairs:  []pairWant{{"A", "B", 4, val(1), val(1)}, {"A", "C", 4, val(1), val(1)}, {"B", "C", 4, val(1), val(1)}},
			fleiss: val(1), fleissOver: [3]int{4, 3, 3},
			alpha: val(1), alphaOver: [2]int{4, 12},
			categories:  []string{"x", "y", "z"},
			confusionAB: [][]int{{2, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		},
		{
			// A: x x y y, B: x y x y: p_o = p_e = 1/2, κ = 0; Fleiss P̄ =
			// P_e = 1/2, κ = 0. Alpha corrects for the small sample:
			// n = 8, Σ_{c≠k} o = 4, α = 1 − 7·4/32 = 1/8.
			name: "chance-level agreement",
			r: fromColumns([]string{"A", "B"}, [][]string{
				{"x", "x", "y", "y"},
				{"x", "y", "x", "y"},
			}),
			items:  4,
			pairs:  []pairWant{{"A", "B", 4, val(0.5), val(0)}},
			fleiss: val(0), fleissOver: [3]int{4, 2, 2},
			alpha: val(0.125), alphaOver: [2]int{4, 8},
			categories:  []string{"x", "y"},
			confusionAB: [][]int{{1, 1}, {1, 1}},
		},
		{
			// Everybody always says x: agreement is total, but chance
			// agreement is 1 too, so every kappa and alpha is 0/0.
			name: "all raters always one class",
			r: fromColumns([]string{"A", "B"}, [][]string{
				{"x", "x", "x"},
				{"x", "x", "x"},
			}),
			items:  3,
			pairs:  []pairWant{{"A", "B", 3, val(1), undefined}},
			fleiss: undefined, fleissOver: [3]int{3, 2, 2},
			alpha: undefined, alphaOver: [2]int{3, 6},
			categories:  []string{"x"},
			confusionAB: [][]int{{3}},
		},
		{
			// Two raters who never rated the same item: nothing to compare.
			name: "no overlap",
			r: fromColumns([]string{"A", "B"}, [][]string{
				{"x", ""},
				{"", "y"},
			}),
			items:       2,
			pairs:       []pairWant{{"A", "B", 0, undefined, undefined}},
			fleiss:      undefined,
			alpha:       undefined,
			categories:  []string{"x", "y"},
			confusionAB: [][]int{{0, 0}, {0, 0}},
		},
		{
			// No raters given: every rater found, sorted; an empty value
			// is an unset label, so "z" is not a category and bo's rating
			// of item 2 is missing.
			name: "raters found in items",
			r: Ratings{Items: []Item{
				{ID: "1", Values: map[string]string{"bo": "x", "ana": "x"}},
				{ID: "2", Values: map[string]string{"bo": "", "ana": "y"}},
				{ID: "3", Values: map[string]string{"bo": "y", "ana": "y"}},
			}},
			items:  3,
			pairs:  []pairWant{{"ana", "bo", 2, val(1), val(1)}},
			fleiss: val(1), fleissOver: [3]int{2, 2, 2},
			alpha: val(1), alphaOver: [2]int{2, 4},
			categories:  []string{"x", "y"},
			confusionAB: [][]int{{1, 0}, {0, 1}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Nominal(tc.r)
			if res.Items != tc.items {
				t.Errorf("items %d, want %d", res.Items, tc.items)
			}
			if !slices.Equal(res.Categories, tc.categories) {
				t.Errorf("categories %q, want %q", res.Categories, tc.categories)
			}
			if len(res.Pairs) != len(tc.pairs) {
				t.Fatalf("%d pairs, want %d", len(res.Pairs), len(tc.pairs))
			}
			for i, w := range tc.pairs {
				p := res.Pairs[i]
				if p.A != w.a || p.B != w.b || p.N != w.n {
					t.Errorf("pair %d is %s–%s over %d, want %s–%s over %d", i, p.A, p.B, p.N, w.a, w.b, w.n)
				}
				checkStat(t, p.A+"–"+p.B+" agreement", p.Agreement, w.agreement, 1e-12)
				checkStat(t, p.A+"–"+p.B+" kappa", p.Kappa, w.kappa, 1e-12)
			}
			if got := res.Pairs[0].Confusion; !slices.EqualFunc(got, tc.confusionAB, slices.Equal) {
				t.Errorf("first confusion %v, want %v", got, tc.confusionAB)
			}
			checkStat(t, "fleiss", res.Fleiss.Kappa, tc.fleiss, 1e-12)
			if got := [3]int{res.Fleiss.Items, res.Fleiss.MinRaters, res.Fleiss.MaxRaters}; got != tc.fleissOver {
				t.Errorf("fleiss over %v, want %v", got, tc.fleissOver)
			}
			checkStat(t, "alpha", res.Alpha.Alpha, tc.alpha, 1e-12)
			if got := [2]int{res.Alpha.Units, res.Alpha.Values}; got != tc.alphaOver {
				t.Errorf("alpha over %v, want %v", got, tc.alphaOver)
			}
		})
	}
}
