package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tracelab-dev/tracelab/model"
)

// What export reads a page at a time, so that a suite of 100,000 cases is
// written as it is read instead of held whole (issue 33: export --all
// held every case, twice, at 586 MB).

// exportCaseColumns are what export reads of a case: caseColumns less
// what it never writes or decides on (updated_at, the confirmation, the
// review note), with the imported cost and contracts only where the case
// has no trace (with one, the trace's usage and contracts are written; see
// caseDecoder.scan). Each column read costs: export --all reads 100,000.
const exportCaseColumns = `c.case_id, c.source_trace, c.user_role, c.as_user, c.question, c.gold, c.label,
	CASE WHEN t.id IS NULL THEN c.cost END, c.status, c.gold_origin, c.updated_by,
	COALESCE(t.trace_id, ''), COALESCE(t.server, ''), t.input_tokens, t.output_tokens, t.usd, t.tool_calls, t.turns,
	CASE WHEN t.id IS NULL THEN c.contracts END,
	(SELECT json_group_object(tc.name, tc.fingerprint) FROM trace_contracts tc WHERE tc.trace_pk = t.id)`

// sqlCasesAfter is sqlCases from the case after ?1, ?3 at most: keyset
// pages through the primary key, each a seek, in the order cases.jsonl
// is written (case_id, bytewise: "C" collation on PostgreSQL). Each case
// comes with its trace's report row (report.go's columns, the score's
// NULL where the trace has none), read in the same pass: export read them
// again by trace id, a second lookup of every trace (issue 33: 1.4 s of
// export --all's 4.4 s at 100,000 traces). The report's case is the
// trace's own, as EachReportRow reads it: c itself but for a trace with
// several cases, where the trace's first (rc) is read for the others.
var sqlCasesAfter = sqlCasesWhere(`c.case_id > ?`)

// sqlCasesUpTo is sqlCasesAfter within a range, to ?2 included: a range
// of the cases that export reads beside another (CaseAfterN).
var sqlCasesUpTo = sqlCasesWhere(`c.case_id > ? AND c.case_id <= ?`)

func sqlCasesWhere(keys string) string {
	return `SELECT ` + exportCaseColumns + `, s.trace_pk IS NOT NULL, COALESCE(t.run_id, ''), ` +
		reportScoreColumnsOf(traceCase("gold_origin"), traceCase("status"), traceCase("label")) + `
	FROM cases c LEFT JOIN traces t ON t.id = c.trace_pk
	LEFT JOIN scores s ON s.trace_pk = t.id
	LEFT JOIN cases rc ON t.case_id <> c.case_id AND rc.case_id = t.case_id AND rc.trace_pk = t.id
	WHERE ` + keys + ` AND (? OR c.status = 'confirmed') ORDER BY c.case_id LIMIT ?`
}

// sqlCaseAfterN is the case_id ?2 cases on from ?1, counting every case:
// a walk of the primary key's index that reads no case.
const sqlCaseAfterN = `SELECT case_id FROM cases WHERE case_id > ? ORDER BY case_id LIMIT 1 OFFSET ? - 1`

// CaseAfterN returns the case_id n cases on from after ("" for the
// first), in CasesAfter's order and counting every case, confirmed or
// not; false when fewer than n follow it. Export cuts the cases into
// ranges of n with it, to read several at once: the cut never looks at
// a case's status, so an export of the confirmed ones does not walk the
// table once to cut it and again to read it.
func (s *Store) CaseAfterN(ctx context.Context, after string, n int) (string, bool, error) {
	var id string
	err := s.db.QueryRowContext(ctx, sqlCaseAfterN, after, n).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return id, err == nil, err
}

// traceCase is column col of the case of c's trace (see sqlCasesAfter).
func traceCase(col string) string {
	return `CASE WHEN t.case_id = c.case_id THEN c.` + col + ` ELSE rc.` + col + ` END`
}

// CasesAfter returns at most limit cases whose case_id sorts after
// after ("" for the first page), sorted by case_id: confirmed ones only,
// or every case when all is set. A page shorter than limit is the last.
// The records hold what export needs (exportCaseColumns: no UpdatedAt,
// ConfirmedBy, ConfirmedAt or Review), and each case linked to a scored
// trace that trace's report row in Report.
func (s *Store) CasesAfter(ctx context.Context, all bool, after string, limit int) ([]CaseRecord, error) {
	return s.casesIn(ctx, sqlCasesAfter, limit, after, all, limit)
}

// CasesUpTo is CasesAfter that stops at upto, included; with upto ""
// it is CasesAfter.
func (s *Store) CasesUpTo(ctx context.Context, all bool, after, upto string, limit int) ([]CaseRecord, error) {
	if upto == "" {
		return s.CasesAfter(ctx, all, after, limit)
	}
	return s.casesIn(ctx, sqlCasesUpTo, limit, after, upto, all, limit)
}

func (s *Store) casesIn(ctx context.Context, q string, limit int, args ...any) ([]CaseRecord, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]CaseRecord, 0, limit)
	dec := newCaseDecoder()
	for rows.Next() {
		var cr CaseRecord
		c := &cr.Case
		var gold, label, status string
		var cost, importedCs, traceCs sql.NullString
		var in, outTok, calls, turns sql.NullInt64
		var usd sql.NullFloat64
		var scored bool
		var runID string
		var sc reportScan
		if err := rows.Scan(append([]any{&c.CaseID, &c.SourceTrace, &c.UserRole, &c.AsUser, &c.Question, &gold, &label,
			&cost, &status, &cr.GoldOrigin, &cr.UpdatedBy, &cr.TraceID, &c.Server, &in, &outTok, &usd, &calls, &turns,
			&importedCs, &traceCs, &scored, &runID}, sc.dests()...)...); err != nil {
			return nil, err
		}
		if err := dec.decode(&cr, status, gold, label); err != nil {
			return nil, err
		}
		if cr.TraceID != "" {
			c.Cost = model.Cost{InputTokens: in.Int64, OutputTokens: outTok.Int64, USD: usd.Float64,
				ToolCalls: calls.Int64, Turns: turns.Int64}
		} else if err := json.Unmarshal([]byte(cost.String), &c.Cost); err != nil {
			return nil, fmt.Errorf("case %s: cost: %w", c.CaseID, err)
		}
		src := importedCs
		if cr.TraceID != "" {
			src = traceCs
		}
		if c.Contracts, err = dec.caseContracts(src); err != nil {
			return nil, fmt.Errorf("case %s: contracts: %w", c.CaseID, err)
		}
		if scored && cr.TraceID != "" {
			r := &ReportRow{TraceID: cr.TraceID, Server: c.Server, RunID: runID}
			if err := sc.fill(r, dec.label); err != nil {
				return nil, err
			}
			cr.Report = r
		}
		out = append(out, cr)
	}
	return out, rows.Err()
}

// JudgeMark is what a suite's manifest says of one judge's label: who,
// with which model and prompt.
type JudgeMark struct {
	Rater, Model, PromptSHA256 string
}

// JudgeMarks returns the judges' labels by case id, read from the raters
// table alone (no case is decoded for them).
func (s *Store) JudgeMarks(ctx context.Context) (map[string][]JudgeMark, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT case_id, rater, judge_model, prompt_sha256 FROM rater_labels
		WHERE kind = 'judge' ORDER BY case_id, rater`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]JudgeMark{}
	for rows.Next() {
		var id string
		var m JudgeMark
		if err := rows.Scan(&id, &m.Rater, &m.Model, &m.PromptSHA256); err != nil {
			return nil, err
		}
		out[id] = append(out[id], m)
	}
	return out, rows.Err()
}

// ContractBodies returns the stored contracts named by fingerprint, each
// decoded as a loaded trace's tools are (Raw is the stored body).
func (s *Store) ContractBodies(ctx context.Context, fps []string) (map[string]model.ToolContract, error) {
	return contractBodies(ctx, s.db, fps)
}

// contractBodies reads and decodes the stored contracts named by
// fingerprint, a page of fingerprints at a time.
func contractBodies(ctx context.Context, db querier, fps []string) (map[string]model.ToolContract, error) {
	out := make(map[string]model.ToolContract, len(fps))
	err := inLists(fps, func(list []any) error {
		rows, err := db.QueryContext(ctx, withList(sqlContractBodies, len(list)), list...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var fp, body string
			if err := rows.Scan(&fp, &body); err != nil {
				return err
			}
			if out[fp], err = decodeContract(fp, body); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	return out, err
}

// decodeContract decodes a stored contract body, keeping its bytes.
func decodeContract(fp, body string) (model.ToolContract, error) {
	var tc model.ToolContract
	if err := json.Unmarshal([]byte(body), &tc); err != nil {
		return tc, fmt.Errorf("contract %s: %w", fp, err)
	}
	tc.Raw = json.RawMessage(body)
	return tc, nil
}
