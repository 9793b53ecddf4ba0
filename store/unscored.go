package store

import "context"

// UnscoredTraceIDs lists, in import order, the traces that have no score:
// new ones, replaced ones (replacing drops the old score) and those whose
// scoring was interrupted.
func (s *Store) UnscoredTraceIDs(ctx context.Context) ([]string, error) {
	return s.queryStrings(ctx, `SELECT t.trace_id FROM traces t
		WHERE NOT EXISTS (SELECT 1 FROM scores s WHERE s.trace_pk = t.id) ORDER BY t.id`)
}
