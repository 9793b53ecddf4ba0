package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/tracelab-dev/tracelab/model"
)

// LoadScoring loads what scoring a batch of traces reads: the traces by
// id (as LoadTraces) and the case of each that has one, by trace id (as
// CasesForTraces). The case's own columns are read by case id; what it
// takes from its trace (the trace id and server, the usage that makes its
// cost block, the contracts the trace saw) is taken from the trace just
// loaded. CasesForTraces reads those by joining every case with its trace
// row and aggregating the trace's contracts in a subquery per case, which
// was a sixth of a 100k rescore's CPU.
func (s *Store) LoadScoring(ctx context.Context, ids []string) ([]*model.Trace, map[string]*CaseRecord, error) {
	return loadInBatches(ctx, s.db, ids, true)
}

// LoadScoring is Store.LoadScoring on the reserved connection.
func (r *BatchConn) LoadScoring(ctx context.Context, ids []string) ([]*model.Trace, map[string]*CaseRecord, error) {
	return loadInBatches(ctx, r.reads, ids, true)
}

// traceLink is what a trace's case reads from the trace: the trace (row
// pk) names its case (traces.case_id, the first of its cases), and its
// usage makes the case's cost block.
type traceLink struct {
	pk               int64
	t                *model.Trace
	caseID           string
	toolCalls, turns int64
}

// contractNames lists, by trace pk, the (tool name, fingerprint) pairs of
// trace_contracts, by name.
type contractNames map[int64][][2]string

// sqlLinkedCases reads the case columns of caseColumns that are the
// case's own, and the trace it is linked to.
const sqlLinkedCases = `SELECT c.case_id, c.source_trace, c.user_role, c.as_user, c.question, c.gold, c.label,
	c.status, c.gold_origin, c.updated_by, c.updated_at, c.confirmed_by, c.confirmed_at, c.trace_pk
	FROM cases c WHERE c.case_id IN (?*)`

// linkedCases reads the cases links name, each kept when it is linked to
// the trace that names it (CasesForTraces' join), and completes each from
// its trace as caseDecoder.scan does from the joined trace row.
func linkedCases(ctx context.Context, db querier, links []traceLink, names contractNames) (map[string]*CaseRecord, error) {
	out := make(map[string]*CaseRecord, len(links))
	if len(links) == 0 {
		return out, nil
	}
	byCase := make(map[string]*traceLink, len(links))
	ids := make([]any, len(links))
	for i := range links {
		byCase[links[i].caseID] = &links[i]
		ids[i] = links[i].caseID
	}
	rows, err := db.QueryContext(ctx, withList(sqlLinkedCases, len(ids)), ids...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	dec := newCaseDecoder()
	for rows.Next() {
		cr := &CaseRecord{}
		c := &cr.Case
		var gold, label, status string
		var tracePK sql.NullInt64
		if err := rows.Scan(&c.CaseID, &c.SourceTrace, &c.UserRole, &c.AsUser, &c.Question, &gold, &label,
			&status, &cr.GoldOrigin, &cr.UpdatedBy, &cr.UpdatedAt, &cr.ConfirmedBy, &cr.ConfirmedAt, &tracePK); err != nil {
			return nil, err
		}
		l := byCase[c.CaseID]
		if l == nil || !tracePK.Valid || tracePK.Int64 != l.pk {
			continue // the case of another trace (or of none) by that id
		}
		if err := dec.decode(cr, status, gold, label); err != nil {
			return nil, err
		}
		t := l.t
		cr.TraceID, c.Server = t.TraceID, t.Server
		c.Cost = model.Cost{InputTokens: t.Usage.InputTokens, OutputTokens: t.Usage.OutputTokens, USD: t.Usage.USD,
			ToolCalls: l.toolCalls, Turns: l.turns}
		// As caseContracts reads them: nil when the trace saw none.
		if ns := names[l.pk]; len(ns) > 0 {
			c.Contracts = make(map[string]string, len(ns))
			for _, nf := range ns {
				c.Contracts[nf[0]] = nf[1]
			}
		}
		out[t.TraceID] = cr
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("loading cases: %w", err)
	}
	return out, nil
}
