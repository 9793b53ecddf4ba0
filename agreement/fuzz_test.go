package agreement

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// fuzzRatings decodes bytes into ratings: the first byte picks 1–5
// raters, the second 1–4 categories, and each further byte one rater's
// value for one item (0 is missing). name is mixed into one rater's and
// one category's name so the renderers see arbitrary text.
func fuzzRatings(data []byte, name string) Ratings {
	if len(data) < 2 {
		return Ratings{}
	}
	nr, nc := 1+int(data[0])%5, 1+int(data[1])%4
	raters := []string{"tracelab"}
	for i := 1; i < nr; i++ {
		raters = append(raters, fmt.Sprintf("r%d", i))
	}
	raters[nr-1] += name
	cats := []string{"a" + name, "b", "c", "d"}[:nc]
	r := Ratings{Raters: raters}
	data = data[2:]
	for u := 0; u*nr < len(data); u++ {
		it := Item{ID: fmt.Sprint(u), Values: map[string]string{}}
		for i, rt := range raters {
			if k := u*nr + i; k < len(data) && data[k]%byte(nc+1) != 0 {
				it.Values[rt] = cats[data[k]%byte(nc+1)-1]
			}
		}
		r.Items = append(r.Items, it)
	}
	return r
}

// alphaByDefinition is Krippendorff's alpha built literally from the
// coincidence matrix (every ordered pair of values within a unit,
// weighted 1/(m_u − 1)), to check the shortcut in krippendorff.
func alphaByDefinition(r Ratings) (float64, bool) {
	o := map[[2]string]float64{}
	for _, it := range r.Items {
		var vals []string
		for _, rt := range raterList(r.Raters, r.Items) {
			if v, ok := it.value(rt); ok {
				vals = append(vals, v)
			}
		}
		if len(vals) < 2 {
			continue
		}
		for i := range vals {
			for j := range vals {
				if i != j {
					o[[2]string{vals[i], vals[j]}] += 1 / float64(len(vals)-1)
				}
			}
		}
	}
	nc := map[string]float64{}
	var n float64
	for k, x := range o {
		nc[k[0]] += x
		n += x
	}
	var do, de float64
	for k, x := range o {
		if k[0] != k[1] {
			do += x
		}
	}
	for c, x := range nc {
		for k, y := range nc {
			if c != k {
				de += x * y
			}
		}
	}
	if de == 0 {
		return 0, false
	}
	return 1 - (n-1)*do/de, true
}

func inRange(t *testing.T, what string, s Stat, lo, hi float64) {
	t.Helper()
	if !s.Defined {
		if s.Value != 0 {
			t.Errorf("%s undefined but holds %v", what, s.Value)
		}
		return
	}
	if math.IsNaN(s.Value) || s.Value < lo-1e-9 || s.Value > hi+1e-9 {
		t.Errorf("%s = %v, outside [%v, %v]", what, s.Value, lo, hi)
	}
}

// FuzzAgreement checks that random ratings never panic, that every
// statistic is in its range or undefined, that the shortcuts agree with
// the definitions, and that every rendering is clean and fits 80 columns.
func FuzzAgreement(f *testing.F) {
	f.Add([]byte{1, 1, 1, 1, 2, 2, 1, 2}, "")
	f.Add([]byte{2, 2, 1, 1, 1, 2, 2, 0, 3, 3, 3, 0, 1, 2, 3}, "ana")
	f.Add([]byte{4, 3, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, "\x1b[31m|`*")
	f.Add([]byte{3, 0, 1, 1, 1, 1, 1, 1, 1, 1}, strings.Repeat("long", 20))
	// Many items with one rating and one pairable item in disagreement:
	// chance shares taken over single-rated items would drive κ below −1.
	f.Add(append(append([]byte{1, 1}, bytes.Repeat([]byte{1, 0}, 40)...), 1, 2), "")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		r := fuzzRatings(data, name)
		res := Nominal(r)
		for _, p := range res.Pairs {
			inRange(t, "agreement", p.Agreement, 0, 1)
			inRange(t, "kappa", p.Kappa, -1, 1)
			sum, diag := 0, 0
			for i, row := range p.Confusion {
				for j, x := range row {
					sum += x
					if i == j {
						diag += x
					}
				}
			}
			if sum != p.N || (p.N > 0) != p.Agreement.Defined || (p.N > 0 && p.Agreement.Value != float64(diag)/float64(p.N)) {
				t.Errorf("pair %s–%s: confusion sums to %d (diagonal %d), N %d, agreement %+v", p.A, p.B, sum, diag, p.N, p.Agreement)
			}
		}
		inRange(t, "fleiss", res.Fleiss.Kappa, -1, 1)
		inRange(t, "alpha", res.Alpha.Alpha, -1, 1)
		if want, ok := alphaByDefinition(r); ok != res.Alpha.Alpha.Defined || math.Abs(want-res.Alpha.Alpha.Value) > 1e-9 {
			t.Errorf("alpha %+v, by definition %v (defined %v)", res.Alpha.Alpha, want, ok)
		}
		trust := MachineTrust(r, "tracelab")
		for _, c := range append(trust, TrustTotal(trust)) {
			inRange(t, "trust", c.Trust, 0, 1)
			if c.Agreed > c.Ratings || c.Rated > c.Suggested {
				t.Errorf("trust counts out of order: %+v", c)
			}
		}
		var items []SetItem
		for _, it := range r.Items {
			si := SetItem{ID: it.ID, Sets: map[string][]string{}}
			for rt, v := range it.Values {
				si.Sets[rt] = strings.Split(v, "")
			}
			items = append(items, si)
		}
		sets := Sets(r.Raters, items)
		for _, p := range sets.Pairs {
			inRange(t, "jaccard", p.Jaccard, 0, 1)
		}
		inRange(t, "pooled jaccard", sets.Jaccard, 0, 1)
		rep := Report{By: name, Nominal: &res, Machine: "tracelab", Trust: trust, Sets: []SetResult{sets}}
		var b bytes.Buffer
		if err := rep.WriteJSON(&b); err != nil || !json.Valid(b.Bytes()) {
			t.Fatalf("JSON (%v):\n%s", err, b.String())
		}
		for _, write := range []func(*bytes.Buffer) error{
			func(b *bytes.Buffer) error { return rep.WriteText(b) },
			func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) },
		} {
			b.Reset()
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
			if strings.ContainsAny(b.String(), "\x1b\r") {
				t.Errorf("control character in\n%q", b.String())
			}
		}
		b.Reset()
		_ = rep.WriteText(&b)
		for i, line := range strings.Split(b.String(), "\n") {
			if w := ansi.StringWidth(line); w > lineWidth {
				t.Errorf("text line %d is %d columns: %q", i+1, w, line)
			}
		}
	})
}
