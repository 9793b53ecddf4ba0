package app

import (
	"context"

	"github.com/tracelab-dev/tracelab/agreement"
)

// Agreement's population (issue 26): `tracelab agree` compares the raters
// on the cases the report counts, read from the report itself
// (ReportDetail, numbers.go's rule), so its item count sits beside the
// report's case count. A rated case outside that population (labeled but
// not confirmed, or with no scored trace) is left out and counted in the
// output, never silently dropped: a judge's or a second person's ratings
// of a case nobody confirmed yet show up there until it is confirmed.
// Disputed cases stay in: a confirmed case is counted whatever its raters
// say, and dropping the disagreements would lift every figure.

// ratedInPopulation is the rated cases among the cases the report counts,
// in RatedCases' order, with the population as agree states it.
func (e *Engine) ratedInPopulation(ctx context.Context) ([]TraceRaters, agreement.Population, error) {
	// The report first: it scores what is stale, so tracelab's ratings
	// below are the scores the report counts, not older ones.
	d, err := e.Suite.ReportDetail(ctx, false)
	if err != nil {
		return nil, agreement.Population{}, err
	}
	trs, err := e.Raters.RatedCases(ctx)
	if err != nil {
		return nil, agreement.Population{}, err
	}
	counted := make(map[string]bool, len(d.Cases))
	for _, c := range d.Cases {
		counted[c.TraceID] = true
	}
	kept := make([]TraceRaters, 0, len(trs))
	for _, tr := range trs {
		if tr.TraceID != "" && counted[tr.TraceID] {
			kept = append(kept, tr)
		}
	}
	pop := agreement.Population{Counted: len(d.Cases), Rated: len(kept), LeftOut: len(trs) - len(kept)}
	return kept, pop, nil
}
