package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"tracelab/importers"
	"tracelab/model"
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

func (w *writer) putCase(c *model.Case, file string, line int, replace bool, res *ImportResult) (*importers.LineError, error) {
	sha := contentSHA(c)
	var oldSHA, oldFile string
	var oldLine int
	err := w.tx.QueryRowContext(w.ctx, `SELECT content_sha, source_file, source_line FROM cases WHERE case_id = ?`,
		c.CaseID).Scan(&oldSHA, &oldFile, &oldLine)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, err
	case oldSHA == sha:
		res.Unchanged++
		return nil, nil
	case !replace:
		where := "the workbench"
		if oldFile != "" {
			where = fmt.Sprintf("%s:%d", oldFile, oldLine)
		}
		return &importers.LineError{Line: line, Path: "case_id", Msg: fmt.Sprintf(
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
	_, err = w.tx.ExecContext(w.ctx, `INSERT INTO cases (case_id, trace_pk, source_trace, user_role, as_user, question,
		gold, label, cost, status, gold_origin, content_sha, updated_by, updated_at, confirmed_by, confirmed_at,
		source_file, source_line, contracts)
		VALUES (?, (SELECT id FROM traces WHERE trace_id = ? AND ? <> ''), ?, ?, ?, ?, ?, ?, ?, 'confirmed', 'human', ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (case_id) DO UPDATE SET trace_pk = excluded.trace_pk, source_trace = excluded.source_trace,
		user_role = excluded.user_role, as_user = excluded.as_user, question = excluded.question,
		gold = excluded.gold, label = excluded.label, cost = excluded.cost, status = 'confirmed',
		gold_origin = 'human', content_sha = excluded.content_sha, updated_by = excluded.updated_by,
		updated_at = excluded.updated_at, confirmed_by = excluded.confirmed_by, confirmed_at = excluded.confirmed_at,
		source_file = excluded.source_file, source_line = excluded.source_line, contracts = excluded.contracts`,
		c.CaseID, c.SourceTrace, c.SourceTrace, c.SourceTrace, c.UserRole, c.AsUser, c.Question, gold, label, cost,
		sha, "import", w.at, "import:"+file, w.at, file, line, contracts)
	if err != nil {
		return nil, err
	}
	if c.SourceTrace != "" {
		w.unlinked = true // its trace may come later in this file
	}
	if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO events (case_id, at, who, field, old, new) VALUES (?, ?, ?, 'case', NULL, ?)`,
		c.CaseID, w.at, "import:"+file, mustJSON(c)); err != nil {
		return nil, err
	}
	res.New++
	return nil, nil
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("store: encoding %T: %v", v, err)) // model types always encode
	}
	return string(b)
}

const caseColumns = `c.case_id, c.source_trace, c.user_role, c.as_user, c.question, c.gold, c.label, c.cost,
	c.status, c.gold_origin, c.updated_by, c.updated_at, c.confirmed_by, c.confirmed_at,
	COALESCE(t.trace_id, ''), t.input_tokens, t.output_tokens, t.usd, t.tool_calls, t.turns, ` + caseContractsColumns

type rowScanner interface{ Scan(...any) error }

func scanCase(r rowScanner) (*CaseRecord, error) {
	var cr CaseRecord
	c := &cr.Case
	var gold, label, cost, status string
	var in, out, calls, turns sql.NullInt64
	var usd sql.NullFloat64
	var importedCs, traceCs sql.NullString
	if err := r.Scan(&c.CaseID, &c.SourceTrace, &c.UserRole, &c.AsUser, &c.Question, &gold, &label, &cost,
		&status, &cr.GoldOrigin, &cr.UpdatedBy, &cr.UpdatedAt, &cr.ConfirmedBy, &cr.ConfirmedAt,
		&cr.TraceID, &in, &out, &usd, &calls, &turns, &importedCs, &traceCs); err != nil {
		return nil, err
	}
	cr.Status = model.Status(status)
	if err := json.Unmarshal([]byte(gold), &c.Gold); err != nil {
		return nil, fmt.Errorf("case %s: gold: %w", c.CaseID, err)
	}
	if err := json.Unmarshal([]byte(label), &c.Label); err != nil {
		return nil, fmt.Errorf("case %s: label: %w", c.CaseID, err)
	}
	if err := json.Unmarshal([]byte(cost), &c.Cost); err != nil {
		return nil, fmt.Errorf("case %s: cost: %w", c.CaseID, err)
	}
	cs, err := caseContracts(cr.TraceID != "", traceCs, importedCs)
	if err != nil {
		return nil, fmt.Errorf("case %s: contracts: %w", c.CaseID, err)
	}
	c.Contracts = cs
	if cr.TraceID != "" {
		// The cost block comes from the trace's usage when the trace is here.
		c.Cost = model.Cost{InputTokens: in.Int64, OutputTokens: out.Int64, USD: usd.Float64,
			ToolCalls: calls.Int64, Turns: turns.Int64}
	}
	return &cr, nil
}

// Cases returns the cases sorted by case_id: confirmed ones only, or every
// case (suggested too) when all is set.
func (s *Store) Cases(ctx context.Context, all bool) ([]CaseRecord, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+caseColumns+` FROM cases c LEFT JOIN traces t ON t.id = c.trace_pk
		WHERE ? OR c.status = 'confirmed' ORDER BY c.case_id`, all)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []CaseRecord
	for rows.Next() {
		cr, err := scanCase(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *cr)
	}
	return out, rows.Err()
}

// ErrNotFound is returned when a trace or case does not exist.
var ErrNotFound = errors.New("not found")

// CaseForTrace returns the case of a trace, or nil when it has none.
func (s *Store) CaseForTrace(ctx context.Context, traceID string) (*CaseRecord, error) {
	row := s.db.QueryRowContext(ctx, `SELECT `+caseColumns+` FROM cases c JOIN traces t ON t.id = c.trace_pk
		WHERE t.trace_id = ? ORDER BY c.case_id LIMIT 1`, traceID)
	cr, err := scanCase(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return cr, err
}

// Case returns one case by id.
func (s *Store) Case(ctx context.Context, caseID string) (*CaseRecord, error) {
	row := s.db.QueryRowContext(ctx, `SELECT `+caseColumns+` FROM cases c LEFT JOIN traces t ON t.id = c.trace_pk
		WHERE c.case_id = ?`, caseID)
	cr, err := scanCase(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("case %q: %w", caseID, ErrNotFound)
	}
	return cr, err
}
