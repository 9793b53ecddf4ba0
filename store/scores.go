package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
)

// ScoreRow is the scorer's verdict on one trace: a few columns the queue
// filters and sorts on, and the full detail as scoring's JSON.
type ScoreRow struct {
	TraceID        string
	SuggestedClass string
	Markers        int
	NeedsReview    bool
	Correct        *bool
	Grounded       *bool
	Detail         json.RawMessage
}

// SaveScores replaces the scores of the given traces in one transaction.
func (s *Store) SaveScores(ctx context.Context, rows []ScoreRow) error {
	at := s.stamp()
	return s.inTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO scores (trace_pk, suggested_class, markers, needs_review,
			correct, grounded, detail, scored_at)
			SELECT id, ?, ?, ?, ?, ?, ?, ? FROM traces WHERE trace_id = ?
			ON CONFLICT (trace_pk) DO UPDATE SET suggested_class = excluded.suggested_class,
			markers = excluded.markers, needs_review = excluded.needs_review, correct = excluded.correct,
			grounded = excluded.grounded, detail = excluded.detail, scored_at = excluded.scored_at`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, r := range rows {
			detail := r.Detail
			if len(detail) == 0 {
				detail = json.RawMessage("{}")
			}
			if _, err := st.ExecContext(ctx, r.SuggestedClass, r.Markers, r.NeedsReview, nullBool(r.Correct),
				nullBool(r.Grounded), string(detail), at, r.TraceID); err != nil {
				return err
			}
		}
		return nil
	})
}

// Score returns the stored score detail of a trace, nil when not scored.
func (s *Store) Score(ctx context.Context, traceID string) (json.RawMessage, error) {
	var detail string
	err := s.db.QueryRowContext(ctx, `SELECT s.detail FROM scores s JOIN traces t ON t.id = s.trace_pk
		WHERE t.trace_id = ?`, traceID).Scan(&detail)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return json.RawMessage(detail), err
}

func nullBool(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// ScoredTrace is the stored verdict of one trace, for building peers.
type ScoredTrace struct {
	TraceID, Question, Server string
	Grounded                  *bool
	Detail                    json.RawMessage
}

// ScoredTraces returns every trace that has a score, in import order.
func (s *Store) ScoredTraces(ctx context.Context) ([]ScoredTrace, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT t.trace_id, t.question, t.server, s.grounded, s.detail
		FROM traces t JOIN scores s ON s.trace_pk = t.id ORDER BY t.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ScoredTrace
	for rows.Next() {
		var st ScoredTrace
		var g sql.NullBool
		var d string
		if err := rows.Scan(&st.TraceID, &st.Question, &st.Server, &g, &d); err != nil {
			return nil, err
		}
		if g.Valid {
			b := g.Bool
			st.Grounded = &b
		}
		st.Detail = json.RawMessage(d)
		out = append(out, st)
	}
	return out, rows.Err()
}
