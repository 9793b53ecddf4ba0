package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

const (
	// The trace of a case to change, locked (dialect.lockRow) before
	// anything else is read: its case_id is the trace's first case, kept
	// by the case triggers.
	sqlTraceForCase = `SELECT id, as_user, user_role, question, case_id FROM traces WHERE trace_id = ?`
	sqlCaseOfTrace  = `SELECT case_id FROM cases WHERE trace_pk = ? ORDER BY case_id LIMIT 1`
	// The machine's empty case for a trace; ON CONFLICT DO NOTHING so two
	// writers racing to create it both end up reading the one that won.
	// Its row comes back when this one created it.
	sqlInsSuggestedCase = sqlInsFirstCase + ` ON CONFLICT DO NOTHING RETURNING case_id`
	sqlWriteCase        = `UPDATE cases SET gold = ?, label = ?, content_sha = ?, gold_origin = ?, gold_sha = ?,
		updated_by = ?, updated_at = ? WHERE case_id = ?`
)

// caseIDForTrace locks the trace's row and finds its case inside tx,
// creating a suggested one (case_id = trace_id, empty gold) when the
// trace has none yet. It inserts-or-ignores and then reads, so concurrent
// writers agree on one case.
func (s *Store) caseIDForTrace(ctx context.Context, tx *sql.Tx, traceID, who string) (string, error) {
	caseID, _, err := s.caseOfTraceTx(ctx, tx, traceID, who)
	return caseID, err
}

// caseOfTraceTx is caseIDForTrace, and says whether it created the case
// (in tx: nothing else refers to it yet).
func (s *Store) caseOfTraceTx(ctx context.Context, tx *sql.Tx, traceID, who string) (string, bool, error) {
	var pk int64
	var user, role, question, caseID string
	err := tx.QueryRowContext(ctx, sqlTraceForCase+s.d.lockRow, traceID).Scan(&pk, &user, &role, &question, &caseID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, fmt.Errorf("trace %q: %w", traceID, ErrNotFound)
	}
	if err != nil || caseID != "" {
		return caseID, false, err
	}
	err = tx.QueryRowContext(ctx, sqlCaseOfTrace, pk).Scan(&caseID)
	if err == nil {
		return caseID, false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", false, err
	}
	c := model.Case{CaseID: traceID, SourceTrace: traceID, UserRole: role, AsUser: user, Question: question}
	err = tx.QueryRowContext(ctx, sqlInsSuggestedCase, c.CaseID, pk, traceID, role, user, question,
		mustJSON(c.Gold), mustJSON(c.Label), mustJSON(c.Cost), contentSHA(&c), who, s.stamp()).Scan(&caseID)
	if err == nil {
		return caseID, true, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", false, err
	}
	// Not inserted: another writer's case of this trace won, or case_id =
	// trace_id is taken by a case of another trace.
	err = tx.QueryRowContext(ctx, sqlCaseOfTrace, pk).Scan(&caseID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, fmt.Errorf("trace %q: case id %q belongs to another trace", traceID, traceID)
	}
	return caseID, false, err
}

// sqlLockCase locks a trace's row and its first case's (dialect.lockRow)
// and reads the case, and when who's reservation of the trace ends (0:
// none). Both rows are locked, not the trace's alone: after waiting for
// the lock, PostgreSQL re-reads the locked rows only, and the case as of
// the statement's start would undo the edit that held the lock.
const sqlLockCase = `SELECT ` + caseColumns + `, COALESCE((SELECT r.expires_ms FROM reservations r
		WHERE r.trace_pk = t.id AND r.labeler = ?), 0)
	FROM traces t JOIN cases c ON c.case_id = t.case_id AND c.trace_pk = t.id WHERE t.trace_id = ?`

// lockCaseOfTrace is caseIDForTrace and loadCaseTx in one round trip when
// the trace has a case, and says until when who holds the trace (ms, 0:
// not known).
func (s *Store) lockCaseOfTrace(ctx context.Context, tx *sql.Tx, traceID, who string) (*CaseRecord, int64, error) {
	var held int64
	cr, err := scanCase(extraScan{tx.QueryRowContext(ctx, sqlLockCase+s.d.lockRow, who, traceID), []any{&held}})
	if !errors.Is(err, sql.ErrNoRows) {
		return cr, held, err
	}
	cr, _, err = s.newCaseOfTrace(ctx, tx, traceID, who)
	return cr, 0, err
}

// newCaseOfTrace is lockCaseOfTrace for a trace whose case sqlLockCase
// did not find (none yet, most likely: it is created): the case and its
// raters, read unless the case was created here and so has none.
func (s *Store) newCaseOfTrace(ctx context.Context, tx *sql.Tx, traceID, who string) (*CaseRecord, *CaseRaters, error) {
	caseID, created, err := s.caseOfTraceTx(ctx, tx, traceID, who)
	if err != nil {
		return nil, nil, err
	}
	cr, err := s.loadCaseTx(ctx, tx, caseID)
	if err != nil || !created {
		return cr, nil, err
	}
	return cr, &CaseRaters{CaseID: caseID}, nil
}

// extraScan scans a row whose last columns, after those its reader
// knows, go to extra.
type extraScan struct {
	r     rowScanner
	extra []any
}

func (e extraScan) Scan(dest ...any) error { return e.r.Scan(append(dest, e.extra...)...) }

// FieldAdjudication is the pseudo-field of the event log that holds a
// case's adjudication (a model.Adjudication, null when none): one field so
// that an adjudication is an action like any edit, undone the same way.
const FieldAdjudication = "adjudication"

// loadCaseTx reads a case to change it. The write transaction holds the
// database's one writer lock from its start (BEGIN IMMEDIATE on SQLite),
// or on PostgreSQL the lock of the case's trace row (inCaseTx) or the
// whole writer lock (pg.go), so this is the value as the last writer
// left it: two processes editing one case never overwrite
// each other's field, and on one field the later write wins.
func (s *Store) loadCaseTx(ctx context.Context, tx *sql.Tx, caseID string) (*CaseRecord, error) {
	row := tx.QueryRowContext(ctx, sqlLoadCaseTx, caseID)
	return scanCase(row)
}

// writeCaseTx stores gold and label of c with the gold's origin and
// refreshes its content and gold hashes.
func writeCaseTx(ctx context.Context, tx *sql.Tx, c *model.Case, origin, who, at string) error {
	return execLater(ctx, tx, sqlWriteCase, mustJSON(c.Gold), mustJSON(c.Label), contentSHA(c), origin,
		GoldSHA(origin, c.Gold), who, at, c.CaseID)
}

func appendEvent(ctx context.Context, tx *sql.Tx, e *Event) error {
	var undoes any
	if e.Undoes != 0 {
		undoes = e.Undoes
	}
	if e.Group == groupInBatch {
		return queryRowLater(ctx, tx, []any{&e.ID}, sqlInsGroupEventLast, e.CaseID, e.At, e.Who, e.Field, nullJSON(e.Old), nullJSON(e.New), undoes)
	}
	var grp any
	if e.Group != 0 {
		grp = e.Group
	}
	return queryRowLater(ctx, tx, []any{&e.ID}, sqlInsGroupEvent, e.CaseID, e.At, e.Who, e.Field, nullJSON(e.Old), nullJSON(e.New), undoes, grp)
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
	return s.editStateTx(ctx, tx, nil, caseID, who, field, value, undoes, grp)
}

// editState is a case as its edit's transaction has left it so far: the
// case and its raters, read once under the trace's lock and kept as each
// write leaves them, so that a group of changes (EditGroup) reads them
// once instead of again for every field. Its gold and labels share no
// pointer or slice with what the caller of fn saw.
type editState struct {
	cr *CaseRecord
	rs CaseRaters
	// ev is where the next edit's event goes, nil: only returned. Its ID
	// may be filled in at commit (allowLater), so it must stay put.
	ev *Event
}

// event appends ev to the log, into st.ev when set (st may be nil).
func (st *editState) event(ctx context.Context, tx *sql.Tx, ev Event) (Event, error) {
	if st == nil || st.ev == nil {
		return ev, appendEvent(ctx, tx, &ev)
	}
	*st.ev = ev
	return ev, appendEvent(ctx, tx, st.ev)
}

// newEditState is the state of a case read in this transaction: cr as
// stored (gold and label cloned) and its raters (each label cloned).
func newEditState(cr *CaseRecord, rs CaseRaters) *editState {
	c := *cr
	c.Case.Gold, c.Case.Label = cloneGold(cr.Case.Gold), cloneLabel(cr.Case.Label)
	c.goldJSON, c.labelJSON = "", "" // not kept up to date by the writes
	rs.Labels = slices.Clone(rs.Labels)
	for i := range rs.Labels {
		rs.Labels[i].Label = cloneLabel(rs.Labels[i].Label)
	}
	return &editState{cr: &c, rs: rs}
}

// editStateTx is editCaseTx on st when the caller read the case (nil:
// read it here, as it stands in tx).
func (s *Store) editStateTx(ctx context.Context, tx *sql.Tx, st *editState, caseID, who, field string, value json.RawMessage, undoes, grp int64) (Event, error) {
	at := s.stamp()
	if field == "status" {
		return s.setStatusTx(ctx, tx, st, caseID, who, value, undoes, grp)
	}
	var cr *CaseRecord
	var rs *CaseRaters
	if st != nil && field != FieldAdjudication {
		cr, rs = st.cr, &st.rs
	} else {
		var err error
		cr, err = s.loadCaseTx(ctx, tx, caseID)
		if errors.Is(err, sql.ErrNoRows) {
			return Event{}, fmt.Errorf("case %q: %w", caseID, ErrNotFound)
		}
		if err != nil {
			return Event{}, err
		}
	}
	var old, nv json.RawMessage
	var err error
	switch {
	case field == FieldAdjudication:
		old, nv, err = s.editAdjudication(ctx, tx, cr, value)
	case strings.HasPrefix(field, "label."):
		old, nv, err = s.editRaterLabel(ctx, tx, cr, rs, who, field, value, at)
	default:
		if old, err = cr.Case.Field(field); err == nil {
			err = cr.Case.SetField(field, value)
		}
		nv, _ = cr.Case.Field(field)
	}
	if err != nil {
		return Event{}, err
	}
	origin := cr.GoldOrigin
	if strings.HasPrefix(field, "gold.") {
		origin = OriginHuman
	}
	if err := writeCaseTx(ctx, tx, &cr.Case, origin, who, at); err != nil {
		return Event{}, err
	}
	cr.GoldOrigin, cr.UpdatedBy, cr.UpdatedAt = origin, who, at
	if st != nil && field == FieldAdjudication {
		// The adjudication wrote more than st holds: read it again.
		if st.cr, err = s.loadCaseTx(ctx, tx, caseID); err == nil {
			var rs CaseRaters
			if rs, err = loadRaters(ctx, tx, caseID); err == nil {
				*st = *newEditState(st.cr, rs)
			}
		}
		if err != nil {
			return Event{}, err
		}
	}
	ev := Event{CaseID: caseID, At: at, Who: who, Field: field, Old: old, New: nv, Undoes: undoes, Group: grp}
	return st.event(ctx, tx, ev)
}

func (s *Store) setStatusTx(ctx context.Context, tx *sql.Tx, st *editState, caseID, who string, value json.RawMessage, undoes, grp int64) (Event, error) {
	var status string
	if err := json.Unmarshal(value, &status); err != nil || (status != string(model.StatusSuggested) && status != string(model.StatusConfirmed)) {
		return Event{}, fmt.Errorf("status: %s is not \"suggested\" or \"confirmed\"", value)
	}
	var old string
	if st != nil {
		old = string(st.cr.Status)
	} else if err := tx.QueryRowContext(ctx, sqlSetStatusTx, caseID).Scan(&old); err != nil {
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
	if err := execLater(ctx, tx, sqlSetStatusTx2, status, by, when, who, at, caseID); err != nil {
		return Event{}, err
	}
	if st != nil {
		st.cr.Status, st.cr.ConfirmedBy, st.cr.ConfirmedAt, st.cr.UpdatedBy, st.cr.UpdatedAt, st.cr.Review =
			model.Status(status), by, when, who, at, ""
	}
	if err := s.confirmRater(ctx, tx, st, caseID, who, model.Status(status), at); err != nil {
		return Event{}, err
	}
	ev := Event{CaseID: caseID, At: at, Who: who, Field: "status", Old: json.RawMessage(mustJSON(old)),
		New: json.RawMessage(mustJSON(status)), Undoes: undoes, Group: grp}
	return st.event(ctx, tx, ev)
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
		err := tx.QueryRowContext(ctx, sqlUndoTrace, traceID).Scan(&caseID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNothingToUndo
		}
		if err != nil {
			return err
		}
		var last Event
		var old, nv sql.NullString
		err = tx.QueryRowContext(ctx, sqlUndoTrace2, caseID, who).Scan(&last.ID, &last.Field, &old, &nv)
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
	rows, err := s.db.QueryContext(ctx, sqlEvents, caseID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// scanEvent reads one row of an events query (the columns of sqlEvents,
// in its order).
func scanEvent(rows *sql.Rows) (Event, error) {
	var e Event
	var old, nv sql.NullString
	if err := rows.Scan(&e.ID, &e.CaseID, &e.At, &e.Who, &e.Field, &old, &nv, &e.Undoes, &e.Group); err != nil {
		return e, err
	}
	if old.Valid {
		e.Old = json.RawMessage(old.String)
	}
	if nv.Valid {
		e.New = json.RawMessage(nv.String)
	}
	return e, nil
}

func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error { return inTxOn(ctx, s.db, fn) }

// inCaseTx is inTx for a transaction that changes one trace's case (its
// label, gold, events, raters, reservation): on PostgreSQL it takes the
// writer lock shared, and fn must lock the trace's row (dialect.lockRow)
// before it reads anything its writes depend on, so edits of one case
// run one at a time and edits of different cases side by side. Every row
// it writes hangs off that trace; writers across traces use inTx.
func (s *Store) inCaseTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return inTxOn(caseScope(ctx), s.db, fn)
}

// inTraceTx is inCaseTx on the case of one trace whose id is known
// before the transaction begins: the edits of one case then also take
// their turns in order (traceScope).
func (s *Store) inTraceTx(ctx context.Context, traceID string, fn func(*sql.Tx) error) error {
	return inTxOn(traceScope(ctx, traceID), s.db, fn)
}

// txBeginner begins transactions: the pool, or one connection of it.
type txBeginner interface {
	BeginTx(context.Context, *sql.TxOptions) (*sql.Tx, error)
}

// txTries is how often a transaction runs that PostgreSQL aborted for a
// concurrent one (serialization failure, deadlock), with a growing pause.
const txTries = 6

// inTxOn is inTx on db: fn runs in a transaction, again (a new one, after
// a pause) when PostgreSQL aborted it for a concurrent transaction, so fn
// must hold no state across runs besides what it reads in the transaction.
func inTxOn(ctx context.Context, db txBeginner, fn func(*sql.Tx) error) error {
	pause := 20 * time.Millisecond
	for try := 1; ; try++ {
		err := inTxOnce(ctx, db, fn)
		if err == nil || !retryable(err) {
			return err
		}
		if try == txTries {
			return &ConflictError{Tries: try, Err: err}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause + time.Duration(rand.Int64N(int64(pause)))):
		}
		pause *= 2
	}
}

func inTxOnce(ctx context.Context, db txBeginner, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// The SQL of this file, one constant per statement.
const (
	sqlLoadCaseTx = `SELECT ` + caseColumns + ` FROM cases c LEFT JOIN traces t ON t.id = c.trace_pk
		WHERE c.case_id = ?`
	sqlSetStatusTx  = `SELECT status FROM cases WHERE case_id = ?`
	sqlSetStatusTx2 = `UPDATE cases SET status = ?, confirmed_by = ?, confirmed_at = ?, updated_by = ?, updated_at = ?, review = ''
		WHERE case_id = ?`
	sqlUndoTrace = `SELECT c.case_id FROM cases c JOIN traces t ON t.id = c.trace_pk
			WHERE t.trace_id = ? ORDER BY c.case_id LIMIT 1`
	sqlUndoTrace2 = `SELECT e.id, e.field, e.old, e.new FROM events e
			WHERE e.case_id = ? AND e.who = ? AND e.undoes IS NULL AND e.field <> 'case'
			AND NOT EXISTS (SELECT 1 FROM events u WHERE u.undoes = e.id)
			ORDER BY e.id DESC LIMIT 1`
	sqlEvents = `SELECT id, case_id, at, who, field, old, new, COALESCE(undoes, 0), COALESCE(grp, 0)
		FROM events WHERE case_id = ? ORDER BY id`
	// sqlInsGroupEvent writes an edit's event in its group (NULL: none).
	sqlInsGroupEvent = `INSERT INTO events (case_id, at, who, field, old, new, undoes, grp) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`
	// sqlInsGroupEventLast is sqlInsGroupEvent in the group this session
	// wrote last (PostgreSQL: the group's identity sequence, groupInBatch).
	sqlInsGroupEventLast = `INSERT INTO events (case_id, at, who, field, old, new, undoes, grp)
		VALUES (?, ?, ?, ?, ?, ?, ?, currval(pg_get_serial_sequence('event_groups', 'id'))) RETURNING id`
)
