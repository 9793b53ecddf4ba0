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
	GoldSources   []string // why each suggested field is there
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

// suggestGold runs the scorer's gold suggestion for a trace: glossary terms
// its question uses, the confirmed gold or fields of grounded traces asking
// the same question on other servers, look-alikes used after a guess.
func suggestGold(ctx context.Context, st *store.Store, t *model.Trace, sv *scoreView) error {
	entries, err := st.Glossary(ctx)
	if err != nil {
		return err
	}
	cfg := scoring.Config{}
	for _, e := range entries {
		cfg.Glossary = append(cfg.Glossary, scoring.GlossaryEntry{Term: e.Term, Definition: e.Definition,
			Predicate: e.Predicate, RequiredFields: e.RequiredFields, ForbiddenFields: e.ForbiddenFields,
			TimestampColumn: e.TimestampColumn, Calendar: e.Calendar})
	}
	sc, err := scoring.NewScorer(cfg)
	if err != nil {
		return err
	}
	peers, err := loadPeers(ctx, st, t)
	if err != nil {
		return err
	}
	gs := sc.SuggestGold(t, sv.TraceScore, peers)
	sv.SuggestedGold, sv.GoldSources = &gs.Gold, gs.Sources
	return nil
}

// loadPeers finds the traces asking the same question (one search page):
// their confirmed gold, whether they are grounded and the fields they used.
func loadPeers(ctx context.Context, st *store.Store, t *model.Trace) ([]scoring.Peer, error) {
	rows, _, err := st.ListTraces(ctx, store.Query{Filter: store.Filter{Search: t.Question}, Limit: 50})
	if err != nil {
		return nil, err
	}
	var peers []scoring.Peer
	for _, r := range rows {
		if r.TraceID == t.TraceID || r.Server == t.Server || !scoring.SameQuestion(r.Question, t.Question) {
			continue
		}
		p := scoring.Peer{TraceID: r.TraceID, Question: r.Question, Server: r.Server}
		rec, err := st.CaseForTrace(ctx, r.TraceID)
		if err != nil {
			return nil, err
		}
		if rec != nil && rec.Status == model.StatusConfirmed {
			g := rec.Case.Gold
			p.Gold = &g
			p.Grounded = rec.Case.Label.Grounded != nil && *rec.Case.Label.Grounded
		}
		raw, err := st.Score(ctx, r.TraceID)
		if err != nil {
			return nil, err
		}
		if ps, err := decodeScore(raw); err == nil && ps != nil {
			for _, f := range ps.FieldsUsed {
				p.FieldsUsed = append(p.FieldsUsed, f.Field)
			}
			if p.Gold == nil && ps.Grounded != nil {
				p.Grounded = *ps.Grounded
			}
		}
		peers = append(peers, p)
	}
	return peers, nil
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
