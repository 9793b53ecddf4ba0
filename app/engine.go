package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// Engine owns one database and the scoring configuration of a session, and
// offers every operation a front end needs. The CLI and the workbench call
// only the engine: one behaviour, one place.
type Engine struct {
	st    *store.Store
	files Files

	// mu guards the configuration: the workbench runs commands on several
	// goroutines, and saving a glossary entry installs a new one.
	mu  sync.Mutex
	cfg scoring.Config
	sha string          // configSHA(cfg): which stored scores are current
	sc  *scoring.Scorer // built once per configuration (see scorer)

	cases caseLocks  // serializes the label actions on one case (labels.go)
	bg    background // rescores the traces an action marked stale (background.go)
	fg    gate       // the label actions running now; the background's writes wait for them
	edits editQueue  // the workbench's actions in key order, kept through an outage (editqueue.go)

	// The services (services.go): the engine's API by what it is for.
	Traces  TraceService
	Queue   QueueService
	Labels  LabelService
	Scores  ScoreService
	Suite   SuiteService
	Drift   DriftService
	Raters  RaterService
	Judges  JudgeService
	Imports ImportService
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

// RedactSecrets masks every PostgreSQL password in a message (URL
// userinfo, percent-encoded or not, ?password=, key=value password=).
func RedactSecrets(msg string) string { return store.RedactSecrets(msg) }

// IsUnavailable says err is a database that cannot be read as it is or a
// server out of reach (store.IsUnavailable): a failed dependency.
func IsUnavailable(err error) bool { return store.IsUnavailable(err) }

// IsPostgres says a --db value names a PostgreSQL database (a postgres://
// or postgresql:// URL), not a file.
func IsPostgres(db string) bool { return store.IsPostgres(db) }

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
	e, err := newEngine(ctx, st, files)
	if err != nil {
		st.Close()
		return nil, err
	}
	return e, nil
}

// newEngine builds an engine over an open store, its configuration read
// from files and the store's glossary; the engine closes the store.
func newEngine(ctx context.Context, st *store.Store, files Files) (*Engine, error) {
	cfg, err := loadConfig(ctx, st, files)
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	return engineOver(st, files, cfg), nil
}

// engineOver is the one place an Engine is put together: over a store,
// with a configuration already read.
func engineOver(st *store.Store, files Files, cfg scoring.Config) *Engine {
	e := &Engine{st: st, files: files}
	e.fg.pause, e.fg.most = quietFor, quietAtMost
	e.useConfig(cfg)
	e.wireServices()
	return e
}

// ConfigError is a scoring configuration file that could not be read.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Close stops the background rescore (what it left undone stays marked
// in the database) and closes the database.
func (e *Engine) Close() error {
	e.stopEdits()
	e.stopBackground()
	return e.st.Close()
}

// ReadOnly says the database was opened read-only (the file is not
// writable by this process): browsing works, edits and scoring fail.
func (e *Engine) ReadOnly() bool { return e.st.ReadOnly() }

// Path is the database's file.
func (e *Engine) Path() string { return e.st.Path() }

// Config is the scoring configuration in force.
func (e *Engine) Config() scoring.Config {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cfg
}

// SetPolicy replaces the policy oracle (the demo bundles its own).
func (e *Engine) SetPolicy(p scoring.PolicyOracle) {
	cfg := e.Config()
	cfg.Policy = p
	e.useConfig(cfg)
}

// reloadGlossary rereads the store's glossary into the configuration after
// a gold edit saved a definition, so suggestions use it at once.
func (e *Engine) reloadGlossary(ctx context.Context) error {
	cfg, err := loadConfig(ctx, e.st, e.files)
	if err != nil {
		return err
	}
	cfg.Policy = e.Config().Policy
	e.useConfig(cfg)
	return nil
}

// ListTraces returns one page of the queue.
func (t TraceService) ListTraces(ctx context.Context, q Query) ([]TraceSummary, *Cursor, error) {
	rows, cur, err := t.e.st.ListTraces(ctx, q)
	if err == nil {
		err = t.e.markEdited(ctx, rows)
	}
	return rows, cur, err
}

// Counts returns the queue's header counts under a filter.
func (t TraceService) Counts(ctx context.Context, f Filter) (Counts, error) {
	return t.e.st.Counts(ctx, f)
}

// Distinct lists the values of one filterable attribute.
func (t TraceService) Distinct(ctx context.Context, attr string) ([]string, error) {
	return t.e.st.Distinct(ctx, attr)
}

// Trace loads one trace.
func (t TraceService) Trace(ctx context.Context, traceID string) (*model.Trace, error) {
	return t.e.st.Trace(ctx, traceID)
}

// CaseForTrace returns a trace's case, nil when it has none.
func (t TraceService) CaseForTrace(ctx context.Context, traceID string) (*CaseRecord, error) {
	return t.e.st.CaseForTrace(ctx, traceID)
}

// FieldEdit is one change to a case: a field path ("label.correct",
// "gold.required_fields", …) and its new JSON value.
type FieldEdit struct {
	Field string
	Value json.RawMessage
}

// The edits of a case are the actions of labels.go: each one group of
// events, computed from the stored case.

// SaveGlossary stores a definition and uses it for suggestions from now on.
func (l LabelService) SaveGlossary(ctx context.Context, g GlossaryEntry, who string) error {
	if err := l.e.st.SaveGlossary(ctx, g, who); err != nil {
		return err
	}
	return l.e.reloadGlossary(ctx)
}

// TraceScore is what the trace screen shows of a trace's scoring: the
// stored score and the gold the engine suggests for it.
type TraceScore struct {
	scoring.TraceScore
	SuggestedGold *model.Gold
	GoldSources   []string // why each suggested field is there
}

// Of returns a trace's score (rescored first when stale) with the
// engine's gold suggestion; nil when there is no such trace.
func (s ScoreService) Of(ctx context.Context, traceID string) (*TraceScore, error) {
	return s.e.scoreOf(ctx, traceID, nil)
}

// scoreOf is ScoreOf with the peers of the trace's question if read.
func (e *Engine) scoreOf(ctx context.Context, traceID string, peers *peerMemo) (*TraceScore, error) {
	if err := e.freshen(ctx, traceID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	raw, err := e.st.Score(ctx, traceID)
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	ts, err := DecodeScore(raw)
	if err != nil {
		return nil, fmt.Errorf("stored score of %s: %w", traceID, err)
	}
	g, err := e.suggestGold(ctx, traceID, peers)
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
// engine's configuration (glossary files included) and the trace's peers
// (read through the question index); nil for a trace the engine cannot
// find. A trace with human gold gets what the machine would have
// suggested: it still helps the labeler compare.
func (s ScoreService) SuggestGold(ctx context.Context, traceID string) (*scoring.GoldSuggestion, error) {
	return s.e.suggestGold(ctx, traceID, nil)
}

func (e *Engine) suggestGold(ctx context.Context, traceID string, peers *peerMemo) (*scoring.GoldSuggestion, error) {
	_, _, sugg, err := e.evaluateOne(ctx, traceID, peers)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return sugg, err
}

// Rescore scores traces again and stores the results: ids and the traces
// whose suggestions they feed, or (ids nil) every trace whose score is
// stale. It returns the results of the traces named (every trace when ids is nil).
func (s ScoreService) Rescore(ctx context.Context, ids []string, progress Progress) ([]Result, error) {
	return s.e.scoreAll(ctx, ids, progress)
}

// Evaluate scores traces without storing anything.
func (s ScoreService) Evaluate(ctx context.Context, ids []string, progress Progress) ([]Result, error) {
	return s.e.evaluate(ctx, ids, progress)
}

// driftAcrossRuns compares the tool contracts of consecutive runs.
func (d DriftService) AcrossRuns(ctx context.Context) (DriftOverview, error) {
	return driftAcrossRuns(ctx, d.e.st)
}

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
func (t TraceService) Events(ctx context.Context, caseID string) ([]Event, error) {
	return t.e.st.Events(ctx, caseID)
}

// Glossary lists the stored glossary.
func (l LabelService) Glossary(ctx context.Context) ([]GlossaryEntry, error) {
	return l.e.st.Glossary(ctx)
}

// Set makes ids the labeling queue, replacing the previous one.
func (q QueueService) Set(ctx context.Context, ids []string) error { return q.e.st.SetQueue(ctx, ids) }
