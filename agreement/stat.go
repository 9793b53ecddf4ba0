package agreement

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/tracelab-dev/tracelab/cireport"
)

// Stat is one statistic that may have no value: a ratio whose
// denominator is zero, a kappa whose expected agreement is 1. Value is 0
// when Defined is false, so a caller that forgets to check reads a
// harmless zero, never a NaN that poisons sums and breaks JSON.
type Stat struct {
	Value   float64
	Defined bool
}

// ratio is num/den, undefined when den is 0. Callers pass exact integer
// counts, so "den is 0" is decided without floating-point tolerance.
func ratio(num, den int64) Stat {
	if den == 0 {
		return Stat{}
	}
	return Stat{Value: float64(num) / float64(den), Defined: true}
}

// shown reports whether the value is printed. A value that is not
// finite counts as undefined: the formulas here cannot produce one, but
// it would make a JSON document invalid and a table read "NaN".
func (s Stat) shown() bool {
	return s.Defined && !math.IsNaN(s.Value) && !math.IsInf(s.Value, 0)
}

// MarshalJSON writes the value, or null when undefined.
func (s Stat) MarshalJSON() ([]byte, error) {
	if !s.shown() {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, s.Value, 'g', -1, 64), nil
}

// UnmarshalJSON reads what MarshalJSON writes, so a report read back
// from JSON compares equal to the one written.
func (s *Stat) UnmarshalJSON(b []byte) error {
	var p *float64
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if p == nil {
		*s = Stat{}
		return nil
	}
	*s = Stat{Value: *p, Defined: true}
	return nil
}

// Fixed formats the value with prec decimals, or cireport.NoValue.
func (s Stat) Fixed(prec int) string {
	if !s.shown() {
		return cireport.NoValue
	}
	return strconv.FormatFloat(s.Value, 'f', prec, 64)
}

// Percent formats a proportion as a percentage with one decimal.
func (s Stat) Percent() string {
	if !s.shown() {
		return cireport.NoValue
	}
	return strconv.FormatFloat(100*s.Value, 'f', 1, 64) + "%"
}
