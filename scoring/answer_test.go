package scoring

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParseNumbers(t *testing.T) {
	tests := []struct {
		text string
		want []float64
		pct  []bool
	}{
		{"1,284", []float64{1284}, []bool{false}},
		{"We had 1,284 active customers in EMEA in 2026-Q2.", []float64{1284}, []bool{false}},
		{"$45,210.50", []float64{45210.5}, []bool{false}},
		{"Revenue was 1.2M", []float64{1.2e6}, []bool{false}},
		{"about 4 million users", []float64{4e6}, []bool{false}},
		{"churn was 12%", []float64{12}, []bool{true}},
		{"as of 2026-07-03 09:12 there were 17", []float64{17}, []bool{false}},
		{"-3.5 and 2k", []float64{-3.5, 2000}, []bool{false, false}},
		{"none", nil, nil},
		// Issue 28, rule 3: every way a ledger writes a negative amount.
		{"-$48,210.75", []float64{-48210.75}, []bool{false}},
		{"$-48,210.75", []float64{-48210.75}, []bool{false}},
		{"-48,210.75 USD", []float64{-48210.75}, []bool{false}},
		{"net loss (48,210.75)", []float64{-48210.75}, []bool{false}},
		{"net loss ($48,210.75)", []float64{-48210.75}, []bool{false}},
		{"\u221248,210.75", []float64{-48210.75}, []bool{false}},
		{"\u2212$48,210.75", []float64{-48210.75}, []bool{false}},
		{"margin: -$1.2M", []float64{-1.2e6}, []bool{false}},
		// Must not turn negative: a difference, a range, an item number,
		// a year or a percentage in parentheses.
		{"1,284 - 1,200", []float64{1284, 1200}, []bool{false, false}},
		{"10 - 5", []float64{10, 5}, []bool{false, false}},
		{"2-3 days", []float64{2, 3}, []bool{false, false}},
		{"(1) first", []float64{1}, []bool{false}},
		{"migrated (2019)", []float64{2019}, []bool{false}},
		{"grew (12%)", []float64{12}, []bool{true}},
		{"(1,284 customers)", []float64{1284}, []bool{false}},
	}
	for _, tt := range tests {
		got, pct := ParseNumbers(tt.text)
		if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(pct, tt.pct) {
			t.Errorf("ParseNumbers(%q) = %v %v, want %v %v", tt.text, got, pct, tt.want, tt.pct)
		}
	}
}

func TestCheckAnswer(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name   string
		gold   string
		tol    *float64
		answer string
		want   *bool // nil: needs review
	}{
		{"seed 1,284", `1284`, f(0), "1,284", boolPtr(true)},
		{"in a sentence", `1284`, f(0), "You had 1,284 active customers in EMEA last quarter.", boolPtr(true)},
		{"off by one, tolerance 0", `1284`, f(0), "1,285", boolPtr(false)},
		{"within tolerance", `1284`, f(2), "1,285", boolPtr(true)},
		{"dollars", `45210.5`, f(0.01), "Total revenue: $45,210.50", boolPtr(true)},
		{"millions", `1200000`, f(0), "1.2M", boolPtr(true)},
		{"percent vs fraction", `0.12`, f(0.001), "12%", boolPtr(true)},
		{"percent vs percent", `12`, f(0), "12%", boolPtr(true)},
		{"no number", `1284`, f(0), "I could not find that.", nil},
		{"empty answer", `1284`, nil, "", boolPtr(false)},
		{"numeric string gold", `"1,284"`, nil, "1284", boolPtr(true)},
		{"string normalized", `"Acme Corp"`, nil, "  acme   corp. ", boolPtr(true)},
		{"string in sentence", `"Acme Corp"`, nil, "The largest account is Acme Corp.", boolPtr(true)},
		{"string wrong", `"Acme Corp"`, nil, "Globex", boolPtr(false)},
		{"array as set, JSON", `["b","a"]`, nil, `["A","B"]`, boolPtr(true)},
		{"array as set, prose", `["Acme","Globex","Initech"]`, nil, "Top three: Initech, Acme and Globex.", boolPtr(true)},
		{"array missing item", `["Acme","Globex","Initech"]`, nil, "Top three: Initech, Acme and Hooli.", boolPtr(false)},
		{"array extra item", `["Acme","Globex"]`, nil, "Acme, Globex, Hooli", boolPtr(false)},
		{"array of numbers", `[3, 1]`, nil, "1 and 3", boolPtr(true)},
		{"null gold", `null`, nil, "1", nil},
		// Issue 28, rule 3: a correct negative answer is correct however
		// it is written, and its positive is not.
		{"negative, sign before $", `-48210.75`, f(0.01), "Net: -$48,210.75", boolPtr(true)},
		{"negative, sign after $", `-48210.75`, f(0.01), "Net: $-48,210.75", boolPtr(true)},
		{"negative, USD suffix", `-48210.75`, f(0.01), "Net: -48,210.75 USD", boolPtr(true)},
		{"negative, accounting", `-48210.75`, f(0.01), "Net: (48,210.75)", boolPtr(true)},
		{"negative, U+2212", `-48210.75`, f(0.01), "Net: \u2212$48,210.75", boolPtr(true)},
		{"negative gold, positive answer", `-48210.75`, f(0.01), "Net: $48,210.75", boolPtr(false)},
		{"positive gold, negative answer", `48210.75`, f(0.01), "Net: -$48,210.75", boolPtr(false)},
		{"no gold", ``, nil, "1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckAnswer(json.RawMessage(tt.gold), tt.tol, tt.answer)
			if (got.Correct == nil) != (tt.want == nil) || got.Correct != nil && *got.Correct != *tt.want {
				t.Errorf("got %v (%s), want %v", fmtBool(got.Correct), got.Reason, fmtBool(tt.want))
			}
		})
	}
}

func fmtBool(b *bool) string {
	if b == nil {
		return "null"
	}
	if *b {
		return "true"
	}
	return "false"
}

func FuzzCheckAnswer(f *testing.F) {
	f.Add(`1284`, "1,284")
	f.Add(`["a","b"]`, "a, b")
	f.Add(`"x"`, "$1.2M 12%")
	f.Fuzz(func(t *testing.T, gold, answer string) {
		got := CheckAnswer(json.RawMessage(gold), nil, answer)
		if got.Reason == "" {
			t.Fatalf("no reason for %q vs %q", gold, answer)
		}
	})
}
