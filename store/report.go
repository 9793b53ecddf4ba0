package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/tracelab-dev/tracelab/model"
)

// ReportRow is what report.json reads of one scored trace: the score's
// columns, never its detail JSON, and of its case only what the verdict
// needs.
type ReportRow struct {
	TraceID, Server, RunID string
	SuggestedClass         string // "" for none
	Correct, Grounded      *bool
	NeedsReview            bool
	Metrics                ScoreMetrics
	HumanGold              bool // the case's gold is a person's
	Confirmed              bool // the case is confirmed
	// Label is the case's label, read only where the case is confirmed
	// (the report takes an unconfirmed case's verdict from the scorer).
	Label *model.Label
}

// reportColumns are a ReportRow's columns, after the trace pk (see reportRows).
var reportColumns = `t.trace_id, t.server, t.run_id, ` + reportScoreColumns + `
	FROM traces t JOIN scores s ON s.trace_pk = t.id
	LEFT JOIN cases c ON c.case_id = t.case_id AND c.trace_pk = t.id`

// sqlEachReportRow pages through the report rows of one scope after a
// trace pk. In a scope that needs a case, the pages go by the case's
// trace_pk (the join makes it the trace's id, so the rows and their order
// are the same): SQLite then reads them from the cases' index in order,
// where ordering by t.id sorted every case in scope after the cursor for
// each page of 1000 (the report's first run at a million traces read
// each confirmed case's rows ten times).
var sqlEachReportRow = func() map[ScoreScope]string {
	m := map[ScoreScope]string{}
	for scope, where := range scopeWhere {
		key := "c.trace_pk"
		if scope == ScopeAll {
			key = "t.id" // c may be NULL
		}
		m[scope] = `SELECT t.id, ` + reportColumns + ` WHERE ` + key + ` > ? AND ` + where + ` ORDER BY ` + key + ` LIMIT ?`
	}
	return m
}()

// sqlEachConfirmedRow is sqlEachReportRow[ScopeConfirmed] on SQLite (R's
// and `report`'s scope): the same rows from the partial covering indexes
// of migration 0041, which hold the confirmed cases, their traces and
// their scores and nothing else, so that a report over a file the OS has
// not cached reads a few hundred pages, not each row's own (24,000 at a
// million traces). A confirmed case's trace has case_status 'confirmed'
// or 'pending' (a confirmed case whose label is unset, 0005) and its
// score confirmed = 1, as the triggers of 0003, 0005 and 0041 keep them;
// TestConfirmedReportRowsAreEveryConfirmedCase holds the two queries to
// the same rows. CROSS JOIN keeps the cases outermost, read in trace
// order, and INDEXED BY the indexes (a statement naming one that is
// missing fails, never reads the tables instead).
var sqlEachConfirmedRow = `SELECT t.id, t.trace_id, t.server, t.run_id, ` + reportScoreColumns + `
	FROM cases c INDEXED BY cases_confirmed_report
	CROSS JOIN traces t INDEXED BY traces_confirmed_report
	CROSS JOIN scores s INDEXED BY scores_confirmed_report
	WHERE c.status = 'confirmed' AND c.trace_pk > ?
		AND t.id = c.trace_pk AND t.case_id = c.case_id AND t.case_status IN ('confirmed', 'pending')
		AND s.trace_pk = t.id AND s.confirmed = 1
	ORDER BY c.trace_pk LIMIT ?`

// EachReportRow reads the report rows of the scored traces in scope, in
// import order, a batch at a time.
func (s *Store) EachReportRow(ctx context.Context, scope ScoreScope, fn func([]ReportRow) error) error {
	q := sqlEachReportRow[scope]
	if scope == ScopeConfirmed && s.d == sqliteDialect {
		q = sqlEachConfirmedRow
	}
	var after int64
	for {
		out, last, err := s.reportRows(ctx, q, after, eachScoreBatch)
		if err != nil || len(out) == 0 {
			return err
		}
		if err := fn(out); err != nil {
			return err
		}
		if len(out) < eachScoreBatch {
			return nil
		}
		after = last
	}
}

// reportRows runs one query of reportColumns; last is the greatest trace pk read.
func (s *Store) reportRows(ctx context.Context, q string, args ...any) (out []ReportRow, last int64, err error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var pk int64
	var traceID, server, runID string
	var sc reportScan
	dests := append([]any{&pk, &traceID, &server, &runID}, sc.dests()...)
	for rows.Next() {
		if err := rows.Scan(dests...); err != nil {
			return nil, 0, err
		}
		last = max(last, pk)
		r := ReportRow{TraceID: traceID, Server: server, RunID: runID}
		if err := sc.fill(&r, decodeLabel); err != nil {
			return nil, 0, err
		}
		out = append(out, r)
	}
	return out, last, rows.Err()
}

// reportScoreColumns are a ReportRow's columns after its trace's id,
// server and run: the score s's and those of the trace's case c (see
// reportScan).
var reportScoreColumns = reportScoreColumnsOf("c.gold_origin", "c.status", "c.label")

// reportScoreColumnsOf is reportScoreColumns with the trace's case's
// gold_origin, status and label read from the expressions given. The
// score's NOT NULL columns are read through COALESCE for the case pages,
// which read them over a LEFT JOIN (NULL where the trace has no score).
func reportScoreColumnsOf(origin, status, label string) string {
	return `COALESCE(s.suggested_class, ''), s.correct, s.grounded, COALESCE(s.needs_review, 0),
	s.grounding_precision, s.grounding_recall, s.definition_match, s.freshness_pass, s.policy_violations,
	COALESCE(s.calls, 0), COALESCE(s.clarifications, 0), COALESCE(s.cost_usd, 0),
	COALESCE(` + origin + ` = 'human', FALSE), COALESCE(` + status + ` = 'confirmed', FALSE),
	CASE WHEN ` + status + ` = 'confirmed' THEN ` + label + ` END`
}

// reportScan holds what one row's reportScoreColumns scan into; fill
// copies it out, so one reportScan serves every row of a query.
type reportScan struct {
	class                string
	correct, grounded    sql.NullBool
	review               bool
	def, fresh           sql.NullBool
	prec, rec            sql.NullFloat64
	viol                 sql.NullInt64
	calls, clarif        int
	cost                 float64
	humanGold, confirmed bool
	label                sql.NullString
}

func (sc *reportScan) dests() []any {
	return []any{&sc.class, &sc.correct, &sc.grounded, &sc.review, &sc.prec, &sc.rec, &sc.def, &sc.fresh, &sc.viol,
		&sc.calls, &sc.clarif, &sc.cost, &sc.humanGold, &sc.confirmed, &sc.label}
}

// fill sets r's score and case columns from sc, decoding the label with
// label (r.TraceID, r.Server and r.RunID are the caller's).
func (sc *reportScan) fill(r *ReportRow, label func(string) (model.Label, error)) error {
	m := &r.Metrics
	r.SuggestedClass, r.NeedsReview = sc.class, sc.review
	r.Correct, r.Grounded = scanNullBool(sc.correct), scanNullBool(sc.grounded)
	m.DefinitionMatch, m.FreshnessPass = scanNullBool(sc.def), scanNullBool(sc.fresh)
	if sc.prec.Valid {
		v := sc.prec.Float64
		m.Precision = &v
	}
	if sc.rec.Valid {
		v := sc.rec.Float64
		m.Recall = &v
	}
	if sc.viol.Valid {
		v := int(sc.viol.Int64)
		m.PolicyViolations = &v
	}
	m.Calls, m.Clarifications, m.CostUSD = sc.calls, sc.clarif, sc.cost
	r.HumanGold, r.Confirmed = sc.humanGold, sc.confirmed
	if sc.label.Valid {
		l, err := label(sc.label.String)
		if err != nil {
			return fmt.Errorf("trace %s: label: %w", r.TraceID, err)
		}
		r.Label = &l
	}
	return nil
}

func decodeLabel(s string) (model.Label, error) { return decodeJSON[model.Label](s) }
