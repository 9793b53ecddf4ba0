package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// Labels per labeler. cases.label is a case's final label; each rater's own
// label is a row of rater_labels, and every write of a rater row (an edit,
// an import, a judge, an adjudication) settles the final label by
// model.FinalLabel in the same transaction, so the two never disagree.

// CaseRaters is every rater's label of one case, sorted by rater, with
// the adjudication if there is one and whether the case is disputed.
type CaseRaters struct {
	CaseID       string
	TraceID      string // "" for a standalone case
	Labels       []model.RaterLabel
	Adjudication *model.Adjudication
	Disputed     bool
}

// Rater returns the row of one rater, nil when they gave none.
func (cr *CaseRaters) Rater(name string) *model.RaterLabel {
	for i := range cr.Labels {
		if cr.Labels[i].Rater == name {
			return &cr.Labels[i]
		}
	}
	return nil
}

// querier is what a read runs on: the pool, a transaction, or one
// connection (see BatchReader).
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

const (
	raterColumns = `r.case_id, r.rater, r.kind, r.label, r.fields, r.status, r.rationale, r.updated_at, r.judge_model, r.prompt_sha256`
	sqlRaters    = `SELECT ` + raterColumns + ` FROM rater_labels r WHERE r.case_id = ? ORDER BY r.rater`
	// A case's raters (0) by name and its adjudication (1), whose picked,
	// note, adjudicated_by and adjudicated_at stand in the columns of
	// rater, kind, status and updated_at.
	sqlRatersAdj = `SELECT 0, r.rater, r.kind, r.label, r.fields, r.status, r.rationale, r.updated_at, r.judge_model, r.prompt_sha256
		FROM rater_labels r WHERE r.case_id = ?
		UNION ALL SELECT 1, a.picked, a.note, a.label, a.fields, a.adjudicated_by, '', a.adjudicated_at, '', ''
		FROM adjudications a WHERE a.case_id = ? ORDER BY 1, 2`
	// sqlRatersOfTrace is sqlRatersAdj for the case of a trace (its
	// first, traces.case_id), named by the trace's id.
	sqlRatersOfTrace = `SELECT 0, r.rater, r.kind, r.label, r.fields, r.status, r.rationale, r.updated_at, r.judge_model, r.prompt_sha256
		FROM rater_labels r WHERE r.case_id = (SELECT case_id FROM traces WHERE trace_id = ?1)
		UNION ALL SELECT 1, a.picked, a.note, a.label, a.fields, a.adjudicated_by, '', a.adjudicated_at, '', ''
		FROM adjudications a WHERE a.case_id = (SELECT case_id FROM traces WHERE trace_id = ?1) ORDER BY 1, 2`
	sqlPutRater = `INSERT INTO rater_labels (case_id, rater, kind, label, fields, status, rationale, updated_at, judge_model, prompt_sha256)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (case_id, rater) DO UPDATE SET kind = excluded.kind,
		label = excluded.label, fields = excluded.fields, status = excluded.status, rationale = excluded.rationale,
		updated_at = excluded.updated_at, judge_model = excluded.judge_model, prompt_sha256 = excluded.prompt_sha256`
	sqlPutAdj = `INSERT INTO adjudications (case_id, label, fields, picked, note, adjudicated_by, adjudicated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (case_id) DO UPDATE SET label = excluded.label, fields = excluded.fields,
		picked = excluded.picked, note = excluded.note, adjudicated_by = excluded.adjudicated_by,
		adjudicated_at = excluded.adjudicated_at`
	sqlDelAdj       = `DELETE FROM adjudications WHERE case_id = ?`
	sqlSetDisputed  = `UPDATE cases SET disputed = ? WHERE case_id = ? AND disputed <> ?`
	sqlRaterSetCase = `SELECT c.case_id, COALESCE(t.trace_id, ''), c.disputed FROM cases c LEFT JOIN traces t ON t.id = c.trace_pk
		WHERE c.case_id = ?`
	// Every case some rater labeled or someone adjudicated, in case order.
	sqlRatedCases = `SELECT c.case_id, COALESCE(t.trace_id, ''), c.disputed FROM cases c LEFT JOIN traces t ON t.id = c.trace_pk
		WHERE EXISTS (SELECT 1 FROM rater_labels r WHERE r.case_id = c.case_id)
		   OR EXISTS (SELECT 1 FROM adjudications a WHERE a.case_id = c.case_id)
		ORDER BY c.case_id`
	sqlAllRaters = `SELECT ` + raterColumns + ` FROM rater_labels r ORDER BY r.case_id, r.rater`
	sqlAllAdj    = `SELECT case_id, label, fields, picked, note, adjudicated_by, adjudicated_at FROM adjudications`
)

func scanRater(r rowScanner) (string, model.RaterLabel, error) {
	var caseID, kind, label, status string
	var fields sql.NullString
	var rl model.RaterLabel
	if err := r.Scan(&caseID, &rl.Rater, &kind, &label, &fields, &status, &rl.Rationale, &rl.UpdatedAt, &rl.Model, &rl.PromptSHA256); err != nil {
		return "", rl, err
	}
	rl.Kind, rl.Status = model.RaterKind(kind), model.Status(status)
	if err := json.Unmarshal([]byte(label), &rl.Label); err != nil {
		return "", rl, fmt.Errorf("case %s: label of %s: %w", caseID, rl.Rater, err)
	}
	if fields.Valid {
		rl.Fields = &model.FieldSets{}
		if err := json.Unmarshal([]byte(fields.String), rl.Fields); err != nil {
			return "", rl, fmt.Errorf("case %s: fields of %s: %w", caseID, rl.Rater, err)
		}
	}
	return caseID, rl, nil
}

func scanAdj(r rowScanner, caseID *string) (*model.Adjudication, error) {
	var a model.Adjudication
	var label string
	var fields sql.NullString
	dest := []any{&label, &fields, &a.Picked, &a.Note, &a.By, &a.At}
	if caseID != nil {
		dest = append([]any{caseID}, dest...)
	}
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(label), &a.Label); err != nil {
		return nil, fmt.Errorf("adjudication: label: %w", err)
	}
	if fields.Valid {
		a.Fields = &model.FieldSets{}
		if err := json.Unmarshal([]byte(fields.String), a.Fields); err != nil {
			return nil, fmt.Errorf("adjudication: fields: %w", err)
		}
	}
	return &a, nil
}

// loadRaters reads the raters and the adjudication of one case, in one
// query (an edit reads them twice while it holds the case's lock).
func loadRaters(ctx context.Context, q querier, caseID string) (CaseRaters, error) {
	rows, err := q.QueryContext(ctx, sqlRatersAdj, caseID, caseID)
	if err != nil {
		return CaseRaters{CaseID: caseID}, err
	}
	defer rows.Close()
	return scanRaters(rows, caseID)
}

// ratersRows are the rows of a raters query (sqlRatersAdj's columns):
// database/sql's or pgx's.
type ratersRows interface {
	Next() bool
	Scan(...any) error
	Err() error
}

// scanRaters reads the rows of a raters query of one case.
func scanRaters(rows ratersRows, caseID string) (CaseRaters, error) {
	cr := CaseRaters{CaseID: caseID}
	for rows.Next() {
		var adj int64
		var rl model.RaterLabel
		var kind, label, status string
		var fields sql.NullString
		if err := rows.Scan(&adj, &rl.Rater, &kind, &label, &fields, &status, &rl.Rationale, &rl.UpdatedAt,
			&rl.Model, &rl.PromptSHA256); err != nil {
			return cr, err
		}
		if adj == 1 {
			// The adjudication's columns in the rater's places (sqlRatersAdj).
			a := &model.Adjudication{Picked: rl.Rater, Note: kind, By: status, At: rl.UpdatedAt}
			if err := decodeLabelFields(label, fields, &a.Label, &a.Fields); err != nil {
				return cr, fmt.Errorf("case %s: adjudication: %w", caseID, err)
			}
			cr.Adjudication = a
			continue
		}
		rl.Kind, rl.Status = model.RaterKind(kind), model.Status(status)
		if err := decodeLabelFields(label, fields, &rl.Label, &rl.Fields); err != nil {
			return cr, fmt.Errorf("case %s: rater %s: %w", caseID, rl.Rater, err)
		}
		cr.Labels = append(cr.Labels, rl)
	}
	return cr, rows.Err()
}

// decodeLabelFields decodes a stored label and its field sets (NULL: none).
func decodeLabelFields(label string, fields sql.NullString, l *model.Label, f **model.FieldSets) error {
	if err := json.Unmarshal([]byte(label), l); err != nil {
		return fmt.Errorf("label: %w", err)
	}
	if fields.Valid {
		*f = &model.FieldSets{}
		if err := json.Unmarshal([]byte(fields.String), *f); err != nil {
			return fmt.Errorf("fields: %w", err)
		}
	}
	return nil
}

// set replaces (or adds) the row of rl's rater.
func (cr *CaseRaters) set(rl model.RaterLabel) {
	if p := cr.Rater(rl.Rater); p != nil {
		*p = rl
		return
	}
	cr.Labels = append(cr.Labels, rl)
}

// viewFor is the label a labeler edits: their own, else the case's final
// label as it stands (unset while disputed), so the first edit of a case
// somebody else labeled starts from what the workbench shows.
func (cr *CaseRaters) viewFor(who string, final model.Label) model.Label {
	if r := cr.Rater(who); r != nil {
		return r.Label
	}
	return final
}

func fieldsJSON(f *model.FieldSets) any {
	if f == nil {
		return nil
	}
	return mustJSON(f)
}

func putRaterTx(ctx context.Context, tx *sql.Tx, caseID string, rl model.RaterLabel) error {
	if rl.Status == "" {
		rl.Status = model.StatusSuggested
	}
	return execLater(ctx, tx, sqlPutRater, caseID, rl.Rater, string(rl.Kind), mustJSON(rl.Label), fieldsJSON(rl.Fields),
		string(rl.Status), rl.Rationale, rl.UpdatedAt, rl.Model, rl.PromptSHA256)
}

// settle applies model.FinalLabel to c (its label is the base) and the
// raters, and records whether the case is disputed.
func settle(ctx context.Context, tx *sql.Tx, c *model.Case, rs CaseRaters) error {
	fin := model.FinalLabel(c.Label, rs.Labels, rs.Adjudication)
	c.Label = fin.Label
	d := 0
	if fin.Disputed {
		d = 1
	}
	return execLater(ctx, tx, sqlSetDisputed, d, c.CaseID, d)
}

// settleTx settles a case's final label after its raters changed outside
// an edit (an import, a judge), writing the case only when the label moved.
func (s *Store) settleTx(ctx context.Context, tx *sql.Tx, caseID, who string) error {
	cr, err := s.loadCaseTx(ctx, tx, caseID)
	if err != nil {
		return err
	}
	rs, err := loadRaters(ctx, tx, caseID)
	if err != nil {
		return err
	}
	before := mustJSON(cr.Case.Label)
	if err := settle(ctx, tx, &cr.Case, rs); err != nil {
		return err
	}
	if mustJSON(cr.Case.Label) == before {
		return nil
	}
	return writeCaseTx(ctx, tx, &cr.Case, cr.GoldOrigin, who, s.stamp())
}

// editRaterLabel is the label half of editCaseTx: a "label.*" edit by who
// changes who's own row, and the case's label becomes the final one.
// fieldAsSeen is a field of a case as who edits it: a label field is
// who's own label of the case (the final label until they rate it), the
// adjudication is the case's adjudication, anything else is the case's.
// Undo compares against it to tell whether someone changed a field since.
func fieldAsSeen(ctx context.Context, tx *sql.Tx, cr *CaseRecord, who, field string) (json.RawMessage, error) {
	switch {
	case field == "status":
		return json.RawMessage(mustJSON(cr.Status)), nil
	case field == FieldAdjudication, strings.HasPrefix(field, "label."):
		rs, err := loadRaters(ctx, tx, cr.Case.CaseID)
		if err != nil {
			return nil, err
		}
		if field == FieldAdjudication {
			if rs.Adjudication == nil {
				return json.RawMessage("null"), nil
			}
			return json.RawMessage(mustJSON(rs.Adjudication)), nil
		}
		mine := cr.Case
		mine.Label = rs.viewFor(who, cr.Case.Label)
		return mine.Field(field)
	}
	return cr.Case.Field(field)
}

func (s *Store) editRaterLabel(ctx context.Context, tx *sql.Tx, cr *CaseRecord, known *CaseRaters, who, field string, value json.RawMessage, at string) (old, nv json.RawMessage, err error) {
	var rs CaseRaters
	if known != nil {
		rs = *known
	} else if rs, err = loadRaters(ctx, tx, cr.Case.CaseID); err != nil {
		return nil, nil, err
	}
	mine := cr.Case
	// A copy: setting the field must not write through to the rater's
	// row or the case's label as rs and cr hold them.
	mine.Label = cloneLabel(rs.viewFor(who, cr.Case.Label))
	if old, err = mine.Field(field); err != nil {
		return nil, nil, err
	}
	if err := mine.SetField(field, value); err != nil {
		return nil, nil, err
	}
	nv, _ = mine.Field(field)
	row := model.RaterLabel{Rater: who, Kind: model.RaterHuman, Status: model.StatusSuggested}
	if r := rs.Rater(who); r != nil {
		row = *r
	}
	row.Label, row.UpdatedAt = mine.Label, at
	if err := putRaterTx(ctx, tx, cr.Case.CaseID, row); err != nil {
		return nil, nil, err
	}
	rs.set(row)
	if known != nil {
		*known = rs
	}
	return old, nv, settle(ctx, tx, &cr.Case, rs)
}

// confirmRater records who's status on their own row when they confirm
// (or unconfirm) a case: confirming a label one never edited endorses it
// as it stands, which makes it one's own.
func (s *Store) confirmRater(ctx context.Context, tx *sql.Tx, st *editState, caseID, who string, status model.Status, at string) error {
	var rs CaseRaters
	if st != nil {
		rs = st.rs
	} else {
		var err error
		if rs, err = loadRaters(ctx, tx, caseID); err != nil {
			return err
		}
	}
	row := rs.Rater(who)
	if row == nil {
		if status != model.StatusConfirmed {
			return nil
		}
		var label model.Label
		if st != nil {
			label = cloneLabel(st.cr.Case.Label)
		} else {
			cr, err := s.loadCaseTx(ctx, tx, caseID)
			if err != nil {
				return err
			}
			label = cr.Case.Label
		}
		row = &model.RaterLabel{Rater: who, Kind: model.RaterHuman, Label: label}
	}
	row.Status, row.UpdatedAt = status, at
	if err := putRaterTx(ctx, tx, caseID, *row); err != nil {
		return err
	}
	if st != nil {
		rs.set(*row)
		st.rs = rs
	}
	return nil
}

// editAdjudication is the "adjudication" pseudo-field of editCaseTx: value
// is a model.Adjudication (null removes it, as an undo does).
func (s *Store) editAdjudication(ctx context.Context, tx *sql.Tx, cr *CaseRecord, value json.RawMessage) (old, nv json.RawMessage, err error) {
	caseID := cr.Case.CaseID
	rs, err := loadRaters(ctx, tx, caseID)
	if err != nil {
		return nil, nil, err
	}
	old = json.RawMessage("null")
	if rs.Adjudication != nil {
		old = json.RawMessage(mustJSON(rs.Adjudication))
	}
	var adj *model.Adjudication
	if err := json.Unmarshal(value, &adj); err != nil {
		return nil, nil, fmt.Errorf("adjudication: %w", err)
	}
	if adj == nil {
		if _, err := tx.ExecContext(ctx, sqlDelAdj, caseID); err != nil {
			return nil, nil, err
		}
		nv = json.RawMessage("null")
	} else {
		if _, err := tx.ExecContext(ctx, sqlPutAdj, caseID, mustJSON(adj.Label), fieldsJSON(adj.Fields), adj.Picked, adj.Note,
			adj.By, adj.At); err != nil {
			return nil, nil, err
		}
		nv = json.RawMessage(mustJSON(adj))
	}
	rs.Adjudication = adj
	return old, nv, settle(ctx, tx, &cr.Case, rs)
}

// PutRaterLabel stores a rater's label of a trace's case (creating the
// case when the trace has none) beside the others and settles the final
// label; a judge's label is written this way. The write is one event
// (field "rater", who the rater), outside any undoable action.
func (s *Store) PutRaterLabel(ctx context.Context, traceID string, rl model.RaterLabel) error {
	return s.inTraceTx(ctx, traceID, func(tx *sql.Tx) error {
		caseID, err := s.caseIDForTrace(ctx, tx, traceID, rl.Rater)
		if err != nil {
			return err
		}
		_, err = s.putRaterEventTx(ctx, tx, caseID, rl)
		return err
	})
}

// putRaterEventTx writes a rater's row with its event and settles the
// case; a row equal to the stored one (its time aside) writes nothing and
// changed is false.
func (s *Store) putRaterEventTx(ctx context.Context, tx *sql.Tx, caseID string, rl model.RaterLabel) (changed bool, err error) {
	at := s.stamp()
	if rl.Status == "" {
		rl.Status = model.StatusSuggested
	}
	rs, err := loadRaters(ctx, tx, caseID)
	if err != nil {
		return false, err
	}
	old := json.RawMessage("null")
	if r := rs.Rater(rl.Rater); r != nil {
		same := *r
		same.UpdatedAt = rl.UpdatedAt
		if mustJSON(same) == mustJSON(rl) {
			return false, nil
		}
		old = json.RawMessage(mustJSON(r))
	}
	if rl.UpdatedAt == "" {
		rl.UpdatedAt = at
	}
	if err := putRaterTx(ctx, tx, caseID, rl); err != nil {
		return false, err
	}
	ev := Event{CaseID: caseID, At: at, Who: rl.Rater, Field: "rater", Old: old, New: json.RawMessage(mustJSON(rl))}
	if err := appendEvent(ctx, tx, &ev); err != nil {
		return false, err
	}
	return true, s.settleTx(ctx, tx, caseID, rl.Rater)
}

// putAdjudicationTx stores an imported adjudication with its event and
// settles the case; the one stored already writes nothing.
func (s *Store) putAdjudicationTx(ctx context.Context, tx *sql.Tx, caseID string, adj model.Adjudication) (bool, error) {
	rs, err := loadRaters(ctx, tx, caseID)
	if err != nil {
		return false, err
	}
	if rs.Adjudication != nil && mustJSON(rs.Adjudication) == mustJSON(adj) {
		return false, nil
	}
	cr, err := s.loadCaseTx(ctx, tx, caseID)
	if err != nil {
		return false, err
	}
	old, nv, err := s.editAdjudication(ctx, tx, cr, json.RawMessage(mustJSON(adj)))
	if err != nil {
		return false, err
	}
	at := s.stamp()
	if err := writeCaseTx(ctx, tx, &cr.Case, cr.GoldOrigin, adj.By, at); err != nil {
		return false, err
	}
	ev := Event{CaseID: caseID, At: at, Who: adj.By, Field: FieldAdjudication, Old: old, New: nv}
	return true, appendEvent(ctx, tx, &ev)
}

// RatersOfTrace returns the raters of a trace's case (empty when the trace
// has no case yet).
func (s *Store) RatersOfTrace(ctx context.Context, traceID string) (CaseRaters, error) {
	var caseID string
	err := s.db.QueryRowContext(ctx, `SELECT case_id FROM traces WHERE trace_id = ?`, traceID).Scan(&caseID)
	if errors.Is(err, sql.ErrNoRows) {
		return CaseRaters{}, fmt.Errorf("trace %q: %w", traceID, ErrNotFound)
	}
	if err != nil || caseID == "" {
		return CaseRaters{TraceID: traceID}, err
	}
	return s.RatersOfCase(ctx, caseID)
}

// RatersOfCase returns the raters of one case.
func (s *Store) RatersOfCase(ctx context.Context, caseID string) (CaseRaters, error) {
	var traceID string
	var disputed bool
	err := s.db.QueryRowContext(ctx, sqlRaterSetCase, caseID).Scan(&caseID, &traceID, &disputed)
	if errors.Is(err, sql.ErrNoRows) {
		return CaseRaters{}, fmt.Errorf("case %q: %w", caseID, ErrNotFound)
	}
	if err != nil {
		return CaseRaters{}, err
	}
	cr, err := loadRaters(ctx, s.db, caseID)
	cr.TraceID, cr.Disputed = traceID, disputed
	return cr, err
}

// RatedCases returns the raters of every case some rater labeled or
// someone adjudicated, sorted by case id: the ratings table of agreement,
// progress and the disagreements list, in three queries.
func (s *Store) RatedCases(ctx context.Context) ([]CaseRaters, error) {
	rows, err := s.db.QueryContext(ctx, sqlRatedCases)
	if err != nil {
		return nil, err
	}
	var out []CaseRaters
	at := map[string]int{}
	for rows.Next() {
		var cr CaseRaters
		if err := rows.Scan(&cr.CaseID, &cr.TraceID, &cr.Disputed); err != nil {
			rows.Close()
			return nil, err
		}
		at[cr.CaseID] = len(out)
		out = append(out, cr)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if rows, err = s.db.QueryContext(ctx, sqlAllRaters); err != nil {
		return nil, err
	}
	for rows.Next() {
		caseID, rl, err := scanRater(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		if i, ok := at[caseID]; ok {
			out[i].Labels = append(out[i].Labels, rl)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if rows, err = s.db.QueryContext(ctx, sqlAllAdj); err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var caseID string
		a, err := scanAdj(rows, &caseID)
		if err != nil {
			return nil, err
		}
		if i, ok := at[caseID]; ok {
			out[i].Adjudication = a
		}
	}
	return out, rows.Err()
}
