package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// HistoryEntry is one recorded report: what an export or a check made,
// when, and the suite it belongs to.
type HistoryEntry struct {
	ID   int64
	At   time.Time // the store's clock when it was recorded (UTC, millisecond precision)
	Kind string    // "export" or "check"
	// Suite is the suite's folder as the command was given it; ManifestSHA
	// is the sha256 of its suite.json ("" when it has none).
	Suite, ManifestSHA string
	// Report is report.json's bytes as the command wrote them.
	Report []byte
}

// History kinds: the commands that record a report.
const (
	HistoryExport = "export"
	HistoryCheck  = "check"
)

// RecordReport appends a report to the history, stamped with the store's
// clock, and returns its id. The history is append-only: a report is
// what a command made at the time, never rewritten.
func (s *Store) RecordReport(ctx context.Context, e HistoryEntry) (int64, error) {
	if e.Kind != HistoryExport && e.Kind != HistoryCheck {
		return 0, fmt.Errorf("report history: kind %q is not one of %s, %s", e.Kind, HistoryExport, HistoryCheck)
	}
	var id int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, sqlInsertHistory, s.nowMS(), e.Kind, e.Suite, e.ManifestSHA, string(e.Report)).Scan(&id)
	})
	return id, err
}

// ReportHistory returns the newest limit recorded reports (every one when
// limit <= 0), oldest first, as charts read them.
func (s *Store) ReportHistory(ctx context.Context, limit int) ([]HistoryEntry, error) {
	q, args := sqlHistoryAll, []any(nil)
	if limit > 0 {
		q, args = sqlHistoryNewest, []any{limit}
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []HistoryEntry
	for rows.Next() {
		var e HistoryEntry
		var ms int64
		var report string
		if err := rows.Scan(&e.ID, &ms, &e.Kind, &e.Suite, &e.ManifestSHA, &report); err != nil {
			return nil, err
		}
		e.At, e.Report = time.UnixMilli(ms).UTC(), []byte(report)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Newest first from the query (so LIMIT keeps the newest); oldest
	// first out.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// The SQL of this file, one constant per statement.
const (
	sqlInsertHistory = `INSERT INTO report_history (at_ms, kind, suite, manifest_sha, report)
		VALUES (?, ?, ?, ?, ?) RETURNING id`
	sqlHistoryColumns = `SELECT id, at_ms, kind, suite, manifest_sha, report FROM report_history ORDER BY at_ms DESC, id DESC`
	sqlHistoryNewest  = sqlHistoryColumns + ` LIMIT ?`
	sqlHistoryAll     = sqlHistoryColumns
)
