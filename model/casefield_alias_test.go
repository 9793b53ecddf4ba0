package model

import (
	"encoding/json"
	"testing"
)

// SetField on a copy of a case never changes the case it was copied
// from: a copy shares the original's pointers and slices, and
// json.Unmarshal writes through a non-nil pointer and into a slice's
// backing array, so an edit tried on a copy (the store's no-change
// test, EditGroup) changed the stored case it was tried on.
func TestSetFieldLeavesTheOriginal(t *testing.T) {
	yes, grounded, hours, tol := true, true, 24.0, 0.5
	fc := FailureClass("semantic")
	orig := Case{
		Label: Label{Correct: &yes, Grounded: &grounded, FailureClass: &fc, Note: "n"},
		Gold: Gold{Answer: json.RawMessage(`42`), Tolerance: &tol, RequiredFields: []string{"a.x", "a.y"},
			ForbiddenFields: []string{"a.z"}, Definition: "d", Window: &Window{Start: "2026-01-01", End: "2026-02-01", Calendar: "fiscal"},
			FreshnessBoundHours: &hours, PolicyScope: "p"},
	}
	for _, tt := range []struct{ field, value string }{
		{"label.correct", `false`},
		{"label.grounded", `false`},
		{"label.failure_class", `"temporal"`},
		{"gold.answer", `7`},
		{"gold.tolerance", `0.1`},
		{"gold.required_fields", `["b.q"]`},
		{"gold.forbidden_fields", `["b.r"]`},
		{"gold.window", `{"start":"2025-01-01","end":"2025-02-01","calendar":"calendar"}`},
		{"gold.freshness_bound_hours", `1`},
		{"label.failure_class", `"nonsense"`}, // refused: the copy stays too
	} {
		t.Run(tt.field+"="+tt.value, func(t *testing.T) {
			before, _ := json.Marshal(orig)
			probe := orig
			err := probe.SetField(tt.field, json.RawMessage(tt.value))
			after, _ := json.Marshal(orig)
			if string(after) != string(before) {
				t.Fatalf("the original changed:\nbefore %s\nafter  %s", before, after)
			}
			if err != nil {
				return
			}
			if got, _ := probe.Field(tt.field); string(got) != tt.value {
				t.Errorf("the copy's %s = %s, want %s", tt.field, got, tt.value)
			}
		})
	}
}
