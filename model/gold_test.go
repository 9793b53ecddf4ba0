package model

import (
	"reflect"
	"testing"
)

func TestGoldProblems(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	w := func(start, end, cal string) *Window { return &Window{Start: start, End: end, Calendar: cal} }
	cases := []struct {
		name string
		gold Gold
		want []GoldProblem
	}{
		{"empty", Gold{}, nil},
		{"all set and valid", Gold{Tolerance: f(0), FreshnessBoundHours: f(24), RequiredFields: []string{"orders.total"},
			ForbiddenFields: []string{"orders.gross"}, Window: w("2026-04-01", "2026-06-30", "fiscal")}, nil},
		{"negative tolerance", Gold{Tolerance: f(-1)}, []GoldProblem{{"gold.tolerance", "must not be negative (-1)"}}},
		{"freshness zero", Gold{FreshnessBoundHours: f(0)},
			[]GoldProblem{{"gold.freshness_bound_hours", "must be greater than 0 hours (0); leave it null for no bound"}}},
		{"freshness negative", Gold{FreshnessBoundHours: f(-2)},
			[]GoldProblem{{"gold.freshness_bound_hours", "must be greater than 0 hours (-2); leave it null for no bound"}}},
		{"freshness fraction", Gold{FreshnessBoundHours: f(0.5)}, nil},
		{"both required and forbidden", Gold{RequiredFields: []string{"a.b", "c.d"}, ForbiddenFields: []string{"c.d"}},
			[]GoldProblem{{"gold.forbidden_fields", "c.d is also required: a field cannot be both required and forbidden"}}},
		{"undotted required", Gold{RequiredFields: []string{"status"}},
			[]GoldProblem{{"gold.required_fields", `"status" should look like table.column or tool.argument`}}},
		{"blank in forbidden", Gold{ForbiddenFields: []string{"a. b"}},
			[]GoldProblem{{"gold.forbidden_fields", `"a. b" should look like table.column or tool.argument`}}},
		{"trailing dot", Gold{RequiredFields: []string{"a."}},
			[]GoldProblem{{"gold.required_fields", `"a." should look like table.column or tool.argument`}}},
		{"empty window is no window", Gold{Window: &Window{}}, nil},
		{"window without calendar", Gold{Window: w("2026-04-01", "2026-06-30", "")},
			[]GoldProblem{{"gold.window.calendar", "required when a window is set: fiscal or calendar"}}},
		{"bad start", Gold{Window: w("2026-13-01", "2026-06-30", "fiscal")},
			[]GoldProblem{{"gold.window.start", `"2026-13-01" is not a date like 2026-04-01`}}},
		{"bad end", Gold{Window: w("2026-04-01", "june", "fiscal")},
			[]GoldProblem{{"gold.window.end", `"june" is not a date like 2026-06-30`}}},
		{"end before start", Gold{Window: w("2026-06-30", "2026-04-01", "fiscal")},
			[]GoldProblem{{"gold.window", "end 2026-04-01 is before start 2026-06-30"}}},
		{"bad calendar", Gold{Window: w("2026-04-01", "2026-06-30", "lunar")},
			[]GoldProblem{{"gold.window.calendar", `"lunar" is not one of fiscal, calendar`}}},
		{"several, in field order", Gold{Tolerance: f(-1), FreshnessBoundHours: f(0), RequiredFields: []string{"a.b"}, ForbiddenFields: []string{"a.b"}},
			[]GoldProblem{{"gold.tolerance", "must not be negative (-1)"},
				{"gold.freshness_bound_hours", "must be greater than 0 hours (0); leave it null for no bound"},
				{"gold.forbidden_fields", "a.b is also required: a field cannot be both required and forbidden"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.gold.Problems(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Problems() = %q\nwant %q", got, tc.want)
			}
		})
	}
}
