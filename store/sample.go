package store

import (
	"context"
	"database/sql"
	"sort"

	"github.com/tracelab-dev/tracelab/model"
)

// SampleCandidate is one trace as the stratified sampler sees it.
type SampleCandidate struct {
	TraceID  string
	Server   string
	UserRole string
	Outcome  model.Outcome
	Tools    []string     // distinct tools called, sorted
	Status   model.Status // of the trace's case: none, suggested or confirmed
}

// SampleCandidates lists every trace with what stratification needs,
// sorted by trace_id.
func (s *Store) SampleCandidates(ctx context.Context) ([]SampleCandidate, error) {
	rows, err := s.db.QueryContext(ctx, sqlSampleCandidates)
	if err != nil {
		return nil, err
	}
	var out []SampleCandidate
	idx := map[string]int{}
	for rows.Next() {
		var c SampleCandidate
		var outcome, status string
		if err := rows.Scan(&c.TraceID, &c.Server, &c.UserRole, &outcome, &status); err != nil {
			rows.Close()
			return nil, err
		}
		c.Outcome, c.Status = model.Outcome(outcome), model.Status(status)
		idx[c.TraceID] = len(out)
		out = append(out, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	trows, err := s.db.QueryContext(ctx, sqlSampleCandidates2)
	if err != nil {
		return nil, err
	}
	defer trows.Close()
	for trows.Next() {
		var id, tool string
		if err := trows.Scan(&id, &tool); err != nil {
			return nil, err
		}
		if i, ok := idx[id]; ok {
			out[i].Tools = append(out[i].Tools, tool)
		}
	}
	for i := range out {
		sort.Strings(out[i].Tools)
	}
	return out, trows.Err()
}

// SetQueue makes ids the labeling queue (traces.queued) in one
// transaction: the traces listed are queued, every other trace is not.
func (s *Store) SetQueue(ctx context.Context, ids []string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, sqlSetQueue); err != nil {
			return err
		}
		st, err := tx.PrepareContext(ctx, sqlSetQueue2)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, id := range ids {
			if _, err := st.ExecContext(ctx, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// The SQL of this file, one constant per statement.
const (
	sqlSampleCandidates = `SELECT t.trace_id, t.server, t.user_role, t.outcome, t.case_status
		FROM traces t ORDER BY t.trace_id`
	sqlSampleCandidates2 = `SELECT DISTINCT t.trace_id, st.tool FROM steps st JOIN traces t ON t.id = st.trace_pk
		WHERE st.kind = 'tool_call' AND st.tool <> ''`
	sqlSetQueue  = `UPDATE traces SET queued = 0 WHERE queued <> 0`
	sqlSetQueue2 = `UPDATE traces SET queued = 1 WHERE trace_id = ?`
)
