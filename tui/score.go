package tui

import (
	"context"
	"encoding/json"
	"sort"

	"tracelab/model"
	"tracelab/scoring"
	"tracelab/store"
)

// scoreView is what the trace screen knows of a trace's scoring: the
// scorer's stored TraceScore (Store.Score's JSON) and, computed when the
// trace opens, the gold the scorer suggests for it ('a' accepts it).
type scoreView struct {
	scoring.TraceScore
	SuggestedGold *model.Gold
}

// decodeScore reads a stored score; nil raw means not scored.
func decodeScore(raw json.RawMessage) (*scoreView, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var sv scoreView
	if err := json.Unmarshal(raw, &sv.TraceScore); err != nil {
		return nil, err
	}
	sort.SliceStable(sv.Markers, func(i, j int) bool {
		a, b := sv.Markers[i], sv.Markers[j]
		if a.Step != b.Step {
			return a.Step < b.Step
		}
		return a.Start < b.Start
	})
	return &sv, nil
}

// suggestGold runs the scorer's gold suggestion (glossary terms the
// question uses, look-alikes used after a guess marker) for a trace.
func suggestGold(ctx context.Context, st *store.Store, t *model.Trace, sv *scoreView) (*model.Gold, error) {
	entries, err := st.Glossary(ctx)
	if err != nil {
		return nil, err
	}
	cfg := scoring.Config{}
	for _, e := range entries {
		cfg.Glossary = append(cfg.Glossary, scoring.GlossaryEntry{Term: e.Term, Definition: e.Definition,
			Predicate: e.Predicate, RequiredFields: e.RequiredFields, ForbiddenFields: e.ForbiddenFields,
			TimestampColumn: e.TimestampColumn, Calendar: e.Calendar})
	}
	sc, err := scoring.NewScorer(cfg)
	if err != nil {
		return nil, err
	}
	g := sc.SuggestGold(t, sv.TraceScore, nil).Gold
	return &g, nil
}

// markersIn returns the markers of one step.
func (sv *scoreView) markersIn(step int) []scoring.Marker {
	if sv == nil {
		return nil
	}
	var out []scoring.Marker
	for _, mk := range sv.Markers {
		if mk.Step == step {
			out = append(out, mk)
		}
	}
	return out
}
