package app

import (
	"context"
	"fmt"

	"github.com/tracelab-dev/tracelab/store"
)

// tracelab's own rating of a trace is the scorer's opinion on the gold it
// suggests itself (issue 26). A trace whose case has a person's gold is
// stored scored against that gold, so its score's class and correct echo
// the person's label (`import --labeler ana cases.jsonl` made ana agree
// with tracelab 100%): for those the rating is the trace scored against
// the machine's own suggestion instead, as if nobody had written gold.

// machineOpinions returns tracelab's rating of each scored trace among
// ids, by trace id; human says which of them have a person's gold.
func (e *Engine) machineOpinions(ctx context.Context, ids []string, human map[string]bool) (map[string]store.MachineRating, error) {
	ratings, err := e.st.MachineRatings(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, scored := ratings[id]; !scored || !human[id] {
			continue
		}
		r, err := e.ownOpinion(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("tracelab's rating of %s: %w", id, err)
		}
		ratings[id] = r
	}
	return ratings, nil
}

// ownOpinion scores one trace against the gold the machine suggests for
// it, whatever gold its case has.
func (e *Engine) ownOpinion(ctx context.Context, traceID string) (store.MachineRating, error) {
	t, _, sugg, err := e.evaluateOne(ctx, traceID, nil)
	if err != nil {
		return store.MachineRating{}, err
	}
	sc, err := e.scorer()
	if err != nil {
		return store.MachineRating{}, err
	}
	g := sugg.Gold
	ts := sc.Score(t, &g)
	return store.MachineRating{Correct: ts.Correct, Grounded: ts.Grounded, SuggestedClass: ts.SuggestedClass}, nil
}
