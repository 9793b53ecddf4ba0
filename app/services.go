package app

// The engine's API, grouped by what a front end does with it, the way
// charmbracelet/crush groups its services (app.App{Sessions, Messages,
// …}): eng.Labels.ConfirmLabel, eng.Suite.Export, eng.Drift.Verify. The
// Engine stays the root: it owns the store, the configuration and the
// background rescore, and every service is a view of it, so a service
// method reaches the others through its engine. The root keeps only what
// concerns the whole session (Close, Config, the clock, the background).

// TraceService reads the traces, their cases and edit logs, and searches
// them.
type TraceService struct{ e *Engine }

// QueueService is the labeling queue: what is in it and who is on which
// trace.
type QueueService struct{ e *Engine }

// LabelService is a person's label actions on a case, undo and redo
// included, and the glossary their gold draws on.
type LabelService struct{ e *Engine }

// ScoreService scores traces and reads their stored scores.
type ScoreService struct{ e *Engine }

// SuiteService makes and reads regression suites: reports, exports,
// samples and the history of reports.
type SuiteService struct{ e *Engine }

// DriftService compares tool contracts across runs and keeps the list of
// approved contracts.
type DriftService struct{ e *Engine }

// RaterService is the labels of several raters on one case: progress,
// disagreement, adjudication and agreement.
type RaterService struct{ e *Engine }

// JudgeService runs judges (commands and models) over traces and
// calibrates them against people.
type JudgeService struct{ e *Engine }

// ImportService reads trace and case files, and live spans, into the
// database.
type ImportService struct{ e *Engine }

// wireServices points every service at its engine.
func (e *Engine) wireServices() {
	e.Traces = TraceService{e}
	e.Queue = QueueService{e}
	e.Labels = LabelService{e}
	e.Scores = ScoreService{e}
	e.Suite = SuiteService{e}
	e.Drift = DriftService{e}
	e.Raters = RaterService{e}
	e.Judges = JudgeService{e}
	e.Imports = ImportService{e}
}
