package store

import "context"

// UnscoredTraceIDs lists, in import order, the traces that have no score:
// new ones, replaced ones (replacing drops the old score) and those whose
// scoring was interrupted.
func (s *Store) UnscoredTraceIDs(ctx context.Context) ([]string, error) {
	// A trace without a score has score_ok = 0 (the triggers of 0003 keep
	// it), so the partial index traces_unscored narrows the search to the
	// traces not current: no scan of the database after every import.
	return s.queryStrings(ctx, `SELECT t.trace_id FROM traces t
		WHERE t.score_ok = 0 AND NOT EXISTS (SELECT 1 FROM scores s WHERE s.trace_pk = t.id) ORDER BY t.id`)
}
