package scoring

import (
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// The FROM clause: tables, derived tables and joins added to a query
// level's scope, join conditions recorded as joins, and the WHERE clause.

// fromItem adds one FROM item to the scope.
func (an *sqlAnalyzer) fromItem(n *pg.Node, sc *scope) {
	switch x := n.GetNode().(type) {
	case *pg.Node_RangeVar:
		sc.rels = append(sc.rels, an.rangeVar(x.RangeVar, sc))
	case *pg.Node_RangeSubselect:
		rs := x.RangeSubselect
		sub := an.query(rs.GetSubquery(), sc)
		if sub == nil {
			sub = &relation{derived: true, opaque: true}
		}
		r := *sub.renamed(stringList(rs.GetAlias().GetColnames()))
		r.name = strings.ToLower(rs.GetAlias().GetAliasname())
		sc.rels = append(sc.rels, &r)
	case *pg.Node_JoinExpr:
		an.joinExpr(x.JoinExpr, sc)
	case *pg.Node_RangeFunction:
		rf := x.RangeFunction
		r := &relation{derived: true, opaque: true}
		for _, f := range rf.GetFunctions() {
			items := f.GetList().GetItems()
			if len(items) == 0 {
				continue
			}
			if fc := items[0].GetFuncCall(); fc != nil && r.name == "" {
				r.name = funcName(fc)
			}
			an.expr(items[0], sc, walkCtx{role: RoleSelect})
		}
		if a := rf.GetAlias(); a != nil {
			r.name = strings.ToLower(a.GetAliasname())
			for _, c := range stringList(a.GetColnames()) {
				r.addOut(c, lineage{})
			}
		}
		if len(r.out) == 0 && len(rf.GetFunctions()) == 1 && r.name != "" {
			// A scalar function's single column is named after its alias.
			r.addOut(r.name, lineage{})
		}
		sc.rels = append(sc.rels, r)
	case *pg.Node_RangeTableSample:
		an.fromItem(x.RangeTableSample.GetRelation(), sc)
	default:
		r := &relation{derived: true, opaque: true}
		an.children(n, func(c *pg.Node) { an.expr(c, sc, walkCtx{role: RoleSelect}) })
		sc.rels = append(sc.rels, r)
	}
}

func (an *sqlAnalyzer) rangeVar(rv *pg.RangeVar, sc *scope) *relation {
	name := strings.ToLower(rv.GetRelname())
	alias := strings.ToLower(rv.GetAlias().GetAliasname())
	if rv.GetSchemaname() == "" {
		if c := sc.cte(name); c != nil {
			r := *c.renamed(stringList(rv.GetAlias().GetColnames()))
			r.name = name
			if alias != "" {
				r.name = alias
			}
			return &r
		}
	}
	r := an.baseTable(name, strings.ToLower(rv.GetSchemaname()))
	an.tables[name] = true
	if alias != "" {
		r.name = alias
	}
	return r
}

func (an *sqlAnalyzer) baseTable(name, schema string) *relation {
	r := &relation{name: name, table: name, schema: schema}
	if an.idx != nil {
		r.cols = an.idx.cols[name]
	}
	return r
}

func (an *sqlAnalyzer) joinExpr(j *pg.JoinExpr, sc *scope) {
	start := len(sc.rels)
	an.fromItem(j.GetLarg(), sc)
	mid := len(sc.rels)
	an.fromItem(j.GetRarg(), sc)
	left := &scope{rels: sc.rels[start:mid:mid], using: sc.using}
	right := &scope{rels: sc.rels[mid:], using: sc.using}
	var using []string
	if j.GetIsNatural() {
		using = an.commonColumns(left, right)
	}
	using = append(using, stringList(j.GetUsingClause())...)
	for _, col := range using {
		ll, lst, lrel := an.lookupLevel(left, col)
		rl, rst, rrel := an.lookupLevel(right, col)
		ctx := walkCtx{role: RoleJoin}
		if lst == hasYes {
			an.useLineage(ll, ctx)
		}
		if rst == hasYes {
			an.useLineage(rl, ctx)
		}
		if lf, ok := ll.single(); ok && lst == hasYes && rst == hasYes && lrel != rrel {
			if rf, ok := rl.single(); ok {
				an.join(lf, rf)
				an.joinAt(lf, rf, lrel, rrel, sc)
			}
		}
		if lst != hasYes || rst != hasYes {
			an.use("?."+col, ctx)
			an.ambiguousField("?." + col)
		}
		if sc.using == nil {
			sc.using = map[string]*relation{}
		}
		switch {
		case lst == hasYes:
			sc.using[col] = lrel // the left side's column stands for the merge
		case rst == hasYes:
			sc.using[col] = rrel
		}
	}
	if q := j.GetQuals(); q != nil {
		for _, c := range conjuncts(q) {
			an.joinCondition(c, sc)
		}
		an.expr(q, sc, walkCtx{role: RoleJoin})
	}
	if a := j.GetAlias(); a != nil {
		inner := &scope{rels: append([]*relation(nil), sc.rels[start:]...), using: sc.using}
		sc.rels = append(sc.rels, &relation{name: strings.ToLower(a.GetAliasname()), derived: true, inners: []*scope{inner}})
	}
}

// commonColumns lists the columns a NATURAL join merges: those both sides
// are known to have. Undescribed tables contribute none.
func (an *sqlAnalyzer) commonColumns(left, right *scope) []string {
	names := func(s *scope) map[string]bool {
		m := map[string]bool{}
		for _, r := range s.rels {
			for c := range r.cols {
				m[c] = true
			}
			for _, c := range r.out {
				m[c] = true
			}
		}
		return m
	}
	l, r := names(left), names(right)
	var out []string
	for c := range l {
		if r[c] {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// conjuncts splits an expression into its top-level AND terms.
func conjuncts(n *pg.Node) []*pg.Node {
	if b := n.GetBoolExpr(); b != nil && b.GetBoolop() == pg.BoolExprType_AND_EXPR {
		var out []*pg.Node
		for _, a := range b.GetArgs() {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []*pg.Node{n}
}

// joinCondition records a = b between columns of two different relations.
func (an *sqlAnalyzer) joinCondition(n *pg.Node, sc *scope) bool {
	e := n.GetAExpr()
	if e == nil || e.GetKind() != pg.A_Expr_Kind_AEXPR_OP || opName(e.GetName()) != "=" {
		return false
	}
	lc, rc := unwrapCast(e.GetLexpr()).GetColumnRef(), unwrapCast(e.GetRexpr()).GetColumnRef()
	if lc == nil || rc == nil {
		return false
	}
	l, r := an.resolveCol(lc, sc, aliasNever), an.resolveCol(rc, sc, aliasNever)
	lf, lok := l.lin.single()
	rf, rok := r.lin.single()
	if !lok || !rok || l.rel == nil || r.rel == nil || l.rel == r.rel {
		return false
	}
	an.join(lf, rf)
	an.joinAt(lf, rf, l.rel, r.rel, sc)
	an.use(lf, walkCtx{role: RoleJoin})
	an.use(rf, walkCtx{role: RoleJoin})
	return true
}

func unwrapCast(n *pg.Node) *pg.Node {
	for n.GetTypeCast() != nil {
		n = n.GetTypeCast().GetArg()
	}
	return n
}

func opName(names []*pg.Node) string {
	if len(names) == 0 {
		return ""
	}
	return names[len(names)-1].GetString_().GetSval()
}

func (an *sqlAnalyzer) whereClause(w *pg.Node, sc *scope) {
	for _, c := range conjuncts(w) {
		an.joinCondition(c, sc)
		if !an.dry {
			an.where = append(an.where, an.predicate(c, sc))
		}
	}
	an.expr(w, sc, walkCtx{role: RoleWhere, alias: aliasLast})
}
