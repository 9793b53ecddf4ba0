package suite

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

func fp(v float64) *float64 { return &v }

func TestDiffReports(t *testing.T) {
	base := model.Report{Server: "s", Cases: 4, Correct: 3, CorrectAndGrounded: 2, GroundingPrecision: fp(0.75),
		GroundingRecall: fp(0.8), DefinitionMatchRate: fp(0.5), FreshnessPassRate: fp(1), PolicyViolationRate: fp(0),
		ClarificationLoopsPerTask: fp(0.25), FailuresByClass: model.ClassCounts{"semantic": 1}}
	tests := []struct {
		name      string
		change    func(r *model.Report)
		regressed bool
		reasons   []string
		worse     []string
		grew      []string
	}{
		{"unchanged", func(r *model.Report) {}, false, nil, nil, nil},
		{"precision falls", func(r *model.Report) { r.GroundingPrecision = fp(0.7) }, true,
			[]string{"grounding_precision fell from 0.75 to 0.7"}, []string{"grounding_precision"}, nil},
		{"recall rises, definition falls", func(r *model.Report) { r.GroundingRecall, r.DefinitionMatchRate = fp(0.9), fp(0.25) }, true,
			[]string{"definition_match_rate fell from 0.5 to 0.25"}, []string{"definition_match_rate"}, nil},
		{"freshness falls", func(r *model.Report) { r.FreshnessPassRate = fp(0.5) }, true,
			[]string{"freshness_pass_rate fell from 1 to 0.5"}, []string{"freshness_pass_rate"}, nil},
		{"policy rises", func(r *model.Report) { r.PolicyViolationRate = fp(0.1); r.FailuresByClass["policy"] = 2 }, true,
			[]string{"policy_violation_rate rose from 0 to 0.1"}, []string{"policy_violation_rate"}, []string{"policy"}},
		{"policy appears where none was measured", func(r *model.Report) {}, false, nil, nil, nil},
		{"a grounding rate that becomes null is no fall", func(r *model.Report) { r.DefinitionMatchRate = nil }, false, nil, nil, nil},
		{"cost and review worse are no regression", func(r *model.Report) { r.NeedsHumanReview = 3; r.ClarificationLoopsPerTask = fp(1) }, false,
			nil, []string{"clarification_loops_per_task", "needs_human_review"}, nil},
		{"a class grows", func(r *model.Report) { r.FailuresByClass["semantic"] = 3 }, false, nil, nil, []string{"semantic"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := base
			old.FailuresByClass = model.ClassCounts{"semantic": 1}
			cur := base
			cur.FailuresByClass = model.ClassCounts{"semantic": 1}
			tt.change(&cur)
			if tt.name == "policy appears where none was measured" {
				old.PolicyViolationRate, cur.PolicyViolationRate = nil, fp(0)
			}
			d := DiffReports("old", []model.Report{old}, "new", []model.Report{cur})
			if d.Regressed != tt.regressed || len(d.Servers) != 1 {
				t.Fatalf("regressed %v, want %v: %+v", d.Regressed, tt.regressed, d.Servers)
			}
			sd := d.Servers[0]
			if !slices.Equal(sd.Regressions, append([]string{}, tt.reasons...)) {
				t.Errorf("regressions %q, want %q", sd.Regressions, tt.reasons)
			}
			var worse []string
			for _, m := range sd.Metrics {
				if m.Worse {
					worse = append(worse, m.Metric)
				}
			}
			if !slices.Equal(worse, tt.worse) {
				t.Errorf("worse %v, want %v", worse, tt.worse)
			}
			var grew []string
			for _, c := range sd.ClassesGrew {
				grew = append(grew, c.Class)
			}
			if !slices.Equal(grew, tt.grew) {
				t.Errorf("grew %v, want %v", grew, tt.grew)
			}
		})
	}
	// Null old policy rate, nonzero new: rose from zero.
	old, cur := base, base
	old.PolicyViolationRate, cur.PolicyViolationRate = nil, fp(0.05)
	if d := DiffReports("a", []model.Report{old}, "b", []model.Report{cur}); !d.Regressed {
		t.Error("a policy violation rate appearing with a nonzero value is no regression")
	}
	// Servers present on one side only are listed, not failed.
	d := DiffReports("a", []model.Report{base}, "b", []model.Report{{Server: "t", Cases: 1}})
	if d.Regressed || len(d.Servers) != 2 || d.Servers[0].Presence != "removed" || d.Servers[1].Presence != "added" {
		t.Errorf("%+v", d.Servers)
	}
}

func TestReadReportRejectsOtherJSON(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"object.json": `{"server":"s"}`,
		"cases.json":  `[{"case_id":"x"}]`,
		"broken.json": `[{"server":`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := ReadReport(p); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ReadReport(filepath.Join(dir, "none.json")); !errors.Is(err, ErrBadInput) {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzDiffReports reads arbitrary bytes as two report.json files, as
// `report --diff` does, and diffs them: no panic, and the verdict agrees
// with the regressions listed.
func FuzzDiffReports(f *testing.F) {
	old, _ := os.ReadFile("../testdata/check/report-old.json")
	cur, _ := os.ReadFile("../testdata/check/report-new.json")
	f.Add(old, cur)
	f.Add([]byte(`[{"server":"s","cases":1,"policy_violation_rate":null}]`), []byte(`[{"server":"s","cases":1,"policy_violation_rate":0.5}]`))
	f.Add([]byte(`[]`), []byte(`[{"server":"","cases":0}]`))
	f.Add([]byte(`[{"server":"s","cases":1,"grounding_recall":1e308}]`), []byte(`[{"server":"s","cases":1,"grounding_recall":-1e308}]`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		dir := t.TempDir()
		pa, pb := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
		os.WriteFile(pa, a, 0o644)
		os.WriteFile(pb, b, 0o644)
		ra, err := ReadReport(pa)
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("error is not bad input: %v", err)
			}
			return
		}
		rb, err := ReadReport(pb)
		if err != nil {
			return
		}
		d := DiffReports(pa, ra, pb, rb)
		any := false
		for _, s := range d.Servers {
			if len(s.Regressions) > 0 {
				any = true
				if s.Presence != "both" {
					t.Errorf("server %q only on one side has regressions", s.Server)
				}
			}
		}
		if any != d.Regressed {
			t.Errorf("regressed %v, regressions listed %v", d.Regressed, any)
		}
	})
}
