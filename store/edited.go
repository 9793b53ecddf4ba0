package store

import (
	"context"
)

// sqlEventsOfCases is sqlEvents for a list of cases, each case's events
// in id order.
const sqlEventsOfCases = `SELECT id, case_id, at, who, field, old, new, COALESCE(undoes, 0), COALESCE(grp, 0)
	FROM events WHERE case_id IN (?*) ORDER BY case_id, id`

// EventsOfCases returns the events of each of caseIDs, oldest first: the
// queue asks it for the suggested cases of a page, to show the ones a
// person changed without confirming as "edited" (app.editsStand).
func (s *Store) EventsOfCases(ctx context.Context, caseIDs []string) (map[string][]Event, error) {
	out := map[string][]Event{}
	err := inLists(caseIDs, func(list []any) error {
		rows, err := s.db.QueryContext(ctx, withList(sqlEventsOfCases, len(list)), list...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			e, err := scanEvent(rows)
			if err != nil {
				return err
			}
			out[e.CaseID] = append(out[e.CaseID], e)
		}
		return rows.Err()
	})
	return out, err
}
