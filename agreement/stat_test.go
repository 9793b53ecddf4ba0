package agreement

import (
	"encoding/json"
	"math"
	"testing"
)

func TestStat(t *testing.T) {
	cases := []struct {
		name           string
		s              Stat
		json           string
		fixed, percent string
	}{
		{"defined", Stat{0.4, true}, "0.4", "0.400", "40.0%"},
		{"negative", Stat{-0.125, true}, "-0.125", "-0.125", "-12.5%"},
		{"zero is a value", Stat{0, true}, "0", "0.000", "0.0%"},
		{"undefined", Stat{}, "null", "—", "—"},
		{"not finite", Stat{math.NaN(), true}, "null", "—", "—"},
		{"infinite", Stat{math.Inf(-1), true}, "null", "—", "—"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.s)
			if err != nil || string(b) != tc.json {
				t.Errorf("JSON %s (%v), want %s", b, err, tc.json)
			}
			if got := tc.s.Fixed(3); got != tc.fixed {
				t.Errorf("Fixed %q, want %q", got, tc.fixed)
			}
			if got := tc.s.Percent(); got != tc.percent {
				t.Errorf("Percent %q, want %q", got, tc.percent)
			}
		})
	}
	if got := ratio(1, 0); got.Defined {
		t.Errorf("ratio(1, 0) = %+v, want undefined", got)
	}
	var s Stat
	if err := json.Unmarshal([]byte("0.25"), &s); err != nil || s != (Stat{0.25, true}) {
		t.Errorf("read 0.25 as %+v (%v)", s, err)
	}
	if err := json.Unmarshal([]byte("null"), &s); err != nil || s != (Stat{}) {
		t.Errorf("read null as %+v (%v)", s, err)
	}
	if err := json.Unmarshal([]byte(`"x"`), &s); err == nil {
		t.Errorf("read a string as %+v without error", s)
	}
}
