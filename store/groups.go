package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/tracelab-dev/tracelab/model"
)

// FieldChange sets one field of a case ("label.correct", "status", … see
// model.CaseFields) to a JSON value.
type FieldChange struct {
	Field string
	Value json.RawMessage
}

// Group is one stored action on a case: an edit of one or more fields, or
// the undo or redo of another action. Its events hold every field change.
type Group struct {
	ID     int64
	Action string // edit | undo | redo
	Events []Event
	// Peers is how many questions the action marked stale (0 or 1): it
	// changed what the case teaches the traces of its question that are
	// scored against gold suggested from their peers (see markAfterEditTx
	// and stale.go).
	Peers int64
	// Case is the case as the action's transaction left it, its label the
	// settled one as stored, for the caller to show without reading it
	// again; nil when the action did not say (the caller reads it).
	Case *CaseRecord
}

// ErrNothingToRedo is returned by RedoGroup when who has undone nothing
// since their last edit.
var ErrNothingToRedo = errors.New("nothing to redo")

// errNoChange rolls back a group whose changes leave the case as it was,
// so a key that changes nothing writes nothing (not even a new case).
var errNoChange = errors.New("no change")

// EditGroup stores one action on the case of a trace (creating the case)
// in one write transaction: fn sees the case as stored at that moment and
// returns the changes, so an edit is computed from the stored value and
// never from a stale screen. Changes that leave a field as it is are
// skipped; when nothing changes nothing is written and the group's ID is 0.
// humanGold says a person accepted the machine's suggestion: the gold
// becomes theirs even when no gold field changed, and so does the label
// when they have none of their own yet (its fields are written though
// their values stay), so accepting a suggestion that is already the case's
// makes it the person's instead of doing nothing.
func (s *Store) EditGroup(ctx context.Context, traceID, who string, humanGold bool, fn func(*CaseRecord) ([]FieldChange, error)) (Group, error) {
	var g Group
	txCtx := ctx
	var pre *lockedCase
	if s.d == postgresDialect {
		// The writes go with the COMMIT and the reads with the BEGIN
		// (pglater.go): the trace's lock is held for fewer round trips.
		ctx = allowLater(ctx)
		txCtx = withBeginReads(ctx, s.lockCaseReads(traceID, who, &pre))
	}
	err := s.inTraceTx(txCtx, traceID, func(tx *sql.Tx) error {
		var cr *CaseRecord
		var held int64
		var rs CaseRaters
		var err error
		if pre != nil && pre.cr != nil {
			cr, held, rs = pre.cr, pre.held, pre.rs
		} else if pre != nil {
			// The reads sent with the BEGIN found no case: make it, with
			// the COMMIT when they found its trace without one.
			if cr, err = s.firstCase(ctx, tx, pre.trace, who); err != nil {
				return err
			}
			if cr != nil {
				rs = CaseRaters{CaseID: cr.Case.CaseID} // made here: none
				held = pre.trace.held
			} else {
				var made *CaseRaters
				if cr, made, err = s.newCaseOfTrace(ctx, tx, traceID, who); err != nil {
					return err
				}
				if made != nil {
					rs = *made
				} else if rs, err = loadRaters(ctx, tx, cr.Case.CaseID); err != nil {
					return err
				}
			}
		} else {
			if cr, held, err = s.lockCaseOfTrace(ctx, tx, traceID, who); err != nil {
				return err
			}
			// fn and the no-change test see the label who edits: their own.
			if rs, err = loadRaters(ctx, tx, cr.Case.CaseID); err != nil {
				return err
			}
		}
		caseID := cr.Case.CaseID
		// The edits start from the case and raters read here (st), not
		// read again for every change: the reads are round trips made
		// while the trace's lock is held.
		st := newEditState(cr, rs)
		cr.Case.Label = rs.viewFor(who, cr.Case.Label)
		changes, err := fn(cr)
		if err != nil {
			return err
		}
		adopt := humanGold && rs.Rater(who) == nil
		var todo []FieldChange
		for _, c := range changes {
			if c.Field == FieldAdjudication {
				todo = append(todo, c) // stamped with its time: always a change
				continue
			}
			if c.Field == "status" {
				if string(cr.Status) != jsonString(c.Value) {
					todo = append(todo, c)
				}
				continue
			}
			old, err := cr.Case.Field(c.Field)
			if err != nil {
				return err
			}
			probe := cr.Case
			if err := probe.SetField(c.Field, c.Value); err != nil {
				return err
			}
			// A key that leaves the label as shown is no rating: a person
			// becomes a rater of a case by changing its label or by
			// confirming it (which endorses the label as it stands).
			if nv, _ := probe.Field(c.Field); string(nv) != string(old) || (adopt && strings.HasPrefix(c.Field, "label.")) {
				todo = append(todo, c)
			}
		}
		if humanGold && cr.GoldOrigin != "human" {
			if _, err := tx.ExecContext(ctx, `UPDATE cases SET gold_origin = 'human' WHERE case_id = ?`, caseID); err != nil {
				return err
			}
			st.cr.GoldOrigin = OriginHuman
		}
		if len(todo) == 0 {
			if humanGold && cr.GoldOrigin != "human" {
				// The origin changed: keep that, with no group; the gold
				// now teaches its question's other traces.
				g.Case = st.cr
				return markAfterEditTx(ctx, tx, traceID, cr, nil, true, cr.Status, &g.Peers)
			}
			return errNoChange
		}
		if laterAllowed(ctx) {
			// The group too goes with the COMMIT: its id arrives then,
			// and its events name it as the group just written
			// (groupInBatch).
			g = Group{Action: "edit"}
			if err := queryRowLater(ctx, tx, []any{&g.ID}, sqlInsGroup, caseID, who, s.stamp(), "edit", nil); err != nil {
				return err
			}
		} else if g, err = s.newGroupTx(ctx, tx, caseID, who, "edit", 0); err != nil {
			return err
		}
		grp := g.ID
		if laterAllowed(ctx) {
			grp = groupInBatch
		}
		// Each event is written into its place (st.ev), where its ID
		// arrives when the writes are sent.
		g.Events = make([]Event, len(todo))
		for i, c := range todo {
			st.ev = &g.Events[i]
			if _, err := s.editStateTx(ctx, tx, st, caseID, who, c.Field, c.Value, 0, grp); err != nil {
				return err
			}
		}
		status := cr.Status
		for _, c := range todo {
			if c.Field == "status" {
				status = model.Status(jsonString(c.Value))
			}
		}
		if err := markAfterEditTx(ctx, tx, traceID, cr, eventFields(g.Events), humanGold, status, &g.Peers); err != nil {
			return err
		}
		g.Case = st.cr // as the writes leave it (editStateTx keeps st so)
		return s.followEditTx(ctx, tx, traceID, who, status, held)
	})
	if errors.Is(err, errNoChange) {
		// Rolled back, with the case it may have made: the caller reads.
		return Group{}, nil
	}
	if err != nil {
		g.Case = nil
	}
	for i := range g.Events {
		g.Events[i].Group = g.ID // groupInBatch until the commit
	}
	return g, err
}

func eventFields(evs []Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Field
	}
	return out
}

// jsonString is the string a JSON string value holds ("" otherwise).
func jsonString(v json.RawMessage) string {
	var s string
	_ = json.Unmarshal(v, &s)
	return s
}

// sqlInsGroup writes an action's group.
const sqlInsGroup = `INSERT INTO event_groups (case_id, who, at, action, target) VALUES (?, ?, ?, ?, ?) RETURNING id`

// groupInBatch is the group of an event written in the same batch as its
// group (EditGroup on PostgreSQL): the event names it as the last group
// this session wrote, sqlInsGroupEventLast.
const groupInBatch = -1

func (s *Store) newGroupTx(ctx context.Context, tx *sql.Tx, caseID, who, action string, target int64) (Group, error) {
	var t any
	if target != 0 {
		t = target
	}
	var id int64
	err := tx.QueryRowContext(ctx, sqlInsGroup, caseID, who, s.stamp(), action, t).Scan(&id)
	return Group{ID: id, Action: action}, err
}

// UndoGroup reverts who's newest action on the case of a trace that is
// not undone yet, every field it changed, as one new "undo" action (the
// log stays append-only). ErrNothingToUndo when there is none.
func (s *Store) UndoGroup(ctx context.Context, traceID, who string) (Group, error) {
	return s.revert(ctx, traceID, who, "undo", ErrNothingToUndo, `SELECT g.id FROM event_groups g
		WHERE g.case_id = ? AND g.who = ? AND g.action IN ('edit', 'redo')
		AND NOT EXISTS (SELECT 1 FROM event_groups u WHERE u.target = g.id AND u.action = 'undo')
		ORDER BY g.id DESC LIMIT 1`)
}

// RedoGroup reverts who's newest undo on the case of a trace, provided
// they made no new edit of the case since: the usual redo stack.
// ErrNothingToRedo when there is none.
func (s *Store) RedoGroup(ctx context.Context, traceID, who string) (Group, error) {
	return s.revert(ctx, traceID, who, "redo", ErrNothingToRedo, `SELECT u.id FROM event_groups u
		WHERE u.case_id = ?1 AND u.who = ?2 AND u.action = 'undo'
		AND NOT EXISTS (SELECT 1 FROM event_groups r WHERE r.target = u.id AND r.action = 'redo')
		AND NOT EXISTS (SELECT 1 FROM event_groups e WHERE e.case_id = ?1 AND e.who = ?2 AND e.action = 'edit' AND e.id > u.id)
		ORDER BY u.id DESC LIMIT 1`)
}

// revert finds the group query names and sets every field it changed back
// to the value before it, newest change first, as one new group.
func (s *Store) revert(ctx context.Context, traceID, who, action string, none error, query string) (Group, error) {
	var g Group
	err := s.inTraceTx(ctx, traceID, func(tx *sql.Tx) error {
		// The trace's row first (inCaseTx); its case_id is its first
		// case, "" when it has none.
		var caseID string
		err := tx.QueryRowContext(ctx, sqlRevertCase+s.d.lockRow, traceID).Scan(&caseID)
		if errors.Is(err, sql.ErrNoRows) || err == nil && caseID == "" {
			return none
		}
		if err != nil {
			return err
		}
		var target int64
		err = tx.QueryRowContext(ctx, query, caseID, who).Scan(&target)
		if errors.Is(err, sql.ErrNoRows) {
			return none
		}
		if err != nil {
			return err
		}
		type change struct {
			id       int64
			field    string
			old, set json.RawMessage
		}
		rows, err := tx.QueryContext(ctx, `SELECT id, field, old, new FROM events WHERE grp = ? AND field <> 'case' ORDER BY id DESC`, target)
		if err != nil {
			return err
		}
		var cs []change
		for rows.Next() {
			var c change
			var old, set sql.NullString
			if err := rows.Scan(&c.id, &c.field, &old, &set); err != nil {
				rows.Close()
				return err
			}
			c.old, c.set = json.RawMessage("null"), json.RawMessage(set.String)
			if old.Valid {
				c.old = json.RawMessage(old.String)
			}
			if c.field == "status" && string(c.old) == "null" {
				c.old = json.RawMessage(`"` + string(model.StatusSuggested) + `"`)
			}
			cs = append(cs, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		// A field someone else changed after the action keeps their value:
		// undoing one's own edit must not throw away a teammate's later one.
		cr, err := s.loadCaseTx(ctx, tx, caseID)
		if err != nil {
			return err
		}
		changed := &ChangedSinceError{Action: action}
		cs = slices.DeleteFunc(cs, func(c change) bool {
			cur, _ := fieldAsSeen(ctx, tx, cr, who, c.field)
			if string(cur) == string(c.set) {
				return false
			}
			var by string
			if err := tx.QueryRowContext(ctx, sqlLastWriter, caseID, c.field).Scan(&by); err != nil {
				by = "someone"
			}
			changed.Fields, changed.Who = append(changed.Fields, c.field), append(changed.Who, by)
			return true
		})
		if len(cs) == 0 && len(changed.Fields) > 0 {
			return changed
		}
		if g, err = s.newGroupTx(ctx, tx, caseID, who, action, target); err != nil {
			return err
		}
		for _, c := range cs {
			ev, err := s.editCaseTx(ctx, tx, caseID, who, c.field, c.old, c.id, g.ID)
			if err != nil {
				return fmt.Errorf("%s of %s: %w", action, c.field, err)
			}
			g.Events = append(g.Events, ev)
		}
		status := cr.Status
		for _, c := range cs {
			if c.field == "status" {
				status = model.Status(jsonString(c.old))
			}
		}
		if err := markAfterEditTx(ctx, tx, traceID, cr, eventFields(g.Events), false, status, &g.Peers); err != nil {
			return err
		}
		return s.followEditTx(ctx, tx, traceID, who, status, 0)
	})
	return g, err
}

// ChangedSinceError is an undo or redo that wrote nothing because someone
// else changed every field of the action since: their later write stands.
// (When only some fields were changed since, the others are reverted.)
type ChangedSinceError struct {
	Action string   // undo | redo
	Fields []string // the fields left alone
	Who    []string // who wrote each of them last
}

func (e *ChangedSinceError) Error() string {
	var parts []string
	for i, f := range e.Fields {
		parts = append(parts, f+" was changed by "+e.Who[i]+" since")
	}
	return "nothing to " + e.Action + ": " + strings.Join(parts, ", ")
}

// sqlRevertCase is the case of the trace an undo or redo is on.
const sqlRevertCase = `SELECT case_id FROM traces WHERE trace_id = ?`

// sqlLastWriter names who last wrote a field of a case.
const sqlLastWriter = `SELECT who FROM events WHERE case_id = ? AND field = ? ORDER BY id DESC LIMIT 1`

// lockedCase is a case read with its trace's lock (lockCaseOfTrace) and
// its raters; cr is nil when the trace has no case yet, and then trace
// is the trace as sqlTraceWithoutCase read it (nil: not found so).
type lockedCase struct {
	cr    *CaseRecord
	held  int64
	rs    CaseRaters
	trace *caselessTrace
}

// caselessTrace is a trace whose row sqlLockCase found no case for: its
// first case as it will be made (cr), unless the first case that names
// the trace by its key (first) or a case with the trace's id (taken) is
// there already; and until when who holds the trace (as lockedCase.held).
type caselessTrace struct {
	cr          *CaseRecord
	pk          int64
	first       string
	taken       bool
	held        int64
	gold, label string // cr's gold and label as written
	cost, at    string // and cost and time
}

// sqlTraceWithoutCase locks and reads a trace that has no case its row
// points to (sqlLockCase's join finds none), as the case its first edit
// makes would read (caseColumns: the parameters are gold, label, cost,
// updated_by, updated_at), then the trace's key, its first case by that
// key, whether its id is a case's id already, and who's reservation. It
// returns nothing for a trace with a case, so sent with every edit's
// BEGIN it costs index look-ups, and spares a trace's first edit the
// round trips that read the trace, looked its case up and made it.
const sqlTraceWithoutCase = `SELECT t.trace_id, t.trace_id, t.user_role, t.as_user, t.question, ?, ?, ?,
		'suggested', 'machine', ?, ?, '', '', '',
		t.trace_id, t.server, t.input_tokens, t.output_tokens, t.usd, t.tool_calls, t.turns, NULL,
		(SELECT json_group_object(tc.name, tc.fingerprint) FROM trace_contracts tc WHERE tc.trace_pk = t.id),
		t.id, COALESCE((SELECT c.case_id FROM cases c WHERE c.trace_pk = t.id ORDER BY c.case_id LIMIT 1), ''),
		EXISTS (SELECT 1 FROM cases c WHERE c.case_id = t.trace_id),
		COALESCE((SELECT r.expires_ms FROM reservations r WHERE r.trace_pk = t.id AND r.labeler = ?), 0)
	FROM traces t WHERE t.trace_id = ?
		AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.case_id = t.case_id AND c.trace_pk = t.id)`

// sqlInsFirstCase makes a trace's first case; no ON CONFLICT: the reads
// with the BEGIN found its id free under the trace's lock, and the
// edit's writes that follow name the case by that id.
const sqlInsFirstCase = `INSERT INTO cases (case_id, trace_pk, source_trace, user_role, as_user, question,
		gold, label, cost, status, gold_origin, content_sha, updated_by, updated_at, gold_sha)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'suggested', 'machine', ?, ?, ?, 'machine')`

// firstCase is the first case of a trace the BEGIN's reads found without
// one (tr), made with the edit's writes at the COMMIT (pglater.go): no
// round trip now. nil when it cannot be so (tr nil, the trace has a case
// by its key, or its id is taken): the caller takes the long way,
// newCaseOfTrace.
func (s *Store) firstCase(ctx context.Context, tx *sql.Tx, tr *caselessTrace, who string) (*CaseRecord, error) {
	if tr == nil || tr.first != "" || tr.taken || !laterAllowed(ctx) {
		return nil, nil
	}
	// Hashed as caseOfTraceTx hashes a new case: no server, cost or
	// contracts (the record shows the trace's, as a read would).
	r := tr.cr.Case
	c := model.Case{CaseID: r.CaseID, SourceTrace: r.SourceTrace, UserRole: r.UserRole, AsUser: r.AsUser, Question: r.Question}
	if err := execLater(ctx, tx, sqlInsFirstCase, c.CaseID, tr.pk, c.SourceTrace, c.UserRole, c.AsUser, c.Question,
		tr.gold, tr.label, tr.cost, contentSHA(&c), who, tr.at); err != nil {
		return nil, err
	}
	return tr.cr, nil
}

// lockCaseReads are lockCaseOfTrace's read and the raters', sent with the
// BEGIN of an edit on PostgreSQL (beginReads); into gets what they read.
func (s *Store) lockCaseReads(traceID, who string, into **lockedCase) *beginReads {
	var tr caselessTrace
	return &beginReads{
		queue: func(b *pgx.Batch) {
			b.Queue(rebind(sqlLockCase+s.d.lockRow), who, traceID)
			b.Queue(rebind(sqlRatersOfTrace), traceID)
			tr = caselessTrace{gold: mustJSON(model.Gold{}), label: mustJSON(model.Label{}), cost: mustJSON(model.Cost{}), at: s.stamp()}
			b.Queue(rebind(sqlTraceWithoutCase+s.d.lockRow), tr.gold, tr.label, tr.cost, who, tr.at, who, traceID)
		},
		read: func(br pgx.BatchResults) error {
			*into = nil
			lc := &lockedCase{}
			rows, err := br.Query()
			if err != nil {
				return err
			}
			if rows.Next() {
				lc.cr, err = scanCase(extraScan{rows, []any{&lc.held}})
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
			if err != nil {
				return err
			}
			if rows, err = br.Query(); err != nil {
				return err
			}
			caseID := ""
			if lc.cr != nil {
				caseID = lc.cr.Case.CaseID
			}
			lc.rs, err = scanRaters(rows, caseID)
			rows.Close()
			if err != nil {
				return err
			}
			if rows, err = br.Query(); err != nil {
				return err
			}
			if rows.Next() {
				t := tr
				if t.cr, err = scanCase(extraScan{rows, []any{&t.pk, &t.first, &t.taken, &t.held}}); err == nil {
					lc.trace = &t
				}
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
			if err != nil {
				return err
			}
			*into = lc
			return nil
		},
	}
}
