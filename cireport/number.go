package cireport

import "strconv"

// NoValue is the one glyph every output shows for a number that has no
// value (a rate over zero cases, a metric one report lacks). A dash would
// read as a minus sign and "null" as a word from the JSON.
const NoValue = "—"

// Number formats a nullable number in the fewest digits that read back
// exactly; nil is NoValue.
func Number(p *float64) string {
	if p == nil {
		return NoValue
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}

// Fixed formats a nullable number with prec decimals; nil is NoValue.
func Fixed(p *float64, prec int) string {
	if p == nil {
		return NoValue
	}
	return strconv.FormatFloat(*p, 'f', prec, 64)
}
