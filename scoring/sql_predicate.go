package scoring

import (
	"sort"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// predicate normalizes one top-level WHERE conjunct. Field is the resolved
// column on one side (constants are moved to the right, flipping the
// operator); Values are constants as written, or the resolved field when
// the other side is a column. A test the normal form cannot express keeps
// Op "other" and, when it reads exactly one column, that Field; when it
// reads several, they are its Values.
func (an *sqlAnalyzer) predicate(n *pg.Node, sc *scope) Predicate {
	switch x := n.GetNode().(type) {
	case *pg.Node_AExpr:
		return an.aexprPredicate(x.AExpr, sc)
	case *pg.Node_NullTest:
		p := Predicate{Field: an.predField(x.NullTest.GetArg(), sc), Op: "is null"}
		if x.NullTest.GetNulltesttype() == pg.NullTestType_IS_NOT_NULL {
			p.Op = "is not null"
		}
		if p.Field == "" {
			return an.otherPredicate(n, sc)
		}
		return p
	case *pg.Node_BoolExpr:
		if x.BoolExpr.GetBoolop() == pg.BoolExprType_OR_EXPR {
			// status = 'A' OR status IN ('B') is status IN ('A','B').
			args := x.BoolExpr.GetArgs()
			p := an.predicate(args[0], sc)
			for _, a := range args[1:] {
				var ok bool
				if p, ok = orSameColumn(p, an.predicate(a, sc)); !ok {
					return an.otherPredicate(n, sc)
				}
			}
			return p
		}
		if x.BoolExpr.GetBoolop() == pg.BoolExprType_NOT_EXPR && len(x.BoolExpr.GetArgs()) == 1 {
			inner := an.predicate(x.BoolExpr.GetArgs()[0], sc)
			if inner.Field != "" && inner.Op == "=" && len(inner.Values) == 1 &&
				(inner.Values[0] == "true" || inner.Values[0] == "false") {
				// NOT flag  ->  flag = false
				inner.Values = []string{strconv.FormatBool(inner.Values[0] == "false")}
				return inner
			}
			if neg, ok := negateOp[inner.Op]; ok && inner.Field != "" {
				inner.Op = neg
				return inner
			}
		}
	case *pg.Node_ColumnRef:
		// WHERE is_active: a boolean column tested for true.
		if f := an.predField(n, sc); f != "" {
			return Predicate{Field: f, Op: "=", Values: []string{"true"}}
		}
	case *pg.Node_BooleanTest:
		bt := x.BooleanTest
		if f := an.predField(bt.GetArg(), sc); f != "" {
			switch bt.GetBooltesttype() {
			case pg.BoolTestType_IS_TRUE:
				return Predicate{Field: f, Op: "=", Values: []string{"true"}}
			case pg.BoolTestType_IS_FALSE:
				return Predicate{Field: f, Op: "=", Values: []string{"false"}}
			}
		}
	case *pg.Node_SubLink:
		sl := x.SubLink
		if sl.GetSubLinkType() == pg.SubLinkType_ANY_SUBLINK && opName(sl.GetOperName()) == "" {
			if f := an.predField(sl.GetTestexpr(), sc); f != "" {
				return Predicate{Field: f, Op: "in"}
			}
		}
	}
	return an.otherPredicate(n, sc)
}

// negateOp maps an operator to its negation, for NOT (...).
var negateOp = map[string]string{
	"=": "<>", "<>": "=", "in": "not in", "not in": "in", "like": "not like", "not like": "like",
	"is null": "is not null", "is not null": "is null",
}

var compareOps = map[string]string{
	"=": "=", "==": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
}

var flipOp = map[string]string{"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

func (an *sqlAnalyzer) aexprPredicate(e *pg.A_Expr, sc *scope) Predicate {
	lhs, rhs := e.GetLexpr(), e.GetRexpr()
	name := opName(e.GetName())
	switch e.GetKind() {
	case pg.A_Expr_Kind_AEXPR_OP:
		op, ok := compareOps[name]
		if !ok {
			break
		}
		if _, lconst := constValue(lhs); lconst {
			if _, rconst := constValue(rhs); !rconst {
				lhs, rhs, op = rhs, lhs, flipOp[op]
			}
		}
		f := an.predField(lhs, sc)
		if f == "" {
			break
		}
		if v, ok := constValue(rhs); ok {
			return Predicate{Field: f, Op: op, Values: []string{v}}
		}
		if v, ok := an.dqLiteral(rhs, sc); ok {
			return Predicate{Field: f, Op: op, Values: []string{v}}
		}
		if g := an.predField(rhs, sc); g != "" {
			return Predicate{Field: f, Op: op, Values: []string{g}}
		}
		return Predicate{Field: f, Op: op}
	case pg.A_Expr_Kind_AEXPR_IN:
		f := an.predField(lhs, sc)
		vals, ok := constList(rhs)
		if f == "" || !ok {
			break
		}
		op := "in"
		if name == "<>" {
			op = "not in"
		}
		return Predicate{Field: f, Op: op, Values: vals}
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		// x = ANY(ARRAY['a','b']) is x in (a, b); x <> ALL(...) is not in.
		any := e.GetKind() == pg.A_Expr_Kind_AEXPR_OP_ANY
		if any && name != "=" || !any && name != "<>" {
			break
		}
		arr := unwrapCast(rhs).GetAArrayExpr()
		f := an.predField(lhs, sc)
		if arr == nil || f == "" {
			break
		}
		vals, ok := constList(&pg.Node{Node: &pg.Node_List{List: &pg.List{Items: arr.GetElements()}}})
		if !ok {
			break
		}
		op := "in"
		if !any {
			op = "not in"
		}
		return Predicate{Field: f, Op: op, Values: vals}
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		op := map[string]string{"~~": "like", "!~~": "not like", "~~*": "ilike"}[name]
		f := an.predField(lhs, sc)
		v, ok := constValue(rhs)
		if op == "" || f == "" || !ok {
			break
		}
		return Predicate{Field: f, Op: op, Values: []string{v}}
	case pg.A_Expr_Kind_AEXPR_BETWEEN:
		f := an.predField(lhs, sc)
		vals, ok := constList(rhs)
		if f == "" || !ok {
			break
		}
		return Predicate{Field: f, Op: "between", Values: vals}
	}
	return an.otherPredicate(&pg.Node{Node: &pg.Node_AExpr{AExpr: e}}, sc)
}

// predField is the field a predicate side names: a column (casts aside),
// resolved, or its ?.column when it did not resolve; "" for anything else.
func (an *sqlAnalyzer) predField(n *pg.Node, sc *scope) string {
	c := unwrapCast(n).GetColumnRef()
	if c == nil {
		return ""
	}
	r := an.resolveCol(c, sc, aliasLast)
	if r.ambiguous != "" {
		return r.ambiguous
	}
	f, _ := r.lin.single()
	return f
}

// dqLiteral reads a SQLite "double-quoted" string that names no column.
func (an *sqlAnalyzer) dqLiteral(n *pg.Node, sc *scope) (string, bool) {
	c := n.GetColumnRef()
	if c == nil {
		return "", false
	}
	r := an.resolveCol(c, sc, aliasNever)
	if r.literal == "" {
		return "", false
	}
	f := c.GetFields()
	return f[len(f)-1].GetString_().GetSval(), true
}

func (an *sqlAnalyzer) otherPredicate(n *pg.Node, sc *scope) Predicate {
	saved := an.dry
	an.dry = true
	l := an.expr(n, sc, walkCtx{role: RoleWhere, alias: aliasLast})
	an.dry = saved
	an.dryAmbiguous = false
	p := Predicate{Op: "other"}
	switch {
	case len(l.fields) == 1:
		p.Field = l.fields[0]
	case len(l.fields) > 1:
		// The columns a mixed test reads, so a definition on one of
		// them is undecided rather than silently missing.
		p.Values = append([]string(nil), l.fields...)
		sort.Strings(p.Values)
	}
	return p
}

// constValue is a constant as written, without quotes; casts of constants
// ('2024-01-01'::date, DATE '2024-01-01') are the constant.
func constValue(n *pg.Node) (string, bool) {
	n = unwrapCast(n)
	c := n.GetAConst()
	if c == nil {
		if p := n.GetParamRef(); p != nil {
			return "$" + strconv.Itoa(int(p.GetNumber())), true
		}
		return "", false
	}
	switch {
	case c.GetIsnull():
		return "null", true
	case c.GetSval() != nil:
		return c.GetSval().GetSval(), true
	case c.GetIval() != nil:
		return strconv.FormatInt(int64(c.GetIval().GetIval()), 10), true
	case c.GetFval() != nil:
		return c.GetFval().GetFval(), true
	case c.GetBoolval() != nil:
		return strconv.FormatBool(c.GetBoolval().GetBoolval()), true
	case c.GetBsval() != nil:
		return c.GetBsval().GetBsval(), true
	}
	return "", false
}

// constList reads the constants of an IN list or BETWEEN bounds.
func constList(n *pg.Node) ([]string, bool) {
	items := n.GetList().GetItems()
	if len(items) == 0 {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		v, ok := constValue(it)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}
