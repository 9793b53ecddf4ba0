package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// GlossaryEntry is a business term with its governed definition.
type GlossaryEntry struct {
	Term            string   `json:"term"`
	Definition      string   `json:"definition"`
	Predicate       string   `json:"predicate,omitempty"` // optional SQL predicate
	RequiredFields  []string `json:"required_fields"`
	ForbiddenFields []string `json:"forbidden_fields"`
	TimestampColumn string   `json:"timestamp_column,omitempty"`
	Calendar        string   `json:"calendar,omitempty"`
	UpdatedBy       string   `json:"updated_by,omitempty"`
	UpdatedAt       string   `json:"updated_at,omitempty"`
}

// SaveGlossary inserts or replaces a glossary entry (terms match case-insensitively).
func (s *Store) SaveGlossary(ctx context.Context, e GlossaryEntry, who string) error {
	e.Term = strings.TrimSpace(e.Term)
	if e.Term == "" || strings.TrimSpace(e.Definition) == "" {
		return fmt.Errorf("glossary: a term and its definition are required")
	}
	if e.RequiredFields == nil {
		e.RequiredFields = []string{}
	}
	if e.ForbiddenFields == nil {
		e.ForbiddenFields = []string{}
	}
	// An update first, then an insert: the term matches whatever its
	// ASCII case (lower() folds ASCII only, on both backends) and keeps the
	// spelling it was first saved with.
	return s.inTx(ctx, func(tx *sql.Tx) error {
		args := []any{e.Definition, e.Predicate, mustJSON(e.RequiredFields), mustJSON(e.ForbiddenFields),
			e.TimestampColumn, e.Calendar, who, s.stamp()}
		r, err := tx.ExecContext(ctx, sqlUpdateGlossary, append(args, e.Term)...)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil || n > 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, sqlInsertGlossary, append([]any{e.Term}, args...)...)
		return err
	})
}

// Glossary returns every entry sorted by term.
func (s *Store) Glossary(ctx context.Context) ([]GlossaryEntry, error) {
	rows, err := s.db.QueryContext(ctx, sqlGlossary)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []GlossaryEntry
	for rows.Next() {
		var e GlossaryEntry
		var req, forb string
		if err := rows.Scan(&e.Term, &e.Definition, &e.Predicate, &req, &forb, &e.TimestampColumn, &e.Calendar,
			&e.UpdatedBy, &e.UpdatedAt); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(req), &e.RequiredFields); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(forb), &e.ForbiddenFields); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// The SQL of this file, one constant per statement.
const (
	sqlUpdateGlossary = `UPDATE glossary SET definition = ?, predicate = ?, required_fields = ?, forbidden_fields = ?,
		timestamp_column = ?, calendar = ?, updated_by = ?, updated_at = ? WHERE lower(term) = lower(?)`
	sqlInsertGlossary = `INSERT INTO glossary (term, definition, predicate, required_fields, forbidden_fields,
		timestamp_column, calendar, updated_by, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlGlossary = `SELECT term, definition, predicate, required_fields, forbidden_fields,
		timestamp_column, calendar, updated_by, updated_at FROM glossary ORDER BY lower(term), term`
)
