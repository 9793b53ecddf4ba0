package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"tracelab/model"
)

// caseIDForTrace finds the case of a trace inside tx, creating a suggested
// one (case_id = trace_id, empty gold) when the trace has none yet.
func (s *Store) caseIDForTrace(ctx context.Context, tx *sql.Tx, traceID, who string) (string, error) {
	var pk int64
	var user, role, question string
	err := tx.QueryRowContext(ctx, `SELECT id, as_user, user_role, question FROM traces WHERE trace_id = ?`, traceID).
		Scan(&pk, &user, &role, &question)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("trace %q: %w", traceID, ErrNotFound)
	}
	if err != nil {
		return "", err
	}
	var caseID string
	err = tx.QueryRowContext(ctx, `SELECT case_id FROM cases WHERE trace_pk = ? ORDER BY case_id LIMIT 1`, pk).Scan(&caseID)
	if err == nil {
		return caseID, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	c := model.Case{CaseID: traceID, SourceTrace: traceID, UserRole: role, AsUser: user, Question: question}
	at := s.stamp()
	if _, err := tx.ExecContext(ctx, `INSERT INTO cases (case_id, trace_pk, source_trace, user_role, as_user, question,
		gold, label, cost, status, gold_origin, content_sha, updated_by, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'suggested', 'machine', ?, ?, ?)`,
		c.CaseID, pk, traceID, role, user, question, mustJSON(c.Gold), mustJSON(c.Label), mustJSON(c.Cost),
		contentSHA(&c), who, at); err != nil {
		return "", err
	}
	return c.CaseID, nil
}

func (s *Store) loadCaseTx(ctx context.Context, tx *sql.Tx, caseID string) (*CaseRecord, error) {
	row := tx.QueryRowContext(ctx, `SELECT `+caseColumns+` FROM cases c LEFT JOIN traces t ON t.id = c.trace_pk
		WHERE c.case_id = ?`, caseID)
	return scanCase(row)
}

// writeCaseTx stores gold and label of c and refreshes its content hash.
func writeCaseTx(ctx context.Context, tx *sql.Tx, c *model.Case, who, at string) error {
	_, err := tx.ExecContext(ctx, `UPDATE cases SET gold = ?, label = ?, content_sha = ?, updated_by = ?, updated_at = ?
		WHERE case_id = ?`, mustJSON(c.Gold), mustJSON(c.Label), contentSHA(c), who, at, c.CaseID)
	return err
}

func appendEvent(ctx context.Context, tx *sql.Tx, e *Event) error {
	var undoes any
	if e.Undoes != 0 {
		undoes = e.Undoes
	}
	var grp any
	if e.Group != 0 {
		grp = e.Group
	}
	r, err := tx.ExecContext(ctx, `INSERT INTO events (case_id, at, who, field, old, new, undoes, grp) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		e.CaseID, e.At, e.Who, e.Field, nullJSON(e.Old), nullJSON(e.New), undoes, grp)
	if err != nil {
		return err
	}
	e.ID, err = r.LastInsertId()
	return err
}

// EditTrace sets one field ("label.correct", "gold.required_fields", … see
// model.CaseFields) of the case of a trace, creating the case if needed,
// and logs the edit. It is one transaction: the edit and its event land together.
func (s *Store) EditTrace(ctx context.Context, traceID, who, field string, value json.RawMessage) (Event, error) {
	var ev Event
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		caseID, err := s.caseIDForTrace(ctx, tx, traceID, who)
		if err != nil {
			return err
		}
		ev, err = s.editCaseTx(ctx, tx, caseID, who, field, value, 0, 0)
		return err
	})
	return ev, err
}

// EditCase is EditTrace for a case named by its id.
func (s *Store) EditCase(ctx context.Context, caseID, who, field string, value json.RawMessage) (Event, error) {
	var ev Event
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		ev, err = s.editCaseTx(ctx, tx, caseID, who, field, value, 0, 0)
		return err
	})
	return ev, err
}

func (s *Store) editCaseTx(ctx context.Context, tx *sql.Tx, caseID, who, field string, value json.RawMessage, undoes, grp int64) (Event, error) {
	at := s.stamp()
	if field == "status" {
		return s.setStatusTx(ctx, tx, caseID, who, value, undoes, grp)
	}
	cr, err := s.loadCaseTx(ctx, tx, caseID)
	if errors.Is(err, sql.ErrNoRows) {
		return Event{}, fmt.Errorf("case %q: %w", caseID, ErrNotFound)
	}
	if err != nil {
		return Event{}, err
	}
	old, err := cr.Case.Field(field)
	if err != nil {
		return Event{}, err
	}
	if err := cr.Case.SetField(field, value); err != nil {
		return Event{}, err
	}
	nv, _ := cr.Case.Field(field)
	if err := writeCaseTx(ctx, tx, &cr.Case, who, at); err != nil {
		return Event{}, err
	}
	if len(field) > 5 && field[:5] == "gold." {
		if _, err := tx.ExecContext(ctx, `UPDATE cases SET gold_origin = 'human' WHERE case_id = ?`, caseID); err != nil {
			return Event{}, err
		}
	}
	ev := Event{CaseID: caseID, At: at, Who: who, Field: field, Old: old, New: nv, Undoes: undoes, Group: grp}
	return ev, appendEvent(ctx, tx, &ev)
}

func (s *Store) setStatusTx(ctx context.Context, tx *sql.Tx, caseID, who string, value json.RawMessage, undoes, grp int64) (Event, error) {
	var status string
	if err := json.Unmarshal(value, &status); err != nil || (status != string(model.StatusSuggested) && status != string(model.StatusConfirmed)) {
		return Event{}, fmt.Errorf("status: %s is not \"suggested\" or \"confirmed\"", value)
	}
	var old string
	if err := tx.QueryRowContext(ctx, `SELECT status FROM cases WHERE case_id = ?`, caseID).Scan(&old); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return Event{}, fmt.Errorf("case %q: %w", caseID, ErrNotFound)
		}
		return Event{}, err
	}
	at := s.stamp()
	by, when := "", ""
	if status == string(model.StatusConfirmed) {
		by, when = who, at
	}
	if _, err := tx.ExecContext(ctx, `UPDATE cases SET status = ?, confirmed_by = ?, confirmed_at = ?, updated_by = ?, updated_at = ?
		WHERE case_id = ?`, status, by, when, who, at, caseID); err != nil {
		return Event{}, err
	}
	ev := Event{CaseID: caseID, At: at, Who: who, Field: "status", Old: json.RawMessage(mustJSON(old)),
		New: json.RawMessage(mustJSON(status)), Undoes: undoes, Group: grp}
	return ev, appendEvent(ctx, tx, &ev)
}

// ConfirmTrace marks the case of a trace confirmed by who.
func (s *Store) ConfirmTrace(ctx context.Context, traceID, who string) (Event, error) {
	return s.EditTrace(ctx, traceID, who, "status", json.RawMessage(`"confirmed"`))
}

// ErrNothingToUndo is returned by Undo when who has no edit left to undo.
var ErrNothingToUndo = errors.New("nothing to undo")

// UndoTrace reverts the newest edit by who on the case of a trace that is
// not undone yet. The undo is itself an event (the log stays append-only).
func (s *Store) UndoTrace(ctx context.Context, traceID, who string) (Event, error) {
	var ev Event
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var caseID string
		err := tx.QueryRowContext(ctx, `SELECT c.case_id FROM cases c JOIN traces t ON t.id = c.trace_pk
			WHERE t.trace_id = ? ORDER BY c.case_id LIMIT 1`, traceID).Scan(&caseID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNothingToUndo
		}
		if err != nil {
			return err
		}
		var last Event
		var old, nv sql.NullString
		err = tx.QueryRowContext(ctx, `SELECT e.id, e.field, e.old, e.new FROM events e
			WHERE e.case_id = ? AND e.who = ? AND e.undoes IS NULL AND e.field <> 'case'
			AND NOT EXISTS (SELECT 1 FROM events u WHERE u.undoes = e.id)
			ORDER BY e.id DESC LIMIT 1`, caseID, who).Scan(&last.ID, &last.Field, &old, &nv)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNothingToUndo
		}
		if err != nil {
			return err
		}
		prev := json.RawMessage("null")
		if old.Valid {
			prev = json.RawMessage(old.String)
		}
		ev, err = s.editCaseTx(ctx, tx, caseID, who, last.Field, prev, last.ID, 0)
		return err
	})
	return ev, err
}

// Events returns the edit log of a case, oldest first.
func (s *Store) Events(ctx context.Context, caseID string) ([]Event, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, case_id, at, who, field, old, new, COALESCE(undoes, 0), COALESCE(grp, 0)
		FROM events WHERE case_id = ? ORDER BY id`, caseID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var old, nv sql.NullString
		if err := rows.Scan(&e.ID, &e.CaseID, &e.At, &e.Who, &e.Field, &old, &nv, &e.Undoes, &e.Group); err != nil {
			return nil, err
		}
		if old.Valid {
			e.Old = json.RawMessage(old.String)
		}
		if nv.Valid {
			e.New = json.RawMessage(nv.String)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// SuggestCase stores the machine's gold and label for a trace. It creates
// the trace's case when there is none, and refreshes a case only while it
// is still purely the machine's: status suggested, gold of machine origin,
// and no edit or import in its event log. A person's work is never overwritten.
func (s *Store) SuggestCase(ctx context.Context, traceID string, gold model.Gold, label model.Label) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		caseID, err := s.caseIDForTrace(ctx, tx, traceID, "tracelab")
		if err != nil {
			return err
		}
		var status, origin string
		var events int
		if err := tx.QueryRowContext(ctx, `SELECT status, gold_origin, (SELECT count(*) FROM events WHERE case_id = ?)
			FROM cases WHERE case_id = ?`, caseID, caseID).Scan(&status, &origin, &events); err != nil {
			return err
		}
		if status != string(model.StatusSuggested) || origin != "machine" || events > 0 {
			return nil
		}
		cr, err := s.loadCaseTx(ctx, tx, caseID)
		if err != nil {
			return err
		}
		cr.Case.Gold, cr.Case.Label = gold, label
		return writeCaseTx(ctx, tx, &cr.Case, "tracelab", s.stamp())
	})
}
