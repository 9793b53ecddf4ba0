package store

import "context"

// sqlScoredWithoutCase counts the scored traces that have no case: the
// scorer suggested nothing for them and nobody labeled them, so neither
// export --all nor report --all counts them (app/numbers.go).
const sqlScoredWithoutCase = `SELECT COUNT(*) FROM traces t JOIN scores s ON s.trace_pk = t.id
	LEFT JOIN cases c ON c.case_id = t.case_id AND c.trace_pk = t.id WHERE c.case_id IS NULL`

// CountScoredWithoutCase is how many scored traces have no case.
func (s *Store) CountScoredWithoutCase(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, sqlScoredWithoutCase).Scan(&n)
	return n, err
}
