package store

import (
	"context"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// The built-in judge's cache and the model and prompt hash of its labels
// round-trip on both backends (migration 0021).
func TestJudgeCacheAndLabelProvenance(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		if _, ok, err := st.JudgeCached(ctx, "k1"); ok || err != nil {
			t.Fatalf("empty cache: %v %v", ok, err)
		}
		a := JudgeAnswer{Key: "k1", Model: "gpt-4o-mini", PromptSHA256: "abc", Answer: `{"content":"x"}`, USD: 0.0003}
		if err := st.PutJudgeAnswer(ctx, a); err != nil {
			t.Fatal(err)
		}
		a.Answer = `{"content":"y"}`
		if err := st.PutJudgeAnswer(ctx, a); err != nil {
			t.Fatal(err)
		}
		got, ok, err := st.JudgeCached(ctx, "k1")
		if !ok || err != nil || got.Answer != `{"content":"y"}` || got.USD != 0.0003 {
			t.Fatalf("cached: %+v %v %v", got, ok, err)
		}
		body := runTrace("j1", "s1", "r1", "2026-08-01T10:00:00Z", lookupV1)
		if _, err := importString(t, st, "j.jsonl", body, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		no := false
		rl := model.RaterLabel{Rater: "judge:m", Kind: model.RaterJudge, Label: model.Label{Correct: &no}, Rationale: "r",
			Model: "gpt-4o-mini", PromptSHA256: "abc"}
		if err := st.PutRaterLabel(ctx, "j1", rl); err != nil {
			t.Fatal(err)
		}
		cr, err := st.RatersOfTrace(ctx, "j1")
		if err != nil {
			t.Fatal(err)
		}
		if r := cr.Rater("judge:m"); r == nil || r.Model != "gpt-4o-mini" || r.PromptSHA256 != "abc" {
			t.Errorf("judge label: %+v", r)
		}
	})
}
