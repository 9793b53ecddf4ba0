package suite

import (
	"strings"
	"testing"
)

func TestGateCoverage(t *testing.T) {
	for _, tt := range []struct {
		name                   string
		cases, missing, traces int
		gate                   Gate
		failed, allowsGaps     bool
		reason                 string
	}{
		{"all covered", 28, 0, 28, Gate{}, false, false, ""},
		{"one missing, default", 28, 1, 27, Gate{}, true, false, "27 of 28 suite cases were matched by a new trace (96.4%), below the 100% required"},
		{"1 of N", 28, 27, 1, Gate{}, true, false, "1 of 28 suite cases"},
		{"empty run", 28, 28, 0, Gate{}, true, false, "no suite case was matched by a new trace (0 new traces read, 0 unmatched): nothing was checked"},
		{"empty run, allow-missing", 28, 28, 0, Gate{AllowMissing: true}, true, false, "nothing was checked"},
		{"1 of N, allow-missing", 28, 27, 1, Gate{AllowMissing: true}, false, true, ""},
		{"90% asked, 90% met", 10, 1, 9, Gate{MinCoverage: 0.9}, false, true, ""},
		{"90% asked, 80% met", 10, 2, 8, Gate{MinCoverage: 0.9}, true, false, "8 of 10 suite cases were matched by a new trace (80%), below the 90% required"},
		{"90% asked, all met", 10, 0, 10, Gate{MinCoverage: 0.9}, false, true, ""},
	} {
		c := tt.gate.Judge(CheckSummary{Cases: tt.cases, Missing: tt.missing, Traces: tt.traces})
		if c.Failed != tt.failed || c.AllowsGaps != tt.allowsGaps || !strings.Contains(c.Reason, tt.reason) || (tt.reason == "") != (c.Reason == "") {
			t.Errorf("%s: %+v, want failed %v gaps %v reason %q", tt.name, c, tt.failed, tt.allowsGaps, tt.reason)
		}
	}
	for _, bad := range []float64{-0.1, 1.5} {
		if err := (Gate{MinCoverage: bad}).Validate(); err == nil {
			t.Errorf("--min-coverage %g accepted", bad)
		}
	}
}
