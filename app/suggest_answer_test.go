package app

import (
	"context"
	"encoding/json"
	"testing"
)

// The answer a person typed for one trace is offered, and set by a, for
// another trace of the same question, period and scope (issue 26): 1147
// typed for trace_9f31c2 reaches trace_e1a7d0 (same server, "last
// quarter" asked in July and in August: the same quarter), not
// trace_07b9c4 (APAC) and not trace_5c0d91 (North America).
func TestAcceptOffersAPersonsAnswer(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	if _, err := e.Labels.EditGold(ctx, "trace_9f31c2", "ann", FieldEdit{"gold.answer", json.RawMessage(`1147`)}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		id, want string
	}{
		{"trace_e1a7d0", "1147"},
		{"trace_4be07a", "1147"}, // the same question on the task-specific server
		{"trace_5c0d91", ""},
		{"trace_07b9c4", ""},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			sugg, err := e.Scores.SuggestGold(ctx, c.id)
			if err != nil || sugg == nil {
				t.Fatalf("suggestion: %v", err)
			}
			if got := string(sugg.Gold.Answer); got != c.want {
				t.Fatalf("suggested answer %q, want %q (sources %q)", got, c.want, sugg.Sources)
			}
			if c.want == "" {
				return
			}
			if _, err := e.Scores.Rescore(ctx, []string{c.id}, nil); err != nil {
				t.Fatal(err)
			}
			rec, err := e.Traces.CaseForTrace(ctx, c.id)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := e.Scores.Of(ctx, c.id)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(AcceptPreview(rec, sc).Answer); got != c.want {
				t.Errorf("a's preview sets answer %q, want %q", got, c.want)
			}
			res, err := e.Labels.AcceptSuggestion(ctx, c.id, "ann")
			if err != nil {
				t.Fatal(err)
			}
			if got := string(res.Case.Case.Gold.Answer); got != c.want {
				t.Errorf("a set answer %q, want %q (changed %v)", got, c.want, res.Changed)
			}
			if res.Case.Case.Label.Correct == nil {
				t.Errorf("correct did not follow the accepted answer")
			}
		})
	}
}
