package store

import (
	"context"
	"database/sql"
	"encoding/json"
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

// reportColumns are a ReportRow's columns, after the trace pk (see scanReportRow).
const reportColumns = `t.trace_id, t.server, t.run_id, s.suggested_class, s.correct, s.grounded, s.needs_review,
	s.grounding_precision, s.grounding_recall, s.definition_match, s.freshness_pass, s.policy_violations,
	s.calls, s.clarifications, s.cost_usd, COALESCE(c.gold_origin = 'human', FALSE), COALESCE(c.status = 'confirmed', FALSE),
	CASE WHEN c.status = 'confirmed' THEN c.label END
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

// sqlReportRowsOf reads the report rows of a list of traces.
const sqlReportRowsOf = `SELECT t.id, ` + reportColumns + ` WHERE t.trace_id IN (?*)`

// EachReportRow reads the report rows of the scored traces in scope, in
// import order, a batch at a time.
func (s *Store) EachReportRow(ctx context.Context, scope ScoreScope, fn func([]ReportRow) error) error {
	var after int64
	for {
		out, last, err := s.reportRows(ctx, sqlEachReportRow[scope], after, eachScoreBatch)
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

// ReportRowsOf returns the report rows of the scored traces among ids, by
// trace id.
func (s *Store) ReportRowsOf(ctx context.Context, ids []string) (map[string]ReportRow, error) {
	out := make(map[string]ReportRow, len(ids))
	err := inLists(ids, func(list []any) error {
		rows, _, err := s.reportRows(ctx, withList(sqlReportRowsOf, len(list)), list...)
		if err != nil {
			return err
		}
		for _, r := range rows {
			out[r.TraceID] = r
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// reportRows runs one query of reportColumns; last is the greatest trace pk read.
func (s *Store) reportRows(ctx context.Context, q string, args ...any) (out []ReportRow, last int64, err error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var r ReportRow
		var pk int64
		var correct, grounded, def, fresh sql.NullBool
		var prec, rec sql.NullFloat64
		var viol sql.NullInt64
		var label sql.NullString
		m := &r.Metrics
		if err := rows.Scan(&pk, &r.TraceID, &r.Server, &r.RunID, &r.SuggestedClass, &correct, &grounded, &r.NeedsReview,
			&prec, &rec, &def, &fresh, &viol, &m.Calls, &m.Clarifications, &m.CostUSD, &r.HumanGold, &r.Confirmed,
			&label); err != nil {
			return nil, 0, err
		}
		last = max(last, pk)
		r.Correct, r.Grounded = scanNullBool(correct), scanNullBool(grounded)
		m.DefinitionMatch, m.FreshnessPass = scanNullBool(def), scanNullBool(fresh)
		if prec.Valid {
			m.Precision = &prec.Float64
		}
		if rec.Valid {
			m.Recall = &rec.Float64
		}
		if viol.Valid {
			v := int(viol.Int64)
			m.PolicyViolations = &v
		}
		if label.Valid {
			var l model.Label
			if err := json.Unmarshal([]byte(label.String), &l); err != nil {
				return nil, 0, fmt.Errorf("trace %s: label: %w", r.TraceID, err)
			}
			r.Label = &l
		}
		out = append(out, r)
	}
	return out, last, rows.Err()
}
