package agreement

// ClassTrust is how far the machine's suggestion of one class was borne
// out by the other raters.
type ClassTrust struct {
	// Class is the category the machine suggested.
	Class string `json:"class"`
	// Suggested is the number of items the machine put in Class.
	Suggested int `json:"suggested"`
	// Rated is how many of those items at least one other rater rated.
	Rated int `json:"rated"`
	// Ratings is the number of other raters' ratings on those items
	// (an item two people rated counts twice), Agreed how many of them
	// chose Class too.
	Ratings int `json:"ratings"`
	Agreed  int `json:"agreed"`
	// Trust is Agreed / Ratings: the share of human judgements that
	// confirmed the suggestion; undefined when nobody rated those items.
	Trust Stat `json:"trust"`
}

// MachineTrust says, per class the machine rater suggested, how often
// the other raters agreed. Every listed rater other than machine counts
// (a judge too; leave it out of r.Raters to count people only). Classes
// come in the order of Nominal's categories.
func MachineTrust(r Ratings, machine string) []ClassTrust {
	var others []string
	for _, rt := range raterList(r.Raters, r.Items) {
		if rt != machine {
			others = append(others, rt)
		}
	}
	byClass := map[string]*ClassTrust{}
	for _, it := range r.Items {
		mv, ok := it.value(machine)
		if !ok {
			continue
		}
		t := byClass[mv]
		if t == nil {
			t = &ClassTrust{Class: mv}
			byClass[mv] = t
		}
		t.Suggested++
		rated := false
		for _, rt := range others {
			if v, ok := it.value(rt); ok {
				rated = true
				t.Ratings++
				if v == mv {
					t.Agreed++
				}
			}
		}
		if rated {
			t.Rated++
		}
	}
	out := []ClassTrust{}
	for _, c := range categoryList(r.Categories, []string{machine}, r.Items) {
		if t := byClass[c]; t != nil {
			t.Trust = ratio(int64(t.Agreed), int64(t.Ratings))
			out = append(out, *t)
		}
	}
	return out
}

// TrustTotal sums per-class trust into one line over all classes.
func TrustTotal(ts []ClassTrust) ClassTrust {
	total := ClassTrust{Class: "all"}
	for _, t := range ts {
		total.Suggested += t.Suggested
		total.Rated += t.Rated
		total.Ratings += t.Ratings
		total.Agreed += t.Agreed
	}
	total.Trust = ratio(int64(total.Agreed), int64(total.Ratings))
	return total
}
