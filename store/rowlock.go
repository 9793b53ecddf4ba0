package store

import (
	"context"
	"database/sql"
	"slices"
)

// sqlLockTraces locks traces' rows (with dialect.lockRow appended), in
// the order of their ids.
const sqlLockTraces = `SELECT id FROM traces WHERE trace_id IN (?*) ORDER BY id`

// lockTracesTx locks the rows of the named traces in a one-case-at-a-time
// transaction (inCaseTx) that writes several: the scores of a batch. Ids
// are locked sorted, so two batches lock their common traces in one order
// (a deadlock between batches of more than loadBatch traces is retried by
// inTxOn). A label edit locks one trace, so it waits for a batch, or the
// batch for it, and never both. Nothing to do on SQLite.
func (s *Store) lockTracesTx(ctx context.Context, tx *sql.Tx, traceIDs []string) error {
	if s.d.lockRow == "" || len(traceIDs) == 0 {
		return nil
	}
	ids := slices.Clone(traceIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	return inLists(ids, func(list []any) error {
		rows, err := tx.QueryContext(ctx, withList(sqlLockTraces, len(list))+s.d.lockRow, list...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
		}
		return rows.Err()
	})
}
