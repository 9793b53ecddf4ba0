package scoring

import (
	"strings"
	"testing"
)

func TestParseSeverity(t *testing.T) {
	tests := []struct {
		name, in string
		want     DriftSeverity
		err      string
	}{
		{"empty", "", DriftSeverity{}, ""},
		{"comments and blanks", "# header\n\n  output-enum-widened   additive  # we allow new states\n\ttool-title-changed ignore\n",
			DriftSeverity{"output-enum-widened": LaneAdditive, "tool-title-changed": LaneIgnore}, ""},
		{"crlf", "input-default-changed breaking\r\n", DriftSeverity{"input-default-changed": LaneBreaking}, ""},
		{"unknown lane", "input-default-changed fatal\n", nil, "sev.txt:1: unknown lane \"fatal\""},
		{"unknown id", "# x\ninput-defualt-changed risky\n", nil, "sev.txt:2: unknown check id \"input-defualt-changed\""},
		{"one field", "\n\ntool-removed\n", nil, "sev.txt:3: expected `CHECK-ID LANE`, got 1 fields"},
		{"three fields", "tool-removed risky now\n", nil, "sev.txt:1: expected `CHECK-ID LANE`, got 3 fields"},
		{"twice", "tool-removed risky\ntool-removed breaking\n", nil, "sev.txt:2: tool-removed already set on line 1"},
		{"lane case matters", "tool-removed Risky\n", nil, "sev.txt:1: unknown lane \"Risky\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDriftSeverity("sev.txt", []byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s: %s, want %s", k, got[k], v)
				}
			}
		})
	}
}

func TestSeverityApply(t *testing.T) {
	fs := []DriftFinding{
		{ID: "output-enum-widened", Tool: "a", Lane: LaneRisky, Fingerprint: "f1"},
		{ID: "tool-title-changed", Tool: "a", Lane: LaneRisky, Fingerprint: "f2"},
		{ID: "tool-removed", Tool: "b", Lane: LaneBreaking, Fingerprint: "f3"},
	}
	sev := DriftSeverity{"output-enum-widened": LaneBreaking, "tool-title-changed": LaneIgnore}
	got, ignored := sev.Apply(fs)
	if ignored != 1 || len(got) != 2 || got[0].Lane != LaneBreaking || got[0].Fingerprint != "f1" || got[1].ID != "tool-removed" {
		t.Errorf("got %+v ignored %d", got, ignored)
	}
	if fs[0].Lane != LaneRisky {
		t.Error("Apply changed its input")
	}
	r := NewDriftReport("o", "n", DriftResult{Findings: fs}, sev, LaneBreaking)
	if r.Summary.Breaking != 2 || r.Summary.Ignored != 1 || !r.Summary.Failed {
		t.Errorf("summary %+v", r.Summary)
	}
}

func FuzzParseSeverity(f *testing.F) {
	for _, s := range []string{"", "# c\noutput-enum-widened additive\n", "tool-removed ignore # x", "a b c", "tool-removed\tbreaking\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sev, err := ParseDriftSeverity("f", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("error without file:line: %v", err)
			}
			return
		}
		known := checkIndex()
		for id, l := range sev {
			if _, ok := known[id]; !ok {
				t.Fatalf("unknown id accepted: %q", id)
			}
			if _, ok := ParseLane(string(l)); !ok {
				t.Fatalf("bad lane accepted: %q", l)
			}
		}
	})
}
