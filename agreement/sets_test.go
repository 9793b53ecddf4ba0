package agreement

import "testing"

func TestSets(t *testing.T) {
	// a–b: J({f1,f2},{f2,f3}) = 1/3, two empty sets = 1, {f1,f1} is {f1}
	// so 1; item 3 only a rated. a–c and b–c meet on item 1 only, 1/2
	// each. Pooled: (1/3 + 1 + 1 + 1/2 + 1/2) / 5 = 2/3.
	items := []SetItem{
		{ID: "1", Sets: map[string][]string{"a": {"f1", "f2"}, "b": {"f2", "f3"}, "c": {"f2"}}},
		{ID: "2", Sets: map[string][]string{"a": {}, "b": nil}},
		{ID: "3", Sets: map[string][]string{"a": {"f1"}}},
		{ID: "4", Sets: map[string][]string{"a": {"f1", "f1"}, "b": {"f1"}}},
	}
	cases := []struct {
		name   string
		raters []string
		pairs  []SetPair
		n      int
		mean   want
	}{
		{"all raters found", nil, []SetPair{
			{A: "a", B: "b", N: 3, Jaccard: Stat{7.0 / 9, true}},
			{A: "a", B: "c", N: 1, Jaccard: Stat{0.5, true}},
			{A: "b", B: "c", N: 1, Jaccard: Stat{0.5, true}},
		}, 5, val(2.0 / 3)},
		{"a rater who rated nothing", []string{"a", "z"}, []SetPair{
			{A: "a", B: "z", N: 0},
		}, 0, undefined},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Sets(tc.raters, items)
			if len(res.Pairs) != len(tc.pairs) {
				t.Fatalf("%d pairs, want %d", len(res.Pairs), len(tc.pairs))
			}
			for i, w := range tc.pairs {
				p := res.Pairs[i]
				if p.A != w.A || p.B != w.B || p.N != w.N {
					t.Errorf("pair %d is %s–%s over %d, want %s–%s over %d", i, p.A, p.B, p.N, w.A, w.B, w.N)
				}
				checkStat(t, p.A+"–"+p.B, p.Jaccard, want{w.Jaccard.Value, w.Jaccard.Defined}, 1e-12)
			}
			if res.N != tc.n {
				t.Errorf("pooled n %d, want %d", res.N, tc.n)
			}
			checkStat(t, "pooled", res.Jaccard, tc.mean, 1e-12)
		})
	}
}

func TestJaccard(t *testing.T) {
	cases := []struct {
		a, b []string
		want float64
	}{
		{nil, nil, 1},
		{[]string{"x"}, nil, 0},
		{[]string{"x", "y"}, []string{"y", "x"}, 1},
		{[]string{"x", "y", "z"}, []string{"z", "w"}, 0.25},
		{[]string{"x", "x"}, []string{"x", "y", "y"}, 0.5},
	}
	for _, tc := range cases {
		if got := jaccard(tc.a, tc.b); got != tc.want {
			t.Errorf("jaccard(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := jaccard(tc.b, tc.a); got != tc.want {
			t.Errorf("jaccard(%q, %q) = %v, want %v (not symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}
