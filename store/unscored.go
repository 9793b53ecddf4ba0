package store

import "context"

// UnscoredTraceIDs lists, in import order, the traces that have no score:
// new ones, replaced ones (replacing drops the old score) and those whose
// scoring was interrupted.
func (s *Store) UnscoredTraceIDs(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT t.trace_id FROM traces t
		WHERE NOT EXISTS (SELECT 1 FROM scores s WHERE s.trace_pk = t.id) ORDER BY t.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
