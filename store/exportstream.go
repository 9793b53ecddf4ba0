package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tracelab-dev/tracelab/model"
)

// What export reads a page at a time, so that a suite of 100,000 cases is
// written as it is read instead of held whole (issue 33: export --all
// held every case, twice, at 586 MB).

// sqlCasesAfter is sqlCases from the case after ?1, ?3 at most: keyset
// pages through the primary key, each a seek, in the order cases.jsonl
// is written (case_id, bytewise: "C" collation on PostgreSQL).
const sqlCasesAfter = `SELECT ` + caseColumns + ` FROM cases c LEFT JOIN traces t ON t.id = c.trace_pk
	WHERE c.case_id > ? AND (? OR c.status = 'confirmed') ORDER BY c.case_id LIMIT ?`

// CasesAfter returns at most limit cases whose case_id sorts after
// after ("" for the first page), sorted by case_id: confirmed ones only,
// or every case when all is set. A page shorter than limit is the last.
func (s *Store) CasesAfter(ctx context.Context, all bool, after string, limit int) ([]CaseRecord, error) {
	rows, err := s.db.QueryContext(ctx, sqlCasesAfter, after, all, limit)
	if err != nil {
		return nil, err
	}
	return scanCaseList(rows, limit)
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
