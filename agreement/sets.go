package agreement

// SetItem is one item rated with a set of values per rater, such as the
// fields a rater marked required. A rater who did not rate the item is
// absent from Sets; a rater present with an empty or nil slice rated it
// and chose the empty set.
type SetItem struct {
	ID   string
	Sets map[string][]string
}

// SetResult is the agreement on one set-valued field.
type SetResult struct {
	// Field names what was compared ("required", "forbidden"); Sets
	// leaves it empty for the caller to fill in.
	Field  string    `json:"field"`
	Raters []string  `json:"raters"`
	Pairs  []SetPair `json:"pairs"`
	// N and Jaccard pool every pair's items: the mean Jaccard index
	// over all (pair, item) comparisons.
	N       int  `json:"n"`
	Jaccard Stat `json:"jaccard"`
}

// SetPair is the agreement between two raters on a set-valued field.
type SetPair struct {
	A string `json:"a"`
	B string `json:"b"`
	// N is the number of items both rated.
	N int `json:"n"`
	// Jaccard is the mean over those items of |A∩B| / |A∪B|
	// (Jaccard 1901); undefined when N is 0.
	Jaccard Stat `json:"jaccard"`
}

// Sets computes mean Jaccard agreement per rater pair. Two empty sets
// count as full agreement (index 1): both raters said "no field", which
// is a judgement they share, and 0/0 would drop exactly the items where
// the raters agree most. Duplicate values in one rater's set count once.
// Raters works as in Ratings: when empty, every rater in items, sorted.
func Sets(raters []string, items []SetItem) SetResult {
	if len(raters) == 0 {
		seen := map[string]bool{}
		for _, it := range items {
			for rt := range it.Sets {
				seen[rt] = true
			}
		}
		raters = sortedKeys(seen)
	}
	res := SetResult{Raters: append([]string{}, raters...), Pairs: []SetPair{}}
	var total float64
	for i := range raters {
		for j := i + 1; j < len(raters); j++ {
			p := SetPair{A: raters[i], B: raters[j]}
			var sum float64
			for _, it := range items {
				a, okA := it.Sets[p.A]
				b, okB := it.Sets[p.B]
				if okA && okB {
					sum += jaccard(a, b)
					p.N++
				}
			}
			if p.N > 0 {
				p.Jaccard = Stat{Value: sum / float64(p.N), Defined: true}
			}
			res.Pairs = append(res.Pairs, p)
			res.N += p.N
			total += sum
		}
	}
	if res.N > 0 {
		res.Jaccard = Stat{Value: total / float64(res.N), Defined: true}
	}
	return res
}

// jaccard is |a∩b| / |a∪b| over distinct values, 1 for two empty sets.
func jaccard(a, b []string) float64 {
	inA := make(map[string]bool, len(a))
	for _, v := range a {
		inA[v] = true
	}
	inB := make(map[string]bool, len(b))
	both := 0
	for _, v := range b {
		if inB[v] {
			continue
		}
		inB[v] = true
		if inA[v] {
			both++
		}
	}
	union := len(inA) + len(inB) - both
	if union == 0 {
		return 1
	}
	return float64(both) / float64(union)
}
