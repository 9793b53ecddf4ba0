package store

import (
	"strings"
	"testing"
)

// The report's pages in a scope that needs a case read the cases' index
// in order: no page sorts the cases in scope (a temporary b-tree for the
// ORDER BY), which at a million traces made the report's first run read
// each confirmed case's rows once per page.
func TestReportPagesReadCasesInOrder(t *testing.T) {
	st := sqliteStore(t)
	for _, scope := range []ScoreScope{ScopeConfirmed, ScopeHumanGold, ScopeCases} {
		p := queryPlan(t, st.db, sqlEachReportRow[scope], 0, eachScoreBatch)
		if strings.Contains(p, "TEMP B-TREE") || !strings.Contains(p, "SEARCH c USING") {
			t.Errorf("scope %d: the report's page sorts or does not start from the cases:\n%s", scope, p)
		}
	}
}
