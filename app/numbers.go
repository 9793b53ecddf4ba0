package app

import (
	"context"
	"fmt"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// The one population and the one verdict every number counts (issue 26):
// `tracelab report`, the Report screen, the HTML report and export's
// report.json all read them from here, so what a labeler confirmed is
// what every number says.
//
// The population is the confirmed cases linked to a scored trace: exactly
// the cases export writes beside report.json (--all: see countScope).
// Whose gold a case has does not matter: a case confirmed with the
// machine's suggested gold is a confirmed case, exported with the gold it
// is scored against (withScoredGold).
//
// The verdict is the case's label where the case is confirmed (the
// fields a person left unset fall back to the scorer's, see
// scoring.DecideVerdict), the scorer's otherwise.

// countScope is the population as a store scope. --all is every case
// linked to a scored trace, confirmed or not: exactly the cases export
// --all writes beside its report.json. A scored trace the scorer could
// suggest nothing for has no case to write; both commands leave it out
// and say so in the same words (LeftOutLine), where report --all used to
// count it and disagree with export --all (32 against 29 on the bundled
// traces and cases).
func countScope(all bool) store.ScoreScope {
	if all {
		return store.ScopeCases
	}
	return store.ScopeConfirmed
}

// LeftOutLine is what report --all and export --all say of the scored
// traces they leave out (n of them, from SuiteService.LeftOut); "" when
// there are none.
func LeftOutLine(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("left out: %d scored trace%s with no case (the scorer suggested nothing and nobody labeled %s); label %s to count %s",
		n, plural(n), them(n), them(n), them(n))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// LeftOut is how many scored traces the --all population leaves out: those
// with no case (see countScope).
func (su SuiteService) LeftOut(ctx context.Context) (int, error) {
	return su.e.st.CountScoredWithoutCase(ctx)
}

// countedResult is a case's report row as the report counts it.
func countedResult(row store.ReportRow) scoring.CaseResult {
	cr := scoring.CaseResult{Score: resultOfRow(row).Score, Confirmed: row.Confirmed}
	if row.Confirmed {
		l := row.Label
		if l == nil {
			l = &model.Label{}
		}
		cr.Label = l
	}
	return cr
}

// withScoredGold sets the gold of every case among recs whose gold is
// still the machine's to the suggestion its trace is scored against, so
// the suite export writes holds the gold behind report.json's numbers: a
// case confirmed with the suggested gold is scored, reported and exported
// on one gold, even where the case's stored copy of the suggestion froze
// at the labeler's first key.
func (e *Engine) withScoredGold(ctx context.Context, recs []store.CaseRecord) error {
	for i := range recs {
		r := &recs[i]
		if r.GoldOrigin == store.OriginHuman || r.TraceID == "" {
			continue
		}
		if r.Status != model.StatusConfirmed && r.UpdatedBy == model.MachineRater {
			// Purely the machine's: the scorer refreshed the stored copy
			// with the suggestion it scored against. Scoring it again here
			// cost a whole evaluation per case (export --all of 100k
			// traces: 132 s and 1.3 GB, against 6 s before).
			continue
		}
		_, _, sugg, err := e.evaluateOne(ctx, r.TraceID, nil)
		if err != nil {
			return fmt.Errorf("case %s: the suggested gold of %s: %w", r.Case.CaseID, r.TraceID, err)
		}
		r.SetGold(sugg.Gold)
	}
	return nil
}
