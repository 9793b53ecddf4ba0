package app

import (
	"github.com/tracelab-dev/tracelab/agreement"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/suite"
)

// The scorer's and the suite's types and parsers the front ends name, so
// that cli and tui import the engine alone (DESIGN.md: main → cli → app,
// tui → app). Aliases, not copies: one definition stays in scoring and
// suite, where the rules live.

// Drift.
type (
	AffectedCase  = scoring.AffectedCase
	DriftFinding  = scoring.DriftFinding
	DriftAcks     = scoring.DriftAcks
	DriftReport   = scoring.DriftReport
	DriftSeverity = scoring.DriftSeverity
	Lane          = scoring.Lane
	Tier          = scoring.Tier
)

const (
	LaneBreaking = scoring.LaneBreaking
	LaneRisky    = scoring.LaneRisky
	// LaneIgnore is the lane that drops a check from a report.
	LaneIgnore = scoring.LaneIgnore

	TierCalled      = scoring.TierCalled
	TierOutputFails = scoring.TierOutputFails
)

var (
	ParseLane          = scoring.ParseLane
	ParseDriftSeverity = scoring.ParseDriftSeverity
	ParseDriftAcks     = scoring.ParseDriftAcks
)

// Fields a call uses, and the guess markers in its reasoning.
type (
	FieldUse    = scoring.FieldUse
	FieldStatus = scoring.FieldStatus
	Role        = scoring.Role
	Marker      = scoring.Marker
	Schema      = scoring.Schema
	SchemaError = scoring.SchemaError
	SQLAnalysis = scoring.SQLAnalysis
)

var (
	NewSQLAnalyzer = scoring.NewSQLAnalyzer
	ParseSchema    = scoring.ParseSchema
)

// Policy and labels.
type (
	PolicyFile   = scoring.PolicyFile
	ServerLabels = scoring.ServerLabels
	LabelState   = scoring.LabelState
)

const (
	LabelLabeled = scoring.LabelLabeled
	LabelPartial = scoring.LabelPartial
	LabelPending = scoring.LabelPending
)

var ParsePolicy = scoring.ParsePolicy

// The suite: verdicts, report diffs, sampling.
type (
	Verdict       = suite.Verdict
	CheckSummary  = suite.CheckSummary
	ReportDiff    = suite.ReportDiff
	ServerDiff    = suite.ServerDiff
	MetricDelta   = suite.MetricDelta
	SampleOptions = suite.SampleOptions
)

const (
	VerdictRegressed = suite.VerdictRegressed
	VerdictFailing   = suite.VerdictFailing
	VerdictMissing   = suite.VerdictMissing
	VerdictFixed     = suite.VerdictFixed
)

var (
	DiffReports     = suite.DiffReports
	ParseOversample = suite.ParseOversample
	ErrTooFewTraces = suite.ErrTooFewTraces
	SampleDims      = suite.SampleDims
)

// Agreement tables: the confusion of two raters, as text and as Markdown.
var (
	ConfusionText     = agreement.ConfusionText
	ConfusionMarkdown = agreement.ConfusionMarkdown
)
