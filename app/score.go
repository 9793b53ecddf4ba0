package app

import (
	"context"
	"encoding/json"
	"strings"
	"unicode"

	"tracelab/model"
	"tracelab/scoring"
	"tracelab/store"
)

// Result is one scored trace with its case.
type Result struct {
	Score scoring.TraceScore
	Case  *store.CaseRecord // nil when the trace has no case
	// HumanGold says the gold scored against was written by a person
	// (imported from a suite or edited in the workbench).
	HumanGold bool
	// Suggested is the machine's gold for a trace without human gold.
	Suggested *scoring.GoldSuggestion
}

// Progress is told how many traces are done out of how many.
type Progress func(done, total int)

// batch is how many traces are loaded and scored at a time: memory stays
// bounded by the batch, not the database.
const batch = 400

// Evaluate scores the traces named by ids (every trace when ids is nil)
// without writing anything. Traces whose case has human gold are scored
// against it. The others get a gold suggestion (glossary, grounded traces
// of the same question on other servers, look-alikes after a guess) and
// are scored against that.
func Evaluate(ctx context.Context, st *store.Store, cfg scoring.Config, ids []string, progress Progress) ([]Result, error) {
	sc, err := scoring.NewScorer(cfg)
	if err != nil {
		return nil, err
	}
	cases, err := casesByTrace(ctx, st)
	if err != nil {
		return nil, err
	}
	peers := map[string][]scoring.Peer{}
	if ids == nil {
		if ids, err = st.TraceIDs(ctx, store.Filter{}); err != nil {
			return nil, err
		}
	} else if err := storedPeers(ctx, st, cases, ids, peers); err != nil {
		return nil, err
	}
	// Pass 1: score every trace against its human gold (or none).
	results := make([]Result, 0, len(ids))
	needSuggestion := []int{}
	err = eachBatch(ctx, st, ids, func(ts []*model.Trace) {
		jobs := make([]scoring.Job, len(ts))
		rs := make([]Result, len(ts))
		for i, t := range ts {
			cr := cases[t.TraceID]
			rs[i].Case = cr
			jobs[i].Trace = t
			if cr != nil && cr.GoldOrigin == "human" {
				g := cr.Case.Gold
				jobs[i].Gold = &g
				rs[i].HumanGold = true
			}
		}
		scores := sc.ScoreAll(jobs, 0)
		for i, t := range ts {
			rs[i].Score = scores[i]
			if !rs[i].HumanGold {
				needSuggestion = append(needSuggestion, len(results)+i)
			}
			p := peerOf(t, rs[i])
			peers[questionKey(t.Question)] = append(peers[questionKey(t.Question)], p)
		}
		results = append(results, rs...)
		if progress != nil {
			progress(len(results), len(ids))
		}
	})
	if err != nil {
		return nil, err
	}
	// Pass 2: suggest gold for the rest and score them against it.
	if len(needSuggestion) == 0 {
		return results, nil
	}
	sub := make([]string, len(needSuggestion))
	for i, ri := range needSuggestion {
		sub[i] = results[ri].Score.TraceID
	}
	k := 0
	err = eachBatch(ctx, st, sub, func(ts []*model.Trace) {
		jobs := make([]scoring.Job, len(ts))
		sugg := make([]scoring.GoldSuggestion, len(ts))
		for i, t := range ts {
			r := &results[needSuggestion[k+i]]
			sugg[i] = sc.SuggestGold(t, r.Score, peers[questionKey(t.Question)])
			g := sugg[i].Gold
			jobs[i] = scoring.Job{Trace: t, Gold: &g}
		}
		scores := sc.ScoreAll(jobs, 0)
		for i := range ts {
			r := &results[needSuggestion[k+i]]
			r.Score, r.Suggested = scores[i], &sugg[i]
		}
		k += len(ts)
	})
	if err != nil {
		return nil, err
	}
	if o, ok := cfg.Policy.(*CommandOracle); ok && o.Err() != nil {
		return results, o.Err()
	}
	return results, nil
}

// eachBatch loads the traces by id a batch at a time.
func eachBatch(ctx context.Context, st *store.Store, ids []string, fn func([]*model.Trace)) error {
	for start := 0; start < len(ids); start += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		ts, err := st.LoadTraces(ctx, ids[start:min(start+batch, len(ids))])
		if err != nil {
			return err
		}
		fn(ts)
	}
	return nil
}

func casesByTrace(ctx context.Context, st *store.Store) (map[string]*store.CaseRecord, error) {
	all, err := st.Cases(ctx, true)
	if err != nil {
		return nil, err
	}
	m := make(map[string]*store.CaseRecord, len(all))
	for i := range all {
		c := &all[i]
		if c.TraceID != "" {
			if _, dup := m[c.TraceID]; !dup {
				m[c.TraceID] = c
			}
		}
	}
	return m, nil
}

// peerOf is what a scored trace offers other traces of the same question
// as a source of gold: a person's gold, or the fields it used when grounded.
func peerOf(t *model.Trace, r Result) scoring.Peer {
	p := scoring.Peer{TraceID: t.TraceID, Question: t.Question, Server: t.Server}
	if r.HumanGold {
		g := r.Case.Case.Gold
		p.Gold = &g
	}
	// Grounded only counts when measured against a person's gold (or said
	// by a person): against no gold, or the machine's own guess, every
	// trace looks grounded and would teach its own mistakes to the others.
	var grounded *bool
	if r.HumanGold {
		grounded = r.Score.Grounded
	}
	if r.Case != nil && r.Case.Status == model.StatusConfirmed && r.Case.Case.Label.Grounded != nil {
		grounded = r.Case.Case.Label.Grounded
	}
	p.Grounded = grounded != nil && *grounded
	for _, f := range r.Score.FieldsUsed {
		p.FieldsUsed = append(p.FieldsUsed, f.Field)
	}
	return p
}

// storedPeers adds the already scored traces outside ids as peers, from
// their stored scores, so scoring a few new traces still learns from the rest.
func storedPeers(ctx context.Context, st *store.Store, cases map[string]*store.CaseRecord, ids []string, peers map[string][]scoring.Peer) error {
	skip := make(map[string]bool, len(ids))
	for _, id := range ids {
		skip[id] = true
	}
	scored, err := st.ScoredTraces(ctx)
	if err != nil {
		return err
	}
	for _, s := range scored {
		if skip[s.TraceID] {
			continue
		}
		var ts scoring.TraceScore
		if err := json.Unmarshal(s.Detail, &ts); err != nil {
			continue // a detail from an older scorer: it simply offers nothing
		}
		ts.Grounded = s.Grounded
		r := Result{Score: ts, Case: cases[s.TraceID]}
		r.HumanGold = r.Case != nil && r.Case.GoldOrigin == "human"
		t := &model.Trace{TraceID: s.TraceID, Question: s.Question, Server: s.Server}
		peers[questionKey(s.Question)] = append(peers[questionKey(s.Question)], peerOf(t, r))
	}
	return nil
}

// questionKey buckets questions so peers are only compared within a
// bucket; scoring.SameQuestion makes the final call.
func questionKey(q string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// ScoreAll evaluates traces (all when ids is nil), stores every score and
// the machine's suggested case for traces nobody has labeled, and returns
// the results.
func ScoreAll(ctx context.Context, st *store.Store, cfg scoring.Config, ids []string, progress Progress) ([]Result, error) {
	results, err := Evaluate(ctx, st, cfg, ids, progress)
	if err != nil {
		return results, err
	}
	return results, saveResults(ctx, st, results)
}

// saveResults stores the scores of evaluated results and the machine's
// suggested case for the traces nobody has labeled.
func saveResults(ctx context.Context, st *store.Store, results []Result) error {
	rows := make([]store.ScoreRow, len(results))
	for i, r := range results {
		detail, err := json.Marshal(r.Score)
		if err != nil {
			return err
		}
		class := ""
		if r.Score.SuggestedClass != nil {
			class = string(*r.Score.SuggestedClass)
		}
		rows[i] = store.ScoreRow{TraceID: r.Score.TraceID, SuggestedClass: class, Markers: len(r.Score.Markers),
			NeedsReview: r.Score.NeedsHumanReview, Correct: r.Score.Correct, Grounded: r.Score.Grounded, Detail: detail}
	}
	if err := st.SaveScores(ctx, rows); err != nil {
		return err
	}
	for _, r := range results {
		// Only a suggestion with substance becomes a case: a trace the
		// machine has nothing to say about stays unlabeled ("none").
		if r.Suggested == nil || (r.Score.SuggestedClass == nil && isEmptyGold(r.Suggested.Gold)) {
			continue
		}
		if err := st.SuggestCase(ctx, r.Score.TraceID, r.Suggested.Gold, scoring.SuggestLabel(r.Score)); err != nil {
			return err
		}
	}
	return nil
}

// Report builds report.json over the cases with human gold, using the
// person's label where confirmed and the scorer's suggestion otherwise;
// all adds the traces whose gold is only the machine's suggestion.
func Report(ctx context.Context, st *store.Store, cfg scoring.Config, all bool) ([]model.Report, error) {
	results, err := Evaluate(ctx, st, cfg, nil, nil)
	if err != nil {
		return nil, err
	}
	return BuildReport(results, all), nil
}

// BuildReport turns evaluated results into report.json.
func BuildReport(results []Result, all bool) []model.Report {
	var crs []scoring.CaseResult
	for _, r := range results {
		if !r.HumanGold && !all {
			continue
		}
		cr := scoring.CaseResult{Score: r.Score}
		if r.Case != nil && r.HumanGold {
			l := r.Case.Case.Label
			cr.Label = &l
			cr.Confirmed = r.Case.Status == model.StatusConfirmed
		}
		crs = append(crs, cr)
	}
	return scoring.BuildReport(crs)
}

func isEmptyGold(g model.Gold) bool {
	return len(g.RequiredFields) == 0 && len(g.ForbiddenFields) == 0 && g.Definition == "" && g.Window == nil &&
		g.FreshnessBoundHours == nil && g.PolicyScope == ""
}
