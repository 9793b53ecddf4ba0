package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"tracelab/model"
	"tracelab/scoring"
	"tracelab/store"
)

// Engine owns one database and the scoring configuration of a session, and
// offers every operation a front end needs. The CLI and the workbench call
// only the engine: one behaviour, one place.
type Engine struct {
	st    *store.Store
	files Files

	mu  sync.RWMutex // guards cfg: commands of the workbench run concurrently
	cfg scoring.Config
}

// The store's row and query types, re-exported so front ends name them
// through the engine and never import the store.
type (
	Filter        = store.Filter
	Query         = store.Query
	Cursor        = store.Cursor
	SortKey       = store.SortKey
	TraceSummary  = store.TraceSummary
	Counts        = store.Counts
	CaseRecord    = store.CaseRecord
	Event         = store.Event
	GlossaryEntry = store.GlossaryEntry
)

// SortKeys lists the sort orders in the order the queue cycles through them.
var SortKeys = store.SortKeys

// SortImported is the default order: as imported.
const SortImported = store.SortImported

// Errors a front end tells apart.
var (
	ErrNothingToUndo = store.ErrNothingToUndo
	ErrNotFound      = store.ErrNotFound
)

// NonFiniteError is a report number that came out infinite or NaN.
type NonFiniteError = scoring.NonFiniteError

// IsLocked says err is the database staying locked by another writer
// past the lock wait.
func IsLocked(err error) bool { return store.IsLocked(err) }

// IsReadOnly says err is a write to a database opened read-only.
func IsReadOnly(err error) bool { return store.IsReadOnly(err) }

// Open opens (creating if needed) the database at path and loads the
// scoring configuration from files and the database's glossary. Errors in
// a configuration file are ConfigErrors.
func Open(ctx context.Context, path string, files Files) (*Engine, error) {
	return OpenWith(ctx, path, files, OpenOptions{})
}

// OpenOptions steer how the database is opened (the lock wait).
type OpenOptions = store.Options

// DefaultLockWait is the lock wait when OpenOptions leave it zero.
const DefaultLockWait = store.DefaultLockWait

// OpenWith is Open with options.
func OpenWith(ctx context.Context, path string, files Files, opts OpenOptions) (*Engine, error) {
	st, err := store.OpenWith(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	e, err := New(ctx, st, files)
	if err != nil {
		st.Close()
		return nil, err
	}
	return e, nil
}

// New builds an engine over an open store; the engine closes it.
func New(ctx context.Context, st *store.Store, files Files) (*Engine, error) {
	cfg, err := LoadConfig(ctx, st, files)
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	return &Engine{st: st, files: files, cfg: cfg}, nil
}

// ConfigError is a scoring configuration file that could not be read.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Close closes the database.
func (e *Engine) Close() error { return e.st.Close() }

// ReadOnly says the database was opened read-only (the file is not
// writable by this process): browsing works, edits and scoring fail.
func (e *Engine) ReadOnly() bool { return e.st.ReadOnly() }

// Path is the database's file.
func (e *Engine) Path() string { return e.st.Path() }

// Config is the scoring configuration in force.
func (e *Engine) Config() scoring.Config {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.cfg
}

// SetPolicy replaces the policy oracle (the demo bundles its own).
func (e *Engine) SetPolicy(p scoring.PolicyOracle) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cfg.Policy = p
}

// reloadGlossary rereads the store's glossary into the configuration after
// a gold edit saved a definition, so suggestions use it at once.
func (e *Engine) reloadGlossary(ctx context.Context) error {
	cfg, err := LoadConfig(ctx, e.st, e.files)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	cfg.Policy = e.cfg.Policy
	e.cfg = cfg
	return nil
}

// ListTraces returns one page of the queue.
func (e *Engine) ListTraces(ctx context.Context, q Query) ([]TraceSummary, *Cursor, error) {
	return e.st.ListTraces(ctx, q)
}

// Counts returns the queue's header counts under a filter.
func (e *Engine) Counts(ctx context.Context, f Filter) (Counts, error) { return e.st.Counts(ctx, f) }

// Distinct lists the values of one filterable attribute.
func (e *Engine) Distinct(ctx context.Context, attr string) ([]string, error) {
	return e.st.Distinct(ctx, attr)
}

// Trace loads one trace.
func (e *Engine) Trace(ctx context.Context, traceID string) (*model.Trace, error) {
	return e.st.Trace(ctx, traceID)
}

// CaseForTrace returns a trace's case, nil when it has none.
func (e *Engine) CaseForTrace(ctx context.Context, traceID string) (*CaseRecord, error) {
	return e.st.CaseForTrace(ctx, traceID)
}

// FieldEdit is one change to a case: a field path ("label.correct",
// "gold.required_fields", …) and its new JSON value.
type FieldEdit struct {
	Field string
	Value json.RawMessage
}

// EditResult is a trace's case after an edit, and its new score when the
// edit moved what scoring reads (nil otherwise).
type EditResult struct {
	Case  *CaseRecord
	Score *TraceScore
	Event Event // the last event written
}

// Edit applies edits to a trace's case in order (creating the case), each
// its own transaction and event so a crash between two keeps the first,
// then rescores the trace once if any gold field changed.
func (e *Engine) Edit(ctx context.Context, traceID, who string, edits ...FieldEdit) (EditResult, error) {
	var res EditResult
	gold := false
	for _, ed := range edits {
		ev, err := e.st.EditTrace(ctx, traceID, who, ed.Field, ed.Value)
		if err != nil {
			res.Case, _ = e.st.CaseForTrace(ctx, traceID)
			return res, err
		}
		res.Event = ev
		gold = gold || strings.HasPrefix(ed.Field, "gold.")
	}
	return e.afterEdit(ctx, traceID, gold, res)
}

// Confirm marks a trace's case confirmed by who.
func (e *Engine) Confirm(ctx context.Context, traceID, who string) (EditResult, error) {
	ev, err := e.st.ConfirmTrace(ctx, traceID, who)
	if err != nil {
		return EditResult{}, err
	}
	return e.afterEdit(ctx, traceID, false, EditResult{Event: ev})
}

// Undo undoes who's last edit of a trace's case (ErrNothingToUndo when
// there is none).
func (e *Engine) Undo(ctx context.Context, traceID, who string) (EditResult, error) {
	ev, err := e.st.UndoTrace(ctx, traceID, who)
	if err != nil {
		return EditResult{}, err
	}
	return e.afterEdit(ctx, traceID, strings.HasPrefix(ev.Field, "gold."), EditResult{Event: ev})
}

// afterEdit reloads the case and, when its gold moved, rescores the trace
// so its score (and the queue's suggested class) follows the gold.
func (e *Engine) afterEdit(ctx context.Context, traceID string, gold bool, res EditResult) (EditResult, error) {
	rec, err := e.st.CaseForTrace(ctx, traceID)
	if err != nil {
		return res, err
	}
	res.Case = rec
	if !gold {
		return res, nil
	}
	if _, err := ScoreAll(ctx, e.st, e.Config(), []string{traceID}, nil); err != nil {
		return res, fmt.Errorf("rescoring %s: %w", traceID, err)
	}
	res.Score, err = e.ScoreOf(ctx, traceID)
	return res, err
}

// SaveGlossary stores a definition and uses it for suggestions from now on.
func (e *Engine) SaveGlossary(ctx context.Context, g GlossaryEntry, who string) error {
	if err := e.st.SaveGlossary(ctx, g, who); err != nil {
		return err
	}
	return e.reloadGlossary(ctx)
}

// TraceScore is what the trace screen shows of a trace's scoring: the
// stored score and the gold the engine suggests for it.
type TraceScore struct {
	scoring.TraceScore
	SuggestedGold *model.Gold
	GoldSources   []string // why each suggested field is there
}

// ScoreOf returns a trace's stored score with the engine's gold
// suggestion; nil when the trace has not been scored.
func (e *Engine) ScoreOf(ctx context.Context, traceID string) (*TraceScore, error) {
	raw, err := e.st.Score(ctx, traceID)
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	ts, err := DecodeScore(raw)
	if err != nil {
		return nil, fmt.Errorf("stored score of %s: %w", traceID, err)
	}
	g, err := e.SuggestGold(ctx, traceID)
	if err != nil {
		return nil, err
	}
	if g != nil {
		ts.SuggestedGold, ts.GoldSources = &g.Gold, g.Sources
	}
	return ts, nil
}

// DecodeScore reads a stored score, its markers in text order; a corrupt
// one is an error.
func DecodeScore(raw json.RawMessage) (*TraceScore, error) {
	var ts TraceScore
	if err := json.Unmarshal(raw, &ts.TraceScore); err != nil {
		return nil, err
	}
	sort.SliceStable(ts.Markers, func(i, j int) bool {
		a, b := ts.Markers[i], ts.Markers[j]
		if a.Step != b.Step {
			return a.Step < b.Step
		}
		return a.Start < b.Start
	})
	return &ts, nil
}

// SuggestGold is the gold the scorer suggests for one trace, with the
// engine's configuration (glossary files included) and the trace's peers;
// nil for a trace the engine cannot find.
func (e *Engine) SuggestGold(ctx context.Context, traceID string) (*scoring.GoldSuggestion, error) {
	rs, err := Evaluate(ctx, e.st, e.Config(), []string{traceID}, nil)
	if errors.Is(err, store.ErrNotFound) || len(rs) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if rs[0].Suggested != nil {
		return rs[0].Suggested, nil
	}
	// A trace with human gold: what the machine would have suggested
	// still helps the labeler compare.
	t, err := e.st.Trace(ctx, traceID)
	if err != nil {
		return nil, err
	}
	sc, err := scoring.NewScorer(e.Config())
	if err != nil {
		return nil, err
	}
	peers, err := e.peersOf(ctx, t)
	if err != nil {
		return nil, err
	}
	gs := sc.SuggestGold(t, rs[0].Score, peers)
	return &gs, nil
}

// peersOf returns the scored traces asking the same question as t.
func (e *Engine) peersOf(ctx context.Context, t *model.Trace) ([]scoring.Peer, error) {
	cases, err := casesByTrace(ctx, e.st)
	if err != nil {
		return nil, err
	}
	peers := map[string][]scoring.Peer{}
	if err := storedPeers(ctx, e.st, cases, []string{t.TraceID}, peers); err != nil {
		return nil, err
	}
	return peers[questionKey(t.Question)], nil
}

// Rescore scores traces again (all when ids is nil) and stores the results.
func (e *Engine) Rescore(ctx context.Context, ids []string, progress Progress) ([]Result, error) {
	return ScoreAll(ctx, e.st, e.Config(), ids, progress)
}

// Evaluate scores traces without storing anything.
func (e *Engine) Evaluate(ctx context.Context, ids []string, progress Progress) ([]Result, error) {
	return Evaluate(ctx, e.st, e.Config(), ids, progress)
}

// Report builds report.json over the cases with human gold (all: every
// scored trace).
func (e *Engine) Report(ctx context.Context, all bool) ([]model.Report, error) {
	reps, err := Report(ctx, e.st, e.Config(), all)
	if err != nil {
		return nil, err
	}
	return reps, scoring.CheckReports(reps)
}

// DriftAcrossRuns compares the tool contracts of consecutive runs.
func (e *Engine) DriftAcrossRuns(ctx context.Context) (DriftOverview, error) {
	return DriftAcrossRuns(ctx, e.st)
}

// Store is the engine's database, for the engine's own packages' tests and
// the commands not yet moved behind engine methods.
func (e *Engine) Store() *store.Store { return e.st }

// MarkersIn returns the guess markers of one step, in text order.
func (ts *TraceScore) MarkersIn(step int) []scoring.Marker {
	if ts == nil {
		return nil
	}
	var out []scoring.Marker
	for _, mk := range ts.Markers {
		if mk.Step == step {
			out = append(out, mk)
		}
	}
	return out
}

// Events lists the edit log of a case, oldest first.
func (e *Engine) Events(ctx context.Context, caseID string) ([]Event, error) {
	return e.st.Events(ctx, caseID)
}

// Glossary lists the stored glossary.
func (e *Engine) Glossary(ctx context.Context) ([]GlossaryEntry, error) { return e.st.Glossary(ctx) }

// SetQueue makes ids the labeling queue, replacing the previous one.
func (e *Engine) SetQueue(ctx context.Context, ids []string) error { return e.st.SetQueue(ctx, ids) }
