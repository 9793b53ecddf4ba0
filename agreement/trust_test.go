package agreement

import (
	"slices"
	"testing"
)

func TestMachineTrust(t *testing.T) {
	// tracelab suggested x on items 1 and 2: ana and bo agreed on 1, ana
	// disagreed on 2, so 2 of 3 ratings. It suggested y on 3 and 4: bo
	// agreed on 3, nobody rated 4. Item 5 has no suggestion and item 6 a
	// suggestion nobody rated, which counts as suggested only.
	r := Ratings{
		Raters:     []string{"tracelab", "ana", "bo"},
		Categories: []string{"y", "x", "unused"},
		Items: []Item{
			{ID: "1", Values: map[string]string{"tracelab": "x", "ana": "x", "bo": "x"}},
			{ID: "2", Values: map[string]string{"tracelab": "x", "ana": "y"}},
			{ID: "3", Values: map[string]string{"tracelab": "y", "bo": "y"}},
			{ID: "4", Values: map[string]string{"tracelab": "y"}},
			{ID: "5", Values: map[string]string{"ana": "x"}},
			{ID: "6", Values: map[string]string{"tracelab": "z"}},
		},
	}
	got := MachineTrust(r, "tracelab")
	want := []ClassTrust{
		{Class: "y", Suggested: 2, Rated: 1, Ratings: 1, Agreed: 1, Trust: Stat{1, true}},
		{Class: "x", Suggested: 2, Rated: 2, Ratings: 3, Agreed: 2, Trust: Stat{2.0 / 3, true}},
		{Class: "z", Suggested: 1},
	}
	if !slices.Equal(got, want) {
		t.Errorf("trust\n got %+v\nwant %+v", got, want)
	}
	total := TrustTotal(got)
	if w := (ClassTrust{Class: "all", Suggested: 5, Rated: 3, Ratings: 4, Agreed: 3, Trust: Stat{0.75, true}}); total != w {
		t.Errorf("total %+v, want %+v", total, w)
	}
	// Leaving bo out of Raters counts ana only.
	r.Raters = []string{"tracelab", "ana"}
	got = MachineTrust(r, "tracelab")
	if x := got[1]; x.Class != "x" || x.Ratings != 2 || x.Agreed != 1 {
		t.Errorf("ana only: %+v, want 1 of 2 on x", x)
	}
	if got := MachineTrust(r, "nobody"); len(got) != 0 {
		t.Errorf("absent machine: %+v, want none", got)
	}
}
