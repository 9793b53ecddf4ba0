package agreement

import (
	"slices"
)

// Ratings is one nominal field as rated by several raters.
type Ratings struct {
	// Raters in the order the report lists them. When empty, every rater
	// found in Items is used, sorted by name. Values of raters not listed
	// are ignored, so a caller can leave one rater out without copying
	// the items; a rater listed twice counts once.
	Raters []string
	// Categories known in advance (the five failure classes, true and
	// false), listed first and in this order even when nobody used them,
	// so confusion matrices have the same shape from run to run. Values
	// found in Items that are not listed follow, sorted.
	Categories []string
	Items      []Item
}

// Item is one rated unit (a trace). Values maps a rater to the category
// the rater chose; a rater who did not rate the item is absent. An empty
// string counts as absent too, because it is how an unset label reads.
type Item struct {
	ID     string
	Values map[string]string
}

// value is the one place that decides whether rater rated it.
func (it Item) value(rater string) (string, bool) {
	v, ok := it.Values[rater]
	return v, ok && v != ""
}

// Result is the agreement on one nominal field.
type Result struct {
	Raters     []string `json:"raters"`
	Categories []string `json:"categories"`
	// Items is the number of items at least one listed rater rated.
	Items  int    `json:"items"`
	Pairs  []Pair `json:"pairs"`
	Fleiss Fleiss `json:"fleiss"`
	Alpha  Alpha  `json:"krippendorff"`
}

// Pair is the agreement between two raters over the items both rated.
type Pair struct {
	A string `json:"a"`
	B string `json:"b"`
	// N is the number of items both A and B rated.
	N int `json:"n"`
	// Agreement is the share of those items with the same category.
	Agreement Stat `json:"agreement"`
	// Kappa is Cohen's kappa; undefined when N is 0 or when both raters
	// used one and the same category throughout (expected agreement 1).
	Kappa Stat `json:"kappa"`
	// Alpha is Krippendorff's alpha over the items both rated, so a pair
	// reads like the whole group (undefined as Kappa is).
	Alpha Stat `json:"alpha"`
	// Confusion[i][j] counts items A put in Categories[i] and B in
	// Categories[j].
	Confusion [][]int `json:"confusion"`
}

// Fleiss is Fleiss' kappa across all raters.
//
// Fleiss (1971) assumes every item has the same number of ratings; here
// raters may skip items. Items with fewer than two ratings are left out,
// as Krippendorff's alpha leaves out unpairable values, and the rest use
// the generalised form of Gwet (2014, Handbook of Inter-Rater
// Reliability, 4th ed.; R package irrCAC, fleiss.kappa.raw): observed
// agreement P_a is the mean over items of Σ_k r_ik(r_ik−1) / (r_i(r_i−1)),
// so each item is judged by its own count r_i, and the chance shares π_k
// are the mean over items of r_ik / r_i, so an item counts once however
// many raters it had; P_e = Σ_k π_k². With a constant count this is
// exactly Fleiss (1971).
//
// Gwet takes π_k over single-rated items too. tracelab does not: most
// traces carry only the machine's suggestion, and letting those set the
// chance shares would measure the people's agreement against the
// machine's class mix on traces nobody reviewed (and can push κ far
// below −1). MinRaters and MaxRaters show whether the count was
// constant; where it varies, Krippendorff's alpha is the statistic
// designed for missing values.
type Fleiss struct {
	Kappa Stat `json:"kappa"`
	// Items is the number of items with at least two ratings.
	Items     int `json:"items"`
	MinRaters int `json:"min_raters"`
	MaxRaters int `json:"max_raters"`
}

// Alpha is Krippendorff's alpha for nominal data, missing values allowed.
type Alpha struct {
	Alpha Stat `json:"alpha"`
	// Units is the number of pairable items (at least two ratings) and
	// Values the number of ratings in them: n in Krippendorff's notation.
	Units  int `json:"units"`
	Values int `json:"values"`
}

// Nominal computes every nominal statistic for r.
func Nominal(r Ratings) Result {
	raters := raterList(r.Raters, r.Items)
	cats := categoryList(r.Categories, raters, r.Items)
	index := make(map[string]int, len(cats))
	for i, c := range cats {
		index[c] = i
	}
	res := Result{Raters: raters, Categories: cats, Pairs: []Pair{}}
	// counts[u][c] is how many raters put rated item u in category c.
	var counts [][]int
	for _, it := range r.Items {
		row := make([]int, len(cats))
		m := 0
		for _, rt := range raters {
			if v, ok := it.value(rt); ok {
				row[index[v]]++
				m++
			}
		}
		if m > 0 {
			res.Items++
			counts = append(counts, row)
		}
	}
	for i := range raters {
		for j := i + 1; j < len(raters); j++ {
			res.Pairs = append(res.Pairs, cohen(raters[i], raters[j], index, r.Items))
		}
	}
	res.Fleiss = fleiss(counts, len(cats))
	res.Alpha = krippendorff(counts, len(cats))
	return res
}

// raterList is the raters as given, or every rater in items, sorted.
func raterList(given []string, items []Item) []string {
	if len(given) > 0 {
		// A rater listed twice would be paired with itself.
		var list []string
		for _, rt := range given {
			if !slices.Contains(list, rt) {
				list = append(list, rt)
			}
		}
		return list
	}
	seen := map[string]bool{}
	for _, it := range items {
		for rt := range it.Values {
			seen[rt] = true
		}
	}
	return sortedKeys(seen)
}

// categoryList is the known categories, then every other value the
// listed raters used, sorted.
func categoryList(known, raters []string, items []Item) []string {
	cats := []string{}
	listed := map[string]bool{}
	for _, c := range known {
		if c != "" && !listed[c] {
			listed[c] = true
			cats = append(cats, c)
		}
	}
	extra := map[string]bool{}
	for _, it := range items {
		for _, rt := range raters {
			if v, ok := it.value(rt); ok && !listed[v] {
				extra[v] = true
			}
		}
	}
	return append(cats, sortedKeys(extra)...)
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// cohen is Cohen's (1960) kappa for raters a and b over the items both
// rated: κ = (p_o − p_e) / (1 − p_e), with p_o the observed share of
// agreement and p_e = Σ_c p_a(c)·p_b(c) the agreement expected from each
// rater's own marginals. Multiplying through by N² keeps it in integers,
// κ = (N·Σ_c x_cc − Σ_c r_c·k_c) / (N² − Σ_c r_c·k_c), so "p_e is 1"
// (both raters used one single category) is an exact test.
func cohen(a, b string, index map[string]int, items []Item) Pair {
	k := len(index)
	p := Pair{A: a, B: b, Confusion: make([][]int, k)}
	for i := range p.Confusion {
		p.Confusion[i] = make([]int, k)
	}
	for _, it := range items {
		va, okA := it.value(a)
		vb, okB := it.value(b)
		if okA && okB {
			p.Confusion[index[va]][index[vb]]++
			p.N++
		}
	}
	n := int64(p.N)
	var diag, chance int64
	for c := range k {
		diag += int64(p.Confusion[c][c])
		var row, col int64
		for x := range k {
			row += int64(p.Confusion[c][x])
			col += int64(p.Confusion[x][c])
		}
		chance += row * col
	}
	p.Agreement = ratio(diag, n)
	p.Kappa = ratio(n*diag-chance, n*n-chance)
	p.Alpha = pairAlpha(p.Confusion)
	return p
}

// pairAlpha is Krippendorff's alpha of two raters from their confusion
// matrix: each item both rated is a unit of two values.
func pairAlpha(conf [][]int) Stat {
	counts := make([][]int, 0, len(conf))
	for i := range conf {
		for j, x := range conf[i] {
			for range x {
				row := make([]int, len(conf))
				row[i]++
				row[j]++
				counts = append(counts, row)
			}
		}
	}
	return krippendorff(counts, len(conf)).Alpha
}

// fleiss is the generalised Fleiss kappa (see Fleiss) over rated items
// given as category counts: κ = (P_a − P_e) / (1 − P_e). It is
// undefined when no item has two ratings and when every rating is one
// category (then P_e = 1), which is tested exactly on the counts.
func fleiss(counts [][]int, k int) Fleiss {
	var f Fleiss
	perCat := make([]int64, k)
	pi := make([]float64, k)
	var sumPa float64
	var total int64
	for _, row := range counts {
		n, sq := tally(row)
		if n < 2 {
			continue
		}
		total += n
		for c, x := range row {
			perCat[c] += int64(x)
			pi[c] += float64(x) / float64(n)
		}
		sumPa += float64(sq-n) / float64(n*(n-1))
		if f.Items == 0 || int(n) < f.MinRaters {
			f.MinRaters = int(n)
		}
		f.MaxRaters = max(f.MaxRaters, int(n))
		f.Items++
	}
	if f.Items == 0 || slices.Max(perCat) == total {
		return f
	}
	var pe float64
	for _, p := range pi {
		p /= float64(f.Items)
		pe += p * p
	}
	pa := sumPa / float64(f.Items)
	f.Kappa = Stat{Value: (pa - pe) / (1 - pe), Defined: true}
	return f
}

// krippendorff is Krippendorff's alpha for nominal data over pairable
// units given as category counts (Krippendorff 2011, "Computing
// Krippendorff's Alpha-Reliability", section C). Each unit u with m_u
// values adds n_uc·(n_uk − [c=k]) / (m_u − 1) to the coincidence o_ck;
// n_c = Σ_k o_ck and n = Σ_c n_c. Then
//
//	α = 1 − (n − 1) · Σ_{c≠k} o_ck / Σ_{c≠k} n_c·n_k.
//
// Σ_{c≠k} o_ck is Σ_u (m_u² − Σ_c n_uc²) / (m_u − 1) and Σ_{c≠k} n_c·n_k
// is n² − Σ_c n_c², so no matrix is built. α is undefined when the
// expected disagreement is 0: no pairable values, or all in one category.
func krippendorff(counts [][]int, k int) Alpha {
	var a Alpha
	perCat := make([]int64, k)
	var observed float64
	var n int64
	for _, row := range counts {
		m, sq := tally(row)
		if m < 2 {
			continue // a unit with one value is not pairable
		}
		for c, x := range row {
			perCat[c] += int64(x)
		}
		a.Units++
		n += m
		observed += float64(m*m-sq) / float64(m-1)
	}
	a.Values = int(n)
	var sq int64
	for _, x := range perCat {
		sq += x * x
	}
	expected := n*n - sq
	if expected == 0 {
		return a
	}
	a.Alpha = Stat{Value: 1 - float64(n-1)*observed/float64(expected), Defined: true}
	return a
}

// tally returns one item's number of ratings and the sum of its squared
// category counts: what Fleiss' kappa and Krippendorff's alpha both need
// from each item.
func tally(row []int) (n, sq int64) {
	for _, x := range row {
		n += int64(x)
		sq += int64(x) * int64(x)
	}
	return n, sq
}
