package app

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// Every engine edit of gold goes through model.Gold.Problems: a bound of
// 0 hours or a field both required and forbidden is refused, names the
// field, and leaves the stored case as it was.
func TestEngineGoldEditsRefuseProblems(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t, true, Files{})
	const tid = "trace_9f31c2"
	before, err := e.Traces.CaseForTrace(ctx, tid)
	if err != nil || before == nil {
		t.Fatalf("case: %v %v", before, err)
	}
	for _, tc := range []struct {
		name  string
		edits []FieldEdit
		want  string
	}{
		{"freshness 0", []FieldEdit{{"gold.freshness_bound_hours", json.RawMessage("0")}},
			"gold.freshness_bound_hours: must be greater than 0 hours"},
		{"negative tolerance", []FieldEdit{{"gold.tolerance", json.RawMessage("-0.5")}}, "gold.tolerance: must not be negative"},
		{"both lists", []FieldEdit{{"gold.required_fields", json.RawMessage(`["orders.total"]`)},
			{"gold.forbidden_fields", json.RawMessage(`["orders.total"]`)}},
			"gold.forbidden_fields: orders.total is also required"},
		{"window end before start", []FieldEdit{{"gold.window", json.RawMessage(`{"start":"2026-06-30","end":"2026-04-01","calendar":"fiscal"}`)}},
			"gold.window: end 2026-04-01 is before start 2026-06-30"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Labels.EditFields(ctx, tid, "ana", tc.edits...)
			var ge *GoldError
			if !errors.As(err, &ge) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a GoldError containing %q", err, tc.want)
			}
			after, _ := e.Traces.CaseForTrace(ctx, tid)
			b1, _ := json.Marshal(before.Case)
			b2, _ := json.Marshal(after.Case)
			if string(b1) != string(b2) {
				t.Fatalf("refused edit changed the case:\n%s\n%s", b1, b2)
			}
		})
	}
	// MarkField goes the same way: forbidding what is required moves it.
	if _, err := e.Labels.EditFields(ctx, tid, "ana", FieldEdit{"gold.required_fields", json.RawMessage(`["orders.total"]`)}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Labels.MarkField(ctx, tid, "ana", "orders.total", false)
	if err != nil {
		t.Fatal(err)
	}
	if g := res.Case.Case.Gold; len(g.RequiredFields) != 0 || !slices.Contains(g.ForbiddenFields, "orders.total") {
		t.Fatalf("mark forbidden: required %v forbidden %v", g.RequiredFields, g.ForbiddenFields)
	}
	if _, err := e.Labels.EditFields(ctx, tid, "ana", FieldEdit{"gold.freshness_bound_hours", json.RawMessage("0.5")}); err != nil {
		t.Fatalf("a bound of half an hour: %v", err)
	}
}
