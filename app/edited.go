package app

import (
	"context"

	"github.com/tracelab-dev/tracelab/model"
)

// markEdited sets Edited on the rows whose case is a suggestion a person
// changed and did not confirm (CaseEdited, over the page's suggested
// cases in one query): the queue shows them "✎ edited", as the trace
// screen does, not "◐ suggested", which is the machine's alone.
func (e *Engine) markEdited(ctx context.Context, rows []TraceSummary) error {
	var ids []string
	for _, r := range rows {
		if r.Status == model.StatusSuggested && r.CaseID != "" {
			ids = append(ids, r.CaseID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	evs, err := e.st.EventsOfCases(ctx, ids)
	if err != nil {
		return err
	}
	for i := range rows {
		if r := &rows[i]; r.Status == model.StatusSuggested && r.CaseID != "" {
			r.Edited = editsStand(evs[r.CaseID])
		}
	}
	return nil
}
