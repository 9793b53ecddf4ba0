package agreement

import (
	"fmt"
	"testing"
)

// BenchmarkNominal is a large labeling round: 5,000 traces, the
// machine's suggestion on each, three people who each rated about two
// thirds of them, six classes.
func BenchmarkNominal(b *testing.B) {
	cats := []string{"entity", "semantic", "structural", "temporal", "policy", "none"}
	raters := []string{"tracelab", "ana", "bo", "cy"}
	r := Ratings{Raters: raters, Categories: cats}
	for u := range 5000 {
		it := Item{ID: fmt.Sprint(u), Values: map[string]string{"tracelab": cats[u%6]}}
		for i, rt := range raters[1:] {
			if (u+i)%3 != 0 {
				it.Values[rt] = cats[(u*(i+2)/3)%6]
			}
		}
		r.Items = append(r.Items, it)
	}
	b.ReportAllocs()
	for b.Loop() {
		Nominal(r)
		MachineTrust(r, "tracelab")
	}
}
