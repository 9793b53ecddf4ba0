package scoring

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// This file walks pg_query's protobuf parse tree and resolves every column
// reference to table.column. Scoping follows PostgreSQL: a query level is a
// scope holding the relations of its FROM clause; an unqualified name is
// looked up level by level from the innermost one outwards (correlated
// subqueries), and a CTE or a subquery in FROM is a derived relation whose
// output columns carry the real columns they were computed from (lineage).

// lineage is what an expression or output column was computed from.
type lineage struct {
	fields []string // real table.column fields, deduped, in order of appearance
	direct bool     // the expression is exactly one column (casts aside)
}

func (l lineage) single() (string, bool) {
	if l.direct && len(l.fields) == 1 {
		return l.fields[0], true
	}
	return "", false
}

func mergeLineage(a, b lineage) lineage {
	out := lineage{fields: append([]string(nil), a.fields...)}
	for _, f := range b.fields {
		if !contains(out.fields, f) {
			out.fields = append(out.fields, f)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// relation is one FROM item as a query level sees it.
type relation struct {
	name   string          // alias, or table/CTE name, lower case; may be "" for an unaliased subquery
	schema string          // schema qualifier of a base table
	table  string          // real table name, lower case; "" when derived
	cols   map[string]bool // base table columns from the schema; nil when unknown

	// Derived relations (CTE, subquery, function, VALUES).
	derived bool
	out     []string           // output column names in order
	outLin  map[string]lineage // lineage by output name (first wins)
	inners  []*scope           // SELECT * / t.* passthrough: names not in out are looked up here
	opaque  bool               // function or VALUES: its columns are not table columns
	// uniqueBy: the real fields the relation has one row per (a query
	// GROUP BY one column, or SELECT DISTINCT of one): joining it on that
	// field multiplies nothing.
	uniqueBy map[string]bool
}

func (r *relation) addOut(name string, l lineage) {
	r.out = append(r.out, name)
	if r.outLin == nil {
		r.outLin = map[string]lineage{}
	}
	if _, ok := r.outLin[name]; !ok {
		r.outLin[name] = l
	}
}

// outAt is the lineage of the i-th output column.
func (r *relation) outAt(i int) (lineage, bool) {
	if i < 0 || i >= len(r.out) {
		return lineage{}, false
	}
	return r.outLin[r.out[i]], true
}

// renamed copies a derived relation with its outputs renamed by position
// (CTE column lists, subquery alias column lists).
func (r *relation) renamed(names []string) *relation {
	if len(names) == 0 {
		return r
	}
	c := *r
	c.out, c.outLin = nil, nil
	for i, n := range names {
		l, _ := r.outAt(i)
		c.addOut(n, l)
	}
	for i := len(names); i < len(r.out); i++ {
		c.addOut(r.out[i], r.outLin[r.out[i]])
	}
	return &c
}

type scope struct {
	parent  *scope
	rels    []*relation
	using   map[string]*relation // columns merged by JOIN USING / NATURAL: the side that speaks for them
	ctes    map[string]*relation // CTEs defined by this query level's WITH
	aliases map[string]lineage   // select-list aliases, for ORDER BY / GROUP BY / HAVING
	targets []lineage            // select-list lineages, for ordinals
}

func newScope(parent *scope) *scope { return &scope{parent: parent} }

func (s *scope) cte(name string) *relation {
	for ; s != nil; s = s.parent {
		if r, ok := s.ctes[name]; ok {
			return r
		}
	}
	return nil
}

// has says whether a relation provides a column: yes, no, or unknown
// (a base table the schema does not describe, or a function).
type hasState int

const (
	hasNo hasState = iota
	hasYes
	hasUnknown
)

func (an *sqlAnalyzer) relHas(r *relation, col string) (lineage, hasState) {
	if !r.derived {
		if r.cols == nil {
			return lineage{fields: []string{r.table + "." + col}, direct: true}, hasUnknown
		}
		if r.cols[col] {
			return lineage{fields: []string{r.table + "." + col}, direct: true}, hasYes
		}
		return lineage{}, hasNo
	}
	if l, ok := r.outLin[col]; ok {
		return l, hasYes
	}
	state := hasNo
	var unk lineage
	for _, in := range r.inners {
		l, st, _ := an.lookupLevel(in, col)
		switch st {
		case hasYes:
			return l, hasYes
		case hasUnknown:
			state, unk = hasUnknown, l
		}
	}
	if r.opaque && len(r.out) == 0 {
		return lineage{}, hasUnknown
	}
	return unk, state
}

// lookupLevel resolves an unqualified column within one query level.
// It returns hasYes with the lineage when exactly one relation (or a USING
// merge) provides it, or when the schema rules out all relations but one
// undescribed one; hasUnknown with ok=false when several undescribed
// relations could provide it; hasNo when none does.
func (an *sqlAnalyzer) lookupLevel(s *scope, col string) (l lineage, st hasState, rel *relation) {
	var found []*relation
	var foundLin []lineage
	var unknown []*relation
	var unknownLin []lineage
	for _, r := range s.rels {
		l, st := an.relHas(r, col)
		switch st {
		case hasYes:
			found = append(found, r)
			foundLin = append(foundLin, l)
		case hasUnknown:
			unknown = append(unknown, r)
			unknownLin = append(unknownLin, l)
		}
	}
	// A column merged by USING or NATURAL is the merge's, not ambiguous.
	merged := func(rels []*relation, lins []lineage) (lineage, *relation, bool) {
		m := s.using[col]
		for i, r := range rels {
			if r == m {
				return lins[i], r, true
			}
		}
		return lineage{}, nil, false
	}
	switch {
	case len(found) == 1:
		return foundLin[0], hasYes, found[0]
	case len(found) > 1:
		if l, r, ok := merged(found, foundLin); ok {
			return l, hasYes, r
		}
		return lineage{}, hasUnknown, nil
	case len(unknown) == 1:
		return unknownLin[0], hasYes, unknown[0]
	case len(unknown) > 1:
		if l, r, ok := merged(unknown, unknownLin); ok {
			return l, hasYes, r
		}
		return lineage{}, hasUnknown, nil
	}
	return lineage{}, hasNo, nil
}

// colResult is a resolved column reference.
type colResult struct {
	lin       lineage
	rel       *relation
	ambiguous string // ?.column when it did not resolve
	literal   string // a SQLite "double-quoted" string that names no column
	star      bool
}

// aliasMode says whether select-list aliases may stand for a name.
type aliasMode int

const (
	aliasNever aliasMode = iota
	aliasFirst           // ORDER BY: output names win
	aliasLast            // GROUP BY, HAVING, WHERE (SQLite): input columns win
)

func (an *sqlAnalyzer) resolveCol(c *pg.ColumnRef, sc *scope, mode aliasMode) colResult {
	var parts []string
	for _, f := range c.GetFields() {
		switch {
		case f.GetString_() != nil:
			parts = append(parts, strings.ToLower(f.GetString_().GetSval()))
		case f.GetAStar() != nil:
			return colResult{star: true}
		}
	}
	if len(parts) == 0 {
		return colResult{star: true}
	}
	col := parts[len(parts)-1]
	if len(parts) == 1 {
		if mode == aliasFirst {
			if l, ok := lookupAlias(sc, col); ok {
				return colResult{lin: l}
			}
		}
		for s := sc; s != nil; s = s.parent {
			l, st, rel := an.lookupLevel(s, col)
			if st == hasYes && mode == aliasLast && rel != nil && !rel.derived && rel.cols == nil {
				// Only "the only table in scope" speaks for the column; a
				// select-list alias of that name is the likelier meaning.
				if al, ok := lookupAlias(sc, col); ok {
					return colResult{lin: al}
				}
			}
			if st == hasYes {
				return colResult{lin: l, rel: rel}
			}
			if st == hasUnknown {
				if mode == aliasLast {
					if l, ok := lookupAlias(sc, col); ok {
						return colResult{lin: l}
					}
				}
				return colResult{ambiguous: "?." + col}
			}
		}
		if mode == aliasLast {
			if l, ok := lookupAlias(sc, col); ok {
				return colResult{lin: l}
			}
		}
		if an.dq[int(c.GetLocation())] {
			return colResult{literal: col}
		}
		return colResult{ambiguous: "?." + col}
	}
	// Qualified: the relation is the part before the column; any parts
	// before it are schema or database names.
	qual := parts[len(parts)-2]
	for s := sc; s != nil; s = s.parent {
		for _, r := range s.rels {
			if r.name != qual {
				continue
			}
			if len(parts) > 2 && r.schema != "" && r.schema != parts[len(parts)-3] {
				continue
			}
			l, st := an.relHas(r, col)
			switch {
			case st == hasYes:
				return colResult{lin: l, rel: r}
			case !r.derived:
				// Named explicitly: table.column even when the schema lacks it.
				return colResult{lin: lineage{fields: []string{r.table + "." + col}, direct: true}, rel: r}
			case r.opaque:
				return colResult{lin: lineage{}, rel: r}
			}
			if st == hasUnknown && len(l.fields) > 0 {
				return colResult{lin: l, rel: r}
			}
			return colResult{ambiguous: "?." + col}
		}
	}
	// A table named in full without being in FROM (INSERT ... ON CONFLICT,
	// UPDATE targets in some dialects) still names its table.
	if r := an.baseTable(qual, ""); r != nil && r.cols != nil && r.cols[col] {
		return colResult{lin: lineage{fields: []string{qual + "." + col}, direct: true}}
	}
	return colResult{ambiguous: "?." + col}
}

func lookupAlias(sc *scope, name string) (lineage, bool) {
	if sc == nil || sc.aliases == nil {
		return lineage{}, false
	}
	l, ok := sc.aliases[name]
	return l, ok
}

// walkCtx is how the clause being walked uses the columns it meets.
type walkCtx struct {
	role  Role
	agg   string // enclosing aggregate function, lower case
	alias aliasMode
	// aggDistinct: the enclosing aggregate is over DISTINCT values.
	aggDistinct bool
}

// isAggregate reports whether a function call aggregates rows.
func isAggregate(name string, nargs int, star bool) bool {
	switch name {
	case "min", "max":
		return nargs <= 1 || star // SQLite's two-argument min/max are scalar
	case "avg", "count", "sum", "total", "group_concat", "string_agg", "array_agg", "json_agg", "jsonb_agg",
		"json_object_agg", "jsonb_object_agg", "json_group_array", "json_group_object", "bool_and", "bool_or",
		"every", "bit_and", "bit_or", "bit_xor", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop",
		"var_samp", "median", "mode", "percentile_cont", "percentile_disc", "corr", "covar_pop", "covar_samp",
		"regr_slope", "regr_intercept", "regr_count", "regr_r2", "regr_avgx", "regr_avgy", "listagg",
		"any_value", "approx_count_distinct", "count_if", "countif", "xmlagg", "range_agg":
		return true
	}
	return false
}

func funcName(f *pg.FuncCall) string {
	names := f.GetFuncname()
	if len(names) == 0 {
		return ""
	}
	return strings.ToLower(names[len(names)-1].GetString_().GetSval())
}

// expr walks an expression, records the columns it uses and returns its lineage.
func (an *sqlAnalyzer) expr(n *pg.Node, sc *scope, ctx walkCtx) lineage {
	if n == nil || n.GetNode() == nil {
		return lineage{}
	}
	switch x := n.GetNode().(type) {
	case *pg.Node_ColumnRef:
		r := an.resolveCol(x.ColumnRef, sc, ctx.alias)
		switch {
		case r.star, r.literal != "":
			return lineage{}
		case r.ambiguous != "":
			an.use(r.ambiguous, ctx)
			an.ambiguousField(r.ambiguous)
			if ctx.agg != "" {
				an.aggregate(ctx.agg, r.ambiguous)
			}
			return lineage{}
		}
		for _, f := range r.lin.fields {
			an.use(f, ctx)
			if ctx.agg != "" {
				an.aggregate(ctx.agg, f)
				an.aggregateAt(ctx, f, sc)
			}
		}
		return r.lin
	case *pg.Node_AConst, *pg.Node_ParamRef, *pg.Node_SqlvalueFunction, *pg.Node_String_, *pg.Node_Integer,
		*pg.Node_Float, *pg.Node_Boolean:
		return lineage{}
	case *pg.Node_TypeCast:
		return an.expr(x.TypeCast.GetArg(), sc, ctx)
	case *pg.Node_CollateClause:
		return an.expr(x.CollateClause.GetArg(), sc, ctx)
	case *pg.Node_AExpr:
		l := an.expr(x.AExpr.GetLexpr(), sc, ctx)
		return mergeLineage(l, an.expr(x.AExpr.GetRexpr(), sc, ctx))
	case *pg.Node_BoolExpr:
		var l lineage
		for _, a := range x.BoolExpr.GetArgs() {
			l = mergeLineage(l, an.expr(a, sc, ctx))
		}
		return l
	case *pg.Node_List:
		var l lineage
		for _, a := range x.List.GetItems() {
			l = mergeLineage(l, an.expr(a, sc, ctx))
		}
		return l
	case *pg.Node_NullTest:
		return lineage{fields: an.expr(x.NullTest.GetArg(), sc, ctx).fields}
	case *pg.Node_BooleanTest:
		return lineage{fields: an.expr(x.BooleanTest.GetArg(), sc, ctx).fields}
	case *pg.Node_FuncCall:
		return an.funcCall(x.FuncCall, sc, ctx)
	case *pg.Node_SubLink:
		l := an.expr(x.SubLink.GetTestexpr(), sc, ctx)
		sub := an.query(x.SubLink.GetSubselect(), sc)
		if sub != nil {
			for _, name := range sub.out {
				l = mergeLineage(l, sub.outLin[name])
			}
		}
		l.direct = false
		return l
	case *pg.Node_CaseExpr:
		c := x.CaseExpr
		l := an.expr(c.GetArg(), sc, ctx)
		for _, w := range c.GetArgs() {
			if cw := w.GetCaseWhen(); cw != nil {
				l = mergeLineage(l, an.expr(cw.GetExpr(), sc, ctx))
				l = mergeLineage(l, an.expr(cw.GetResult(), sc, ctx))
			}
		}
		l = mergeLineage(l, an.expr(c.GetDefresult(), sc, ctx))
		return l
	case *pg.Node_SelectStmt:
		sub := an.selectStmt(x.SelectStmt, sc)
		var l lineage
		for _, name := range sub.out {
			l = mergeLineage(l, sub.outLin[name])
		}
		return l
	}
	// Any other node: walk every child node it holds.
	var l lineage
	an.children(n, func(c *pg.Node) { l = mergeLineage(l, an.expr(c, sc, ctx)) })
	l.direct = false
	return l
}

// children calls fn for every *pg.Node held by a message, directly or in
// lists or nested messages. It is the fallback for node types the walker
// has no case for, so that no column reference is ever skipped.
func (an *sqlAnalyzer) children(m protoreflect.ProtoMessage, fn func(*pg.Node)) {
	walkMessage(m.ProtoReflect(), fn)
}

func walkMessage(m protoreflect.Message, fn func(*pg.Node)) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		visit := func(mv protoreflect.Message) {
			if node, ok := mv.Interface().(*pg.Node); ok {
				fn(node)
				return
			}
			walkMessage(mv, fn)
		}
		switch {
		case fd.IsList():
			list := v.List()
			for i := 0; i < list.Len(); i++ {
				visit(list.Get(i).Message())
			}
		case fd.IsMap():
		default:
			visit(v.Message())
		}
		return true
	})
}

func (an *sqlAnalyzer) funcCall(f *pg.FuncCall, sc *scope, ctx walkCtx) lineage {
	name := funcName(f)
	args := f.GetArgs()
	inner := ctx
	if isAggregate(name, len(args), f.GetAggStar()) {
		inner.agg = name
		inner.aggDistinct = f.GetAggDistinct()
		if f.GetAggStar() || len(args) == 0 {
			an.aggregate(name, "")
		} else if an.noFields(args, sc) {
			an.aggregate(name, "") // count(1), sum(1): no column
		}
	}
	var l lineage
	for _, a := range args {
		l = mergeLineage(l, an.expr(a, sc, inner))
	}
	for _, o := range f.GetAggOrder() {
		if sb := o.GetSortBy(); sb != nil {
			an.expr(sb.GetNode(), sc, walkCtx{role: RoleOrder, agg: inner.agg})
		}
	}
	if f.GetAggFilter() != nil {
		an.expr(f.GetAggFilter(), sc, walkCtx{role: RoleWhere})
	}
	if w := f.GetOver(); w != nil {
		an.window(w, sc)
	}
	l.direct = false
	return l
}

// noFields reports whether expressions reference no column at all.
func (an *sqlAnalyzer) noFields(ns []*pg.Node, sc *scope) bool {
	saved := an.dry
	an.dry = true
	defer func() { an.dry = saved }()
	var l lineage
	for _, n := range ns {
		l = mergeLineage(l, an.expr(n, sc, walkCtx{role: RoleSelect}))
	}
	amb := an.dryAmbiguous
	an.dryAmbiguous = false
	return len(l.fields) == 0 && !amb
}

func (an *sqlAnalyzer) window(w *pg.WindowDef, sc *scope) {
	for _, p := range w.GetPartitionClause() {
		an.expr(p, sc, walkCtx{role: RoleGroup})
	}
	for _, o := range w.GetOrderClause() {
		if sb := o.GetSortBy(); sb != nil {
			an.expr(sb.GetNode(), sc, walkCtx{role: RoleOrder})
		}
	}
}

// query analyzes any statement node that yields rows (or writes them).
func (an *sqlAnalyzer) query(n *pg.Node, sc *scope) *relation {
	if n == nil {
		return nil
	}
	switch x := n.GetNode().(type) {
	case *pg.Node_SelectStmt:
		return an.selectStmt(x.SelectStmt, sc)
	case *pg.Node_InsertStmt:
		an.insertStmt(x.InsertStmt, sc)
	case *pg.Node_UpdateStmt:
		an.updateStmt(x.UpdateStmt, sc)
	case *pg.Node_DeleteStmt:
		an.deleteStmt(x.DeleteStmt, sc)
	case *pg.Node_ExplainStmt:
		return an.query(x.ExplainStmt.GetQuery(), sc)
	case *pg.Node_CreateTableAsStmt:
		return an.query(x.CreateTableAsStmt.GetQuery(), sc)
	case *pg.Node_ViewStmt:
		return an.query(x.ViewStmt.GetQuery(), sc)
	case *pg.Node_DeclareCursorStmt:
		return an.query(x.DeclareCursorStmt.GetQuery(), sc)
	case *pg.Node_CopyStmt:
		return an.query(x.CopyStmt.GetQuery(), sc)
	}
	return &relation{derived: true, opaque: true}
}

func (an *sqlAnalyzer) with(w *pg.WithClause, sc *scope) {
	if w == nil {
		return
	}
	if sc.ctes == nil {
		sc.ctes = map[string]*relation{}
	}
	for _, c := range w.GetCtes() {
		cte := c.GetCommonTableExpr()
		if cte == nil {
			continue
		}
		name := strings.ToLower(cte.GetCtename())
		colnames := stringList(cte.GetAliascolnames())
		body := cte.GetCtequery().GetSelectStmt()
		// SQLite and MySQL let a CTE refer to itself without the RECURSIVE
		// keyword, so every set-operation body is read as possibly recursive.
		if body != nil && body.GetOp() != pg.SetOperation_SETOP_NONE && body.GetOp() != pg.SetOperation_SET_OPERATION_UNDEFINED {
			// The non-recursive term defines the columns the recursive
			// term reads from the CTE itself.
			inner := newScope(sc)
			an.with(body.GetWithClause(), inner)
			left := an.selectStmt(body.GetLarg(), inner)
			self := left.renamed(colnames)
			self.name = name
			sc.ctes[name] = self
			right := an.selectStmt(body.GetRarg(), inner)
			merged := mergeSetop(left, right).renamed(colnames)
			an.setopSort(body, merged, inner)
			*self = *merged
			self.name = name
			continue
		}
		out := an.query(cte.GetCtequery(), sc)
		r := out.renamed(colnames)
		cp := *r
		cp.name = name
		sc.ctes[name] = &cp
	}
}

func stringList(ns []*pg.Node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, strings.ToLower(n.GetString_().GetSval()))
	}
	return out
}

// mergeSetop combines the arms of UNION/INTERSECT/EXCEPT by position; the
// names come from the left arm.
func mergeSetop(l, r *relation) *relation {
	out := &relation{derived: true, inners: append(append([]*scope(nil), l.inners...), r.inners...)}
	for i, name := range l.out {
		ll, _ := l.outAt(i)
		rl, _ := r.outAt(i)
		out.addOut(name, mergeLineage(ll, rl))
	}
	return out
}

func (an *sqlAnalyzer) selectStmt(s *pg.SelectStmt, parent *scope) *relation {
	if s == nil {
		return &relation{derived: true}
	}
	if op := s.GetOp(); op != pg.SetOperation_SETOP_NONE && op != pg.SetOperation_SET_OPERATION_UNDEFINED {
		sc := newScope(parent)
		an.with(s.GetWithClause(), sc)
		out := mergeSetop(an.selectStmt(s.GetLarg(), sc), an.selectStmt(s.GetRarg(), sc))
		an.setopSort(s, out, sc)
		return out
	}
	if vals := s.GetValuesLists(); len(vals) > 0 {
		out := &relation{derived: true, opaque: true}
		for _, v := range vals {
			an.expr(v, parent, walkCtx{role: RoleSelect})
		}
		if items := vals[0].GetList().GetItems(); items != nil {
			for i := range items {
				out.addOut("column"+strconv.Itoa(i+1), lineage{})
			}
		}
		return out
	}
	sc := newScope(parent)
	an.with(s.GetWithClause(), sc)
	for _, f := range s.GetFromClause() {
		an.fromItem(f, sc)
	}
	out := &relation{derived: true}
	sc.aliases = map[string]lineage{}
	for _, t := range s.GetTargetList() {
		rt := t.GetResTarget()
		if rt == nil {
			continue
		}
		if cr := rt.GetVal().GetColumnRef(); cr != nil && isStar(cr) {
			out.inners = append(out.inners, an.starScope(cr, sc))
			sc.targets = append(sc.targets, lineage{})
			continue
		}
		l := an.expr(rt.GetVal(), sc, walkCtx{role: RoleSelect})
		name := outputName(rt)
		out.addOut(name, l)
		sc.targets = append(sc.targets, l)
		if rt.GetName() != "" {
			if _, dup := sc.aliases[name]; !dup {
				sc.aliases[name] = l
			}
		}
	}
	if w := s.GetWhereClause(); w != nil {
		an.whereClause(w, sc)
	}
	for _, g := range s.GetGroupClause() {
		an.sortKey(g, sc, RoleGroup, aliasLast)
	}
	out.uniqueBy = an.grain(s, sc)
	if h := s.GetHavingClause(); h != nil {
		an.expr(h, sc, walkCtx{role: RoleWhere, alias: aliasLast})
	}
	for _, w := range s.GetWindowClause() {
		if wd := w.GetWindowDef(); wd != nil {
			an.window(wd, sc)
		}
	}
	for _, d := range s.GetDistinctClause() {
		if d != nil && d.GetNode() != nil {
			an.sortKey(d, sc, RoleGroup, aliasFirst)
		}
	}
	for _, o := range s.GetSortClause() {
		if sb := o.GetSortBy(); sb != nil {
			an.sortKey(sb.GetNode(), sc, RoleOrder, aliasFirst)
		}
	}
	an.expr(s.GetLimitCount(), sc, walkCtx{role: RoleSelect})
	an.expr(s.GetLimitOffset(), sc, walkCtx{role: RoleSelect})
	return out
}

// setopSort handles ORDER BY on a UNION/INTERSECT/EXCEPT: it names output
// columns of the combined result.
func (an *sqlAnalyzer) setopSort(s *pg.SelectStmt, out *relation, parent *scope) {
	if len(s.GetSortClause()) == 0 {
		return
	}
	sc := newScope(parent)
	sc.rels = []*relation{out}
	sc.aliases = out.outLin
	for i := range out.out {
		l, _ := out.outAt(i)
		sc.targets = append(sc.targets, l)
	}
	for _, o := range s.GetSortClause() {
		if sb := o.GetSortBy(); sb != nil {
			an.sortKey(sb.GetNode(), sc, RoleOrder, aliasFirst)
		}
	}
}

func isStar(c *pg.ColumnRef) bool {
	f := c.GetFields()
	return len(f) > 0 && f[len(f)-1].GetAStar() != nil
}

// starScope is what SELECT * or SELECT t.* passes through to the outside.
func (an *sqlAnalyzer) starScope(c *pg.ColumnRef, sc *scope) *scope {
	parts := c.GetFields()
	if len(parts) < 2 {
		return &scope{rels: sc.rels, using: sc.using}
	}
	qual := strings.ToLower(parts[len(parts)-2].GetString_().GetSval())
	for s := sc; s != nil; s = s.parent {
		for _, r := range s.rels {
			if r.name == qual {
				return &scope{rels: []*relation{r}}
			}
		}
	}
	return &scope{}
}

func outputName(rt *pg.ResTarget) string {
	if rt.GetName() != "" {
		return strings.ToLower(rt.GetName())
	}
	v := rt.GetVal()
	for v.GetTypeCast() != nil {
		v = v.GetTypeCast().GetArg()
	}
	switch {
	case v.GetColumnRef() != nil:
		f := v.GetColumnRef().GetFields()
		if s := f[len(f)-1].GetString_(); s != nil {
			return strings.ToLower(s.GetSval())
		}
	case v.GetFuncCall() != nil:
		return funcName(v.GetFuncCall())
	}
	return "?column?"
}

// sortKey handles a GROUP BY, ORDER BY or DISTINCT ON item: an ordinal
// names a select-list entry, a bare name may be a select-list alias.
func (an *sqlAnalyzer) sortKey(n *pg.Node, sc *scope, role Role, mode aliasMode) {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		if i := int(c.GetIval().GetIval()) - 1; i >= 0 && i < len(sc.targets) {
			an.useLineage(sc.targets[i], walkCtx{role: role})
		}
		return
	}
	if unwrapCast(n).GetColumnRef() == nil {
		// Inside an expression a name is an input column first; SQLite
		// also accepts an alias there.
		mode = aliasLast
	}
	an.expr(n, sc, walkCtx{role: role, alias: mode})
}

func (an *sqlAnalyzer) useLineage(l lineage, ctx walkCtx) {
	for _, f := range l.fields {
		an.use(f, ctx)
	}
}
