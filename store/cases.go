package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// CaseRecord is a case with the bookkeeping around it.
type CaseRecord struct {
	Case        model.Case
	TraceID     string // linked trace, "" for a standalone case
	Status      model.Status
	GoldOrigin  string // human | machine
	UpdatedBy   string
	UpdatedAt   string
	ConfirmedBy string
	ConfirmedAt string
	// Review says what changed in the trace since a person confirmed the
	// case (new spans received live, see Importer.MarkReview); "" when
	// nothing did. Confirming the case again clears it.
	Review string
	// Report is the report row of the linked trace where the case was
	// read with one (CasesAfter) and the trace is scored; nil otherwise.
	Report *ReportRow
	// The gold and label as stored (JSON), when read from the database: a
	// suggestion equal to them is known unchanged without encoding them.
	goldJSON, labelJSON string
}

// StoredJSON returns the gold and label as the database holds them (JSON)
// where Case.Gold and Case.Label were decoded from them, "" for one that
// was not read from the database or was replaced since with SetGold.
func (r *CaseRecord) StoredJSON() (gold, label string) { return r.goldJSON, r.labelJSON }

// SetGold replaces the case's gold, which no longer is the stored text.
func (r *CaseRecord) SetGold(g model.Gold) {
	r.Case.Gold = g
	r.goldJSON = ""
}

// Event is one entry of the append-only edit log.
type Event struct {
	ID     int64
	CaseID string
	At     string
	Who    string
	Field  string
	Old    json.RawMessage
	New    json.RawMessage
	Undoes int64
	Group  int64 // the action it belongs to (event_groups.id); 0 for an import
}

// personsEvent says an event e is a person's work on a case. A judge's
// label ("rater", written beside the case) is not: the machine's
// suggestion a judge labeled is still the machine's, refreshed by the
// scorer and replaced by a suite's case like any other.
const personsEvent = `e.field <> 'rater'`

const (
	sqlFindCase = `SELECT content_sha, source_file, source_line, status = 'suggested' AND gold_origin = 'machine'
		AND NOT EXISTS (SELECT 1 FROM events e WHERE e.case_id = cases.case_id AND ` + personsEvent + `) FROM cases WHERE case_id = ?`
	// The machine's untouched suggestions for trace ?1 other than case ?2.
	sqlOtherSuggestions = `SELECT case_id FROM cases WHERE trace_pk = (SELECT id FROM traces WHERE trace_id = ?1) AND case_id <> ?2
		AND status = 'suggested' AND gold_origin = 'machine'
		AND NOT EXISTS (SELECT 1 FROM events e WHERE e.case_id = cases.case_id AND ` + personsEvent + `)`
	// A trace has one case: a suite case for a trace drops the machine's
	// untouched suggestion instead of sitting beside it, after taking over
	// the labels judges gave it (a rater the case has already keeps its own).
	sqlMoveRaters = `UPDATE rater_labels SET case_id = ?2 WHERE case_id IN (` + sqlOtherSuggestions + `)
		AND NOT EXISTS (SELECT 1 FROM rater_labels r2 WHERE r2.case_id = ?2 AND r2.rater = rater_labels.rater)`
	sqlDropSuggestions = `DELETE FROM cases WHERE case_id IN (` + sqlOtherSuggestions + `)`
	sqlUpsertCase      = `INSERT INTO cases (case_id, trace_pk, source_trace, user_role, as_user, question,
		gold, label, cost, status, gold_origin, content_sha, updated_by, updated_at, confirmed_by, confirmed_at,
		source_file, source_line, contracts, gold_sha)
		VALUES (?, (SELECT id FROM traces WHERE trace_id = ? AND ? <> ''), ?, ?, ?, ?, ?, ?, ?, 'confirmed', 'human', ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (case_id) DO UPDATE SET trace_pk = excluded.trace_pk, source_trace = excluded.source_trace,
		user_role = excluded.user_role, as_user = excluded.as_user, question = excluded.question,
		gold = excluded.gold, label = excluded.label, cost = excluded.cost, status = 'confirmed',
		gold_origin = 'human', content_sha = excluded.content_sha, updated_by = excluded.updated_by,
		updated_at = excluded.updated_at, confirmed_by = excluded.confirmed_by, confirmed_at = excluded.confirmed_at,
		source_file = excluded.source_file, source_line = excluded.source_line, contracts = excluded.contracts,
		gold_sha = excluded.gold_sha`
	sqlInsEvent = `INSERT INTO events (case_id, at, who, field, old, new, undoes) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`
)

// caseWriter holds the prepared statements that write imported cases.
type caseWriter struct {
	find, move, drop, upsert, event *sql.Stmt
}

func newCaseWriter(ctx context.Context, tx *sql.Tx, re *reuse) (*caseWriter, error) {
	cw := &caseWriter{}
	if err := prepareAll(ctx, tx, re, []prepared{{&cw.find, sqlFindCase}, {&cw.move, sqlMoveRaters}, {&cw.drop, sqlDropSuggestions},
		{&cw.upsert, sqlUpsertCase}, {&cw.event, sqlInsEvent}}); err != nil {
		cw.close()
		return nil, err
	}
	return cw, nil
}

func (cw *caseWriter) close() { closeAll(cw.find, cw.move, cw.drop, cw.upsert, cw.event) }

func (w *writer) putCase(c *model.Case, file string, line int, replace bool, res *WriteStats) (*RecordError, error) {
	if !w.nulOK {
		for _, f := range []struct{ path, v string }{{"case_id", c.CaseID}, {"source_trace", c.SourceTrace},
			{"user_role", c.UserRole}, {"as_user", c.AsUser}, {"question", c.Question}} {
			if strings.ContainsRune(f.v, 0) {
				return &RecordError{Line: line, Path: f.path, Msg: errNUL}, nil
			}
		}
	}
	sha := contentSHA(c)
	var oldSHA, oldFile string
	var oldLine int
	var machine bool
	err := w.cases.find.QueryRowContext(w.ctx, c.CaseID).Scan(&oldSHA, &oldFile, &oldLine, &machine)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, err
	case oldSHA == sha && !machine:
		res.Unchanged++
		return nil, nil
	case machine:
		// The machine's own suggestion under this id: a person's case replaces it.
	case !replace:
		where := "the workbench"
		if oldFile != "" {
			where = fmt.Sprintf("%s:%d", oldFile, oldLine)
		}
		return &RecordError{Line: line, Path: "case_id", Msg: fmt.Sprintf(
			"case %q already exists (from %s) with different content (use --replace to overwrite it)", c.CaseID, where)}, nil
	default:
		res.Replaced++
		res.New--
	}
	gold, label, cost := mustJSON(c.Gold), mustJSON(c.Label), mustJSON(c.Cost)
	var contracts any
	if len(c.Contracts) > 0 {
		contracts = mustJSON(c.Contracts)
	}
	if _, err = w.cases.upsert.ExecContext(w.ctx, c.CaseID, c.SourceTrace, c.SourceTrace, c.SourceTrace, c.UserRole,
		c.AsUser, c.Question, gold, label, cost, sha, "import", w.at, "import:"+file, w.at, file, line, contracts,
		GoldSHA(OriginHuman, c.Gold)); err != nil {
		return nil, err
	}
	if c.SourceTrace != "" {
		if _, err := w.cases.move.ExecContext(w.ctx, c.SourceTrace, c.CaseID); err != nil {
			return nil, err
		}
		if _, err := w.cases.drop.ExecContext(w.ctx, c.SourceTrace, c.CaseID); err != nil {
			return nil, err
		}
	}
	if c.SourceTrace != "" {
		w.unlinked = true // its trace may come later in this file
	}
	var id int64
	if err := w.cases.event.QueryRowContext(w.ctx, c.CaseID, w.at, "import:"+file, "case", nil, mustJSON(c), nil).Scan(&id); err != nil {
		return nil, err
	}
	res.New++
	return nil, nil
}

// Gold origins: who wrote a case's gold.
const (
	OriginHuman   = "human"
	OriginMachine = "machine"
)

// GoldSHA is the hash of what scoring reads of a case as gold: a
// person's gold record, or nothing when the gold is the machine's own
// suggestion (that one is derived, and the score says which peers fed it).
// A trace without a case hashes to "none".
func GoldSHA(origin string, g model.Gold) string {
	if origin != OriginHuman {
		return OriginMachine
	}
	return "h" + contentSHA(g)
}

// GoldSHANone is the gold hash of a trace that has no case.
const GoldSHANone = "none"

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("store: encoding %T: %v", v, err)) // model types always encode
	}
	return string(b)
}

const caseColumns = `c.case_id, c.source_trace, c.user_role, c.as_user, c.question, c.gold, c.label, c.cost,
	c.status, c.gold_origin, c.updated_by, c.updated_at, c.confirmed_by, c.confirmed_at, c.review,
	COALESCE(t.trace_id, ''), COALESCE(t.server, ''), t.input_tokens, t.output_tokens, t.usd, t.tool_calls, t.turns, ` + caseContractsColumns

type rowScanner interface{ Scan(...any) error }

func scanCase(r rowScanner) (*CaseRecord, error) { return newCaseDecoder().scan(r) }

// caseDecoder reads case rows, decoding each distinct gold, label and
// contracts text once: the machine's suggestions for one question repeat
// the same few, and decoding every case's JSON was a tenth of a scoring
// run. Every case gets its own copy of what was decoded.
type caseDecoder struct {
	golds     map[string]model.Gold
	labels    map[string]model.Label
	contracts map[string]map[string]string
}

func newCaseDecoder() *caseDecoder {
	return &caseDecoder{golds: map[string]model.Gold{}, labels: map[string]model.Label{},
		contracts: map[string]map[string]string{}}
}

func (d *caseDecoder) scan(r rowScanner) (*CaseRecord, error) {
	var cr CaseRecord
	c := &cr.Case
	var gold, label, cost, status string
	var in, out, calls, turns sql.NullInt64
	var usd sql.NullFloat64
	var importedCs, traceCs sql.NullString
	if err := r.Scan(&c.CaseID, &c.SourceTrace, &c.UserRole, &c.AsUser, &c.Question, &gold, &label, &cost,
		&status, &cr.GoldOrigin, &cr.UpdatedBy, &cr.UpdatedAt, &cr.ConfirmedBy, &cr.ConfirmedAt, &cr.Review,
		&cr.TraceID, &c.Server, &in, &out, &usd, &calls, &turns, &importedCs, &traceCs); err != nil {
		return nil, err
	}
	if err := d.decode(&cr, status, gold, label); err != nil {
		return nil, err
	}
	var err error
	if cr.TraceID != "" {
		// The cost block comes from the trace's usage when the trace is here.
		c.Cost = model.Cost{InputTokens: in.Int64, OutputTokens: out.Int64, USD: usd.Float64,
			ToolCalls: calls.Int64, Turns: turns.Int64}
	} else if err := json.Unmarshal([]byte(cost), &c.Cost); err != nil {
		return nil, fmt.Errorf("case %s: cost: %w", c.CaseID, err)
	}
	src := importedCs
	if cr.TraceID != "" {
		src = traceCs
	}
	if c.Contracts, err = d.caseContracts(src); err != nil {
		return nil, fmt.Errorf("case %s: contracts: %w", c.CaseID, err)
	}
	return &cr, nil
}

// decode fills in what a case row holds as text: its status, and its gold
// and label (decoded once per distinct text, see caseDecoder).
func (d *caseDecoder) decode(cr *CaseRecord, status, gold, label string) error {
	c := &cr.Case
	cr.Status = model.Status(status)
	cr.goldJSON, cr.labelJSON = gold, label
	var err error
	if c.Gold, err = d.gold(gold); err != nil {
		return fmt.Errorf("case %s: gold: %w", c.CaseID, err)
	}
	if c.Label, err = d.label(label); err != nil {
		return fmt.Errorf("case %s: label: %w", c.CaseID, err)
	}
	return nil
}

func (d *caseDecoder) gold(s string) (model.Gold, error) {
	return memoized(d.golds, s, decodeJSON[model.Gold], cloneGold)
}

func (d *caseDecoder) label(s string) (model.Label, error) {
	return memoized(d.labels, s, decodeJSON[model.Label], cloneLabel)
}

// memoized is decode(s), decoded once per distinct s and kept in memo;
// each caller gets its own clone.
func memoized[T any](memo map[string]T, s string, decode func(string) (T, error), clone func(T) T) (T, error) {
	v, ok := memo[s]
	if !ok {
		var err error
		if v, err = decode(s); err != nil {
			return v, err
		}
		memo[s] = v
	}
	return clone(v), nil
}

func decodeJSON[T any](s string) (T, error) {
	var v T
	err := json.Unmarshal([]byte(s), &v)
	return v, err
}

// cloneGold copies everything of g a pointer or slice shares.
func cloneGold(g model.Gold) model.Gold {
	g.Answer = bytes.Clone(g.Answer)
	g.Tolerance = clonePtr(g.Tolerance)
	g.RequiredFields = slices.Clone(g.RequiredFields)
	g.ForbiddenFields = slices.Clone(g.ForbiddenFields)
	g.Window = clonePtr(g.Window)
	g.FreshnessBoundHours = clonePtr(g.FreshnessBoundHours)
	return g
}

// cloneLabel copies everything of l a pointer shares.
func cloneLabel(l model.Label) model.Label {
	l.Correct, l.Grounded, l.FailureClass = clonePtr(l.Correct), clonePtr(l.Grounded), clonePtr(l.FailureClass)
	return l
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func (d *caseDecoder) caseContracts(src sql.NullString) (map[string]string, error) {
	if !src.Valid {
		return nil, nil
	}
	return memoized(d.contracts, src.String, func(string) (map[string]string, error) { return caseContracts(src) },
		maps.Clone[map[string]string])
}

// Cases returns the cases sorted by case_id: confirmed ones only, or every
// case (suggested too) when all is set.
func (s *Store) Cases(ctx context.Context, all bool) ([]CaseRecord, error) {
	rows, err := s.db.QueryContext(ctx, sqlCases, all)
	if err != nil {
		return nil, err
	}
	return scanCaseList(rows, 0)
}

// scanCaseList reads every row of a cases query and closes it; n is a
// capacity hint.
func scanCaseList(rows *sql.Rows, n int) ([]CaseRecord, error) {
	defer rows.Close()
	var out []CaseRecord // nil when there are none, as callers had it
	if n > 0 {
		out = make([]CaseRecord, 0, n)
	}
	dec := newCaseDecoder()
	for rows.Next() {
		cr, err := dec.scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *cr)
	}
	return out, rows.Err()
}

// casesByID loads the cases named by ids ("" skipped) in one query.
func (s *Store) casesByID(ctx context.Context, ids []string) (map[string]*CaseRecord, error) {
	args := make([]any, 0, len(ids))
	for _, id := range ids {
		if id != "" {
			args = append(args, id)
		}
	}
	out := make(map[string]*CaseRecord, len(args))
	if len(args) == 0 {
		return out, nil
	}
	rows, err := s.db.QueryContext(ctx, withList(sqlCasesByID, len(args)), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	dec := newCaseDecoder()
	for rows.Next() {
		cr, err := dec.scan(rows)
		if err != nil {
			return nil, err
		}
		out[cr.Case.CaseID] = cr
	}
	return out, rows.Err()
}

// CasesForTraces returns the case of each trace that has one, by trace id.
func (s *Store) CasesForTraces(ctx context.Context, traceIDs []string) (map[string]*CaseRecord, error) {
	return casesForTraces(ctx, s.db, traceIDs)
}

func casesForTraces(ctx context.Context, db querier, traceIDs []string) (map[string]*CaseRecord, error) {
	out := map[string]*CaseRecord{}
	dec := newCaseDecoder()
	err := inLists(traceIDs, func(list []any) error {
		rows, err := db.QueryContext(ctx, withList(sqlCasesForTraces, len(list)), list...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			cr, err := dec.scan(rows)
			if err != nil {
				return err
			}
			out[cr.TraceID] = cr
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ErrNotFound is returned when a trace or case does not exist.
var ErrNotFound = errors.New("not found")

// CaseForTrace returns the case of a trace, or nil when it has none.
func (s *Store) CaseForTrace(ctx context.Context, traceID string) (*CaseRecord, error) {
	row := s.db.QueryRowContext(ctx, sqlCaseForTrace, traceID)
	cr, err := scanCase(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return cr, err
}

// Case returns one case by id.
func (s *Store) Case(ctx context.Context, caseID string) (*CaseRecord, error) {
	row := s.db.QueryRowContext(ctx, sqlCase, caseID)
	cr, err := scanCase(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("case %q: %w", caseID, ErrNotFound)
	}
	return cr, err
}

// The SQL of this file, one constant per statement.
const (
	sqlCases = `SELECT ` + caseColumns + ` FROM cases c LEFT JOIN traces t ON t.id = c.trace_pk
		WHERE ? OR c.status = 'confirmed' ORDER BY c.case_id`
	sqlCaseForTrace = `SELECT ` + caseColumns + ` FROM traces t JOIN cases c ON c.case_id = t.case_id AND c.trace_pk = t.id
		WHERE t.trace_id = ?`
	sqlCase = `SELECT ` + caseColumns + ` FROM cases c LEFT JOIN traces t ON t.id = c.trace_pk
		WHERE c.case_id = ?`
)

// Statements with a list of parameters, "(?*)" (see withList).
const (
	sqlCasesByID      = `SELECT ` + caseColumns + ` FROM cases c LEFT JOIN traces t ON t.id = c.trace_pk WHERE c.case_id IN (?*)`
	sqlCasesForTraces = `SELECT ` + caseColumns + ` FROM traces t JOIN cases c ON c.case_id = t.case_id AND c.trace_pk = t.id WHERE t.trace_id IN (?*)`
)
