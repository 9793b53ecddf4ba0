package store

import (
	"context"
	"database/sql"
	"strings"

	"tracelab/model"
)

// A trace without a person's gold is scored against gold suggested from
// the peers of its question (the traces with a person's gold or a
// confirmed label). When a peer's teaching changes, those takers' scores
// are stale, though nothing of their own changed: their score's gold hash
// is cleared, so every test of currency (ScoreCurrent, score_ok, which the
// score trigger recomputes from the hashes, and so StaleTraces and
// MarkedTraces) calls them stale until they are scored again. The mark
// is in the score row, where no case trigger recomputes it away, and it
// survives the process: whoever scores next picks it up.

// sqlMarkTakers clears the gold hash of the scores of the takers of the
// questions of the named traces (through the question index), the named
// traces themselves left out. Already-marked scores are skipped, so a
// second edit of the same question while the first is being rescored
// writes only what that rescore has already refreshed.
const sqlMarkTakers = `UPDATE scores SET gold_sha = '' WHERE gold_sha <> '' AND trace_pk IN (
	SELECT t.id FROM traces t LEFT JOIN cases c ON c.case_id = t.case_id AND c.trace_pk = t.id
	WHERE t.question_key IN (SELECT q.question_key FROM traces q WHERE q.trace_id IN (?*))
		AND t.trace_id NOT IN (?*) AND COALESCE(c.gold_origin, 'machine') <> 'human')`

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// MarkTakersStale marks stale the scores of the traces that take their
// gold from the peers of the questions of traceIDs (see above), in one
// statement, and returns how many it marked.
func (s *Store) MarkTakersStale(ctx context.Context, traceIDs []string) (int64, error) {
	return markTakers(ctx, s.db, traceIDs)
}

func markTakers(ctx context.Context, db execer, traceIDs []string) (int64, error) {
	if len(traceIDs) == 0 {
		return 0, nil
	}
	args := make([]any, 0, 2*len(traceIDs))
	for range 2 {
		for _, id := range traceIDs {
			args = append(args, id)
		}
	}
	q := withList(withList(sqlMarkTakers, len(traceIDs)), len(traceIDs))
	res, err := db.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// teaches says a case can teach its question's other traces their gold:
// it has a person's gold or a confirmed label (the cases of sqlPeers).
func teaches(origin string, status model.Status) bool {
	return origin == OriginHuman || status == model.StatusConfirmed
}

// changesTeaching says a change of field alters what a teaching case
// teaches: its gold, its status, or its grounded label (through a rater's
// label or an adjudication). Correctness, class and notes are not read by
// the suggestion (see app.peerOfRow).
func changesTeaching(field string) bool {
	return strings.HasPrefix(field, "gold.") || field == "status" || field == "label.grounded" ||
		field == FieldAdjudication
}

// markAfterEditTx marks the takers of a trace's question stale, in the
// edit's transaction, when the edit changed what the case teaches: it
// taught before or teaches after, and the gold's origin, its status or a
// field it teaches from changed. before is the case as loaded before the
// edit; fields are the fields changed; humanGold says the gold became a
// person's.
func markAfterEditTx(ctx context.Context, tx *sql.Tx, traceID string, before *CaseRecord, fields []string,
	humanGold bool, status model.Status) (int64, error) {
	origin := before.GoldOrigin
	touched := humanGold && origin != OriginHuman
	for _, f := range fields {
		if strings.HasPrefix(f, "gold.") {
			origin = OriginHuman // every gold edit makes the gold a person's (editCaseTx)
		}
		touched = touched || changesTeaching(f)
	}
	if humanGold {
		origin = OriginHuman
	}
	if !touched || (!teaches(before.GoldOrigin, before.Status) && !teaches(origin, status)) {
		return 0, nil
	}
	return markTakers(ctx, tx, []string{traceID})
}

// sqlMarked lists the traces not marked current (score_ok = 0, the
// partial index traces_unscored): no score yet, a score computed from
// other content or gold, or a score marked stale by a peer. Those with a
// person's gold first (they feed the others' suggestions), each group in
// import order.
const sqlMarked = `SELECT t.trace_id, COALESCE(c.gold_origin = 'human', FALSE) AS human FROM traces t
	LEFT JOIN cases c ON c.case_id = t.case_id AND c.trace_pk = t.id WHERE t.score_ok = 0
	ORDER BY human DESC, t.id`

// MarkedTraces lists the traces whose score is missing or not current
// for their content, gold or peers (see sqlMarked). Unlike StaleTraces it
// ignores the configuration: a new configuration rescores everything,
// which is the score command's business, not the workbench's.
func (s *Store) MarkedTraces(ctx context.Context) ([]StaleTrace, error) {
	rows, err := s.db.QueryContext(ctx, sqlMarked)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StaleTrace
	for rows.Next() {
		var st StaleTrace
		if err := rows.Scan(&st.TraceID, &st.HumanGold); err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, rows.Err()
}
