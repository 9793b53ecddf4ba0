package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// Result is one scored trace with its case.
type Result struct {
	Score scoring.TraceScore
	Case  *store.CaseRecord // nil when the trace has no case
	// HumanGold says the gold scored against was written by a person
	// (imported from a suite or edited in the workbench).
	HumanGold bool
	// Suggested is the machine's gold for a trace without human gold, when
	// it was just computed (stored scores carry the gold in the case, not
	// where each field came from).
	Suggested *scoring.GoldSuggestion
	// Encodes: the trace got its data only through tools whose contracts
	// encode the definition (scoring.EncodesDefinition), so what it used
	// teaches the other servers' traces of its question (peerOfRow).
	Encodes bool
}

// ScoreScope says which stored results EachResult reads (the store's
// scopes, named through the engine so front ends need not import the store).
type ScoreScope = store.ScoreScope

// The scopes of EachResult.
const (
	ScopeAll       = store.ScopeAll       // every scored trace
	ScopeHumanGold = store.ScopeHumanGold // traces whose case has a person's gold
	ScopeConfirmed = store.ScopeConfirmed // traces whose case is confirmed
	ScopeCases     = store.ScopeCases     // traces that have a case
)

// Progress is told how many traces are done out of how many.
type Progress func(done, total int)

// ScoreSummary says what a scoring run did.
type ScoreSummary struct {
	Total  int // traces in the database
	Scored int // scored in this run (the rest were current)
	Review int // of those scored, how many need a person
}

// batch is how many traces are loaded and scored at a time: memory stays
// bounded by the batch, not the database.
const batch = 400

// configSHA hashes everything scoring reads besides traces and gold: the
// lexicon, lineage, glossary (files and the store's), the policy oracle
// (its file's content, or the command and timeout) and the trace clock. A
// stored score computed under another hash is stale.
func configSHA(cfg scoring.Config) string {
	b, err := json.Marshal(struct {
		Lexicon    []string
		Lineage    scoring.Lineage
		Glossary   []scoring.GlossaryEntry
		PolicyType string
		Policy     scoring.PolicyOracle
		Now        string
	}{cfg.Lexicon, cfg.Lineage, cfg.Glossary, fmt.Sprintf("%T", cfg.Policy), cfg.Policy, cfg.Now.UTC().String()})
	if err != nil {
		// An oracle that does not encode cannot be compared: never current.
		b = []byte(fmt.Sprintf("unhashable %p", cfg.Policy))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// useConfig installs a scoring configuration: its hash decides which
// stored scores are current, and the scorer (with its caches) is built
// once for it and kept across batches and calls.
func (e *Engine) useConfig(cfg scoring.Config) {
	sha := configSHA(cfg)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cfg, e.sha, e.sc = cfg, sha, nil
}

// configSHA is the hash of the configuration in force.
func (e *Engine) configSHA() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sha
}

func (e *Engine) scorer() (*scoring.Scorer, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sc == nil {
		sc, err := scoring.NewScorer(e.cfg)
		if err != nil {
			return nil, err
		}
		e.sc = sc
	}
	return e.sc, nil
}

// ScoreStale scores every trace whose stored score is missing or stale
// (its content, its gold or the configuration changed) and stores the
// scores and the machine's suggested cases; current scores are kept.
func (s ScoreService) ScoreStale(ctx context.Context, progress Progress) (ScoreSummary, error) {
	return s.e.withTotal(ctx, func() (ScoreSummary, error) { return s.e.scoreStale(ctx, progress, nil) })
}

// ScoreStaleEach is ScoreStale where each sees every result scored, as it
// is stored.
func (s ScoreService) ScoreStaleEach(ctx context.Context, each func(Result) error) (ScoreSummary, error) {
	var emit func([]Result) error
	if each != nil {
		emit = func(rs []Result) error {
			for _, r := range rs {
				if err := each(r); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return s.e.withTotal(ctx, func() (ScoreSummary, error) { return s.e.scoreStale(ctx, nil, emit) })
}

// withTotal is score's summary with the number of traces the database
// held before it ran. Only a summary someone reads needs it: on
// PostgreSQL the count reads every trace (half of a 100k-trace `report`'s
// 70-110 ms went to it), so what scores stale traces before it reads the
// scores (report, export, the judges) calls scoreStale alone.
func (e *Engine) withTotal(ctx context.Context, score func() (ScoreSummary, error)) (ScoreSummary, error) {
	total, err := e.st.CountTraces(ctx)
	if err != nil {
		return ScoreSummary{}, err
	}
	sum, err := score()
	sum.Total = total
	return sum, err
}

// scoreStale is ScoreStale's work; its summary leaves Total at 0.
func (e *Engine) scoreStale(ctx context.Context, progress Progress, emit func([]Result) error) (ScoreSummary, error) {
	var sum ScoreSummary
	// Each trace counts once, as its last scoring says, however many
	// passes scored it.
	review := map[string]bool{}
	each := func(rs []Result) error {
		for _, r := range rs {
			review[r.Score.TraceID] = r.Score.NeedsHumanReview
		}
		if emit != nil {
			return emit(rs)
		}
		return nil
	}
	// Two passes at most: a trace that teaches through its tools'
	// contracts is found so by its score (store.saveEncodes marks its
	// question), and the traces of the question scored before it in the
	// first pass learn from it in the second.
	for pass := 0; pass < 2; pass++ {
		marks, err := e.st.PeerMarks(ctx) // before the listing: see ScoreUnscored
		if err != nil {
			return sum, err
		}
		if pass > 0 && len(marks) == 0 {
			break
		}
		stale, err := e.st.StaleTraces(ctx, e.configSHA())
		if err != nil {
			return sum, err
		}
		_, err = e.scoreTraces(ctx, stale, true, true, progress, each)
		if err == nil {
			err = e.st.ClearPeerMarks(ctx, marks)
		}
		if err != nil {
			return sum, err
		}
	}
	sum.Scored = len(review)
	for _, r := range review {
		if r {
			sum.Review++
		}
	}
	return sum, nil
}

// ScoreTraces scores the named traces again whether or not their scores
// are current, and with them the traces whose suggested gold they feed
// (same question, gold not a person's), and stores the results.
func (s ScoreService) ScoreTraces(ctx context.Context, ids []string, progress Progress) (ScoreSummary, error) {
	todo, err := s.e.withTakers(ctx, ids)
	if err != nil {
		return ScoreSummary{}, err
	}
	return s.e.scoreTraces(ctx, todo, true, true, progress, nil)
}

// withTakers is ids (human gold first) plus the traces of the same
// questions that take their gold from peers, when any of ids can teach.
func (e *Engine) withTakers(ctx context.Context, ids []string) ([]store.StaleTrace, error) {
	cases, err := e.st.CasesForTraces(ctx, ids)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(ids))
	var human, rest []store.StaleTrace
	var keys []string
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		cr := cases[id]
		st := store.StaleTrace{TraceID: id, HumanGold: cr != nil && cr.GoldOrigin == store.OriginHuman}
		if st.HumanGold {
			human = append(human, st)
		} else {
			rest = append(rest, st)
		}
		if cr != nil && (st.HumanGold || cr.Status == model.StatusConfirmed) {
			keys = append(keys, store.QuestionKey(cr.Case.Question))
		}
	}
	takers, err := e.st.SuggestionTakers(ctx, dedupe(keys))
	if err != nil {
		return nil, err
	}
	for _, id := range takers {
		if !seen[id] {
			seen[id] = true
			rest = append(rest, store.StaleTrace{TraceID: id})
		}
	}
	return append(human, rest...), nil
}

func dedupe(xs []string) []string {
	sort.Strings(xs)
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// scoreTraces is the one scoring pass: traces with a person's gold first
// (they feed the others' suggestions), then the rest, each trace loaded
// once, the next batch loading while this one scores. Traces without a
// person's gold get a suggestion from the glossary and their question's
// peers (read through the question index, compressed once per question)
// and are scored against it. With write, every batch's scores and
// suggested cases are stored in one transaction; emit, when set, sees
// every batch's results. Nothing of the whole run is held in memory.
// With takers (and write), the traces whose suggestion a trace with a
// person's gold scored here feeds are rescored in the same run; without,
// exactly todo is scored and the caller sees to those takers (marks them
// stale for the background rescore).
func (e *Engine) scoreTraces(ctx context.Context, todo []store.StaleTrace, write, takers bool, progress Progress,
	emit func([]Result) error) (ScoreSummary, error) {
	var sum ScoreSummary
	sc, err := e.scorer()
	if err != nil {
		return sum, err
	}
	var human, rest []string
	for _, t := range todo {
		if t.HumanGold {
			human = append(human, t.TraceID)
		} else {
			rest = append(rest, t.TraceID)
		}
	}
	book := peerBook{}
	var teach []string // question keys of the traces with human gold scored here
	done := 0
	run := func(ids []string) error {
		// Writing a batch overlaps scoring the next (and loading the one
		// after): one goroutine each, two cores busy.
		if len(ids) == 0 {
			return nil
		}
		// A run of many batches reads them on a connection of its own,
		// its statements prepared once (see store.BatchConn), and writes
		// them on another; a short one (a gold edit's rescore) keeps to
		// the pool, whose warm caches the workbench's reads use.
		long := len(ids) > batch
		var from batchSource = e.st
		if long {
			bc, err := e.st.BatchConn(ctx)
			if err != nil {
				return err
			}
			defer bc.Close()
			from = bc
		}
		load := func(ctx context.Context, ids []string) (scoringBatch, error) { return loadScoring(ctx, from, ids) }
		w := newBatchWriter(ctx, e, write, long)
		err := loadAhead(ctx, ids, load, func(b scoringBatch) error {
			ts, cases := b.traces, b.cases
			// Only the traces without a person's gold read peers: a gold
			// edit's own rescore need not read its whole question.
			var takers []*model.Trace
			for _, t := range ts {
				if cr := cases[t.TraceID]; cr == nil || cr.GoldOrigin != store.OriginHuman {
					takers = append(takers, t)
				}
			}
			if err := book.load(ctx, e.st, takers); err != nil {
				return err
			}
			rs := scoreBatch(sc, ts, cases, book)
			for _, r := range rs {
				if r.HumanGold {
					teach = append(teach, store.QuestionKey(r.Case.Case.Question))
				}
				if r.Score.NeedsHumanReview {
					sum.Review++
				}
			}
			if err := w.put(rs); err != nil {
				return err
			}
			sum.Scored += len(rs)
			done += len(ts)
			if progress != nil {
				progress(done, len(todo))
			}
			if emit != nil {
				return emit(rs)
			}
			return nil
		})
		if werr := w.close(); err == nil {
			err = werr
		}
		return err
	}
	if err := run(human); err != nil {
		return sum, err
	}
	if len(human) > 0 && write && takers {
		// Their gold may have changed what the traces of the same
		// question are suggested: rescore those too, even if current.
		takers, err := e.st.SuggestionTakers(ctx, dedupe(teach))
		if err != nil {
			return sum, err
		}
		queued := make(map[string]bool, len(rest))
		for _, id := range rest {
			queued[id] = true
		}
		for _, id := range takers {
			if !queued[id] {
				rest = append(rest, id)
				queued[id] = true
			}
		}
		book = peerBook{} // the peers just rescored are read back fresh
	}
	if err := run(rest); err != nil {
		return sum, err
	}
	if o, ok := e.Config().Policy.(*CommandOracle); ok && o.Err() != nil {
		return sum, o.Err()
	}
	return sum, nil
}

// evaluate scores the traces named by ids (every trace when ids is nil)
// without writing anything. Traces whose case has human gold are scored
// against it. The others get a gold suggestion (glossary, grounded traces
// of the same question on other servers, look-alikes after a guess) and
// are scored against that.
func (e *Engine) evaluate(ctx context.Context, ids []string, progress Progress) ([]Result, error) {
	st := e.st
	var err error
	if ids == nil {
		if ids, err = st.TraceIDs(ctx, store.Filter{}); err != nil {
			return nil, err
		}
	}
	cases, err := st.CasesForTraces(ctx, ids)
	if err != nil {
		return nil, err
	}
	pos := make(map[string]int, len(ids))
	var human, rest []store.StaleTrace
	for i, id := range ids {
		pos[id] = i
		cr := cases[id]
		if cr != nil && cr.GoldOrigin == store.OriginHuman {
			human = append(human, store.StaleTrace{TraceID: id, HumanGold: true})
		} else {
			rest = append(rest, store.StaleTrace{TraceID: id})
		}
	}
	var out []Result
	_, err = e.scoreTraces(ctx, append(human, rest...), false, false, progress, func(rs []Result) error {
		out = append(out, rs...)
		return nil
	})
	if err != nil {
		return out, err
	}
	// In the order asked for.
	sort.SliceStable(out, func(i, j int) bool { return pos[out[i].Score.TraceID] < pos[out[j].Score.TraceID] })
	return out, nil
}

// scoreAll scores traces (those whose score is stale when ids is nil;
// else ids and the traces whose suggestions they feed), stores every score
// and the machine's suggested cases, and returns the results of every
// trace named (every trace when ids is nil), current ones read back.
func (e *Engine) scoreAll(ctx context.Context, ids []string, progress Progress) ([]Result, error) {
	if ids == nil {
		if _, err := e.scoreStale(ctx, progress, nil); err != nil {
			return nil, err
		}
		var out []Result
		err := e.Scores.EachResult(ctx, store.ScopeAll, func(r Result) error {
			out = append(out, r)
			return nil
		})
		return out, err
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	todo, err := e.withTakers(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []Result
	_, err = e.scoreTraces(ctx, todo, true, true, progress, func(rs []Result) error {
		for _, r := range rs {
			if want[r.Score.TraceID] {
				out = append(out, r)
			}
		}
		return nil
	})
	return out, err
}

// EachResult scores what is stale, then hands over the stored result of
// every trace in scope, in import order, one at a time: memory stays one
// batch deep however large the database.
func (s ScoreService) EachResult(ctx context.Context, scope ScoreScope, fn func(Result) error) error {
	return s.e.st.EachScore(ctx, scope, func(batch []store.StoredScore) error {
		for _, ss := range batch {
			var ts scoring.TraceScore
			if err := json.Unmarshal(ss.Detail, &ts); err != nil {
				return fmt.Errorf("stored score of %s: %w", ss.TraceID, err)
			}
			ts.Grounded = ss.Grounded
			r := Result{Score: withCaseID(ts, ss.Case), Case: ss.Case, HumanGold: ss.Case != nil && ss.Case.GoldOrigin == store.OriginHuman}
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	})
}

// withCaseID names the case a score was made against: the attached case's
// id, which a trace without metadata.case_id does not carry itself (score
// --format jsonl printed "" for it).
func withCaseID(ts scoring.TraceScore, cr *store.CaseRecord) scoring.TraceScore {
	if cr != nil && cr.Case.CaseID != "" {
		ts.CaseID = cr.Case.CaseID
	}
	return ts
}

// freshen rescores one trace when its stored score is missing or stale
// (a peer's teaching marked it so, among others), so what a screen shows
// of it is current.
func (e *Engine) freshen(ctx context.Context, traceID string) error {
	if e.ReadOnly() {
		return nil // nothing can be stored: the score stored is the one shown
	}
	ok, err := e.st.ScoreCurrent(ctx, traceID, e.configSHA())
	if err != nil || ok {
		return err
	}
	mark, err := e.st.PeerMarkOf(ctx, traceID) // before the peers are read
	if err != nil {
		return err
	}
	human, err := e.scoreOne(ctx, traceID)
	if err != nil {
		return err
	}
	if !human {
		if mark == 0 {
			return nil
		}
		// Its question stays marked for its other takers; this one has
		// seen the mark.
		return e.st.SawPeerMark(ctx, traceID, mark)
	}
	// Its score (grounded, the fields it used) is part of what it teaches:
	// the traces it teaches are marked stale and rescored in the background.
	n, err := e.st.MarkTakersStale(ctx, []string{traceID})
	if n > 0 {
		e.rescoreInBackground(traceID)
	}
	return err
}

// scoreOne scores one trace and stores its score, and nothing else (the
// traces it teaches are the caller's, see freshen and afterAction), so a
// screen waits for one trace. human says its gold is a person's.
func (e *Engine) scoreOne(ctx context.Context, traceID string) (human bool, err error) {
	cases, err := e.st.CasesForTraces(ctx, []string{traceID})
	if err != nil {
		return false, err
	}
	cr := cases[traceID]
	human = cr != nil && cr.GoldOrigin == store.OriginHuman
	_, err = e.scoreTraces(ctx, []store.StaleTrace{{TraceID: traceID, HumanGold: human}}, true, false, nil, nil)
	return human, err
}
