package scoring

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// INSERT, UPDATE and DELETE: the target table's columns are used in the
// role the statement gives them; their sources resolve like a SELECT.

func (an *sqlAnalyzer) insertStmt(s *pg.InsertStmt, parent *scope) {
	sc := newScope(parent)
	an.with(s.GetWithClause(), sc)
	target := an.rangeVar(s.GetRelation(), sc)
	for _, c := range s.GetCols() {
		if rt := c.GetResTarget(); rt != nil {
			an.use(target.table+"."+strings.ToLower(rt.GetName()), walkCtx{role: RoleSelect})
		}
	}
	if s.GetSelectStmt() != nil {
		an.query(s.GetSelectStmt(), sc)
	}
	tsc := newScope(sc)
	tsc.rels = []*relation{target}
	if oc := s.GetOnConflictClause(); oc != nil {
		excluded := *target
		excluded.name = "excluded"
		tsc.rels = append(tsc.rels, &excluded)
		an.setTargets(oc.GetTargetList(), target, tsc)
		if w := oc.GetWhereClause(); w != nil {
			an.whereClause(w, tsc)
		}
		tsc.rels = tsc.rels[:1]
	}
	for _, r := range s.GetReturningList() {
		an.expr(r.GetResTarget().GetVal(), tsc, walkCtx{role: RoleSelect})
	}
}

// setTargets handles SET col = expr: the written column and what it reads.
func (an *sqlAnalyzer) setTargets(list []*pg.Node, target *relation, sc *scope) {
	for _, t := range list {
		rt := t.GetResTarget()
		if rt == nil {
			continue
		}
		if target.table != "" && rt.GetName() != "" {
			an.use(target.table+"."+strings.ToLower(rt.GetName()), walkCtx{role: RoleSelect})
		}
		an.expr(rt.GetVal(), sc, walkCtx{role: RoleSelect})
	}
}

func (an *sqlAnalyzer) updateStmt(s *pg.UpdateStmt, parent *scope) {
	sc := newScope(parent)
	an.with(s.GetWithClause(), sc)
	target := an.rangeVar(s.GetRelation(), sc)
	sc.rels = append(sc.rels, target)
	for _, f := range s.GetFromClause() {
		an.fromItem(f, sc)
	}
	an.setTargets(s.GetTargetList(), target, sc)
	if w := s.GetWhereClause(); w != nil {
		an.whereClause(w, sc)
	}
	for _, r := range s.GetReturningList() {
		an.expr(r.GetResTarget().GetVal(), sc, walkCtx{role: RoleSelect})
	}
}

func (an *sqlAnalyzer) deleteStmt(s *pg.DeleteStmt, parent *scope) {
	sc := newScope(parent)
	an.with(s.GetWithClause(), sc)
	sc.rels = append(sc.rels, an.rangeVar(s.GetRelation(), sc))
	for _, f := range s.GetUsingClause() {
		an.fromItem(f, sc)
	}
	if w := s.GetWhereClause(); w != nil {
		an.whereClause(w, sc)
	}
	for _, r := range s.GetReturningList() {
		an.expr(r.GetResTarget().GetVal(), sc, walkCtx{role: RoleSelect})
	}
}
