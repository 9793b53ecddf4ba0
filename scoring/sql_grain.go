package scoring

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/tracelab-dev/tracelab/model"
)

// Grain: what fan-out needs to know beyond the statement-wide Joins and
// Aggregates. The seed's structural symptom is "Aggregation after a
// one-to-many join… Every order with three lines counts three times": an
// aggregate multiplies only when it runs in the same query level as the
// join, and only when the many side really repeats the key. A CTE or
// subquery that aggregates the many side GROUP BY the join key has one row
// per key, so joining it multiplies nothing (aggregate-before-join).

// aggAt is one aggregate of a column with the query level it runs in.
type aggAt struct {
	fn       string
	field    string
	level    int
	distinct bool
}

// joinAt is one equality join with the query level it is in; unique holds
// the side whose relation has one row per its key (a grouped CTE or
// subquery), "" when neither has.
type joinAt struct {
	join   Join
	level  int
	unique map[string]bool
}

func (an *sqlAnalyzer) aggregateAt(ctx walkCtx, field string, sc *scope) {
	if an.dry {
		return
	}
	an.aggsAt = append(an.aggsAt, scopedAgg{fn: ctx.agg, field: field, sc: sc, distinct: ctx.aggDistinct})
}

func (an *sqlAnalyzer) joinAt(lf, rf string, lrel, rrel *relation, sc *scope) {
	if an.dry || lf == rf {
		return
	}
	j := scopedJoin{left: lf, right: rf, sc: sc}
	if lrel != nil && lrel.uniqueBy[lf] {
		j.unique = append(j.unique, lf)
	}
	if rrel != nil && rrel.uniqueBy[rf] {
		j.unique = append(j.unique, rf)
	}
	an.joinsAt = append(an.joinsAt, j)
}

type scopedAgg struct {
	fn, field string
	sc        *scope
	distinct  bool
}

type scopedJoin struct {
	left, right string
	sc          *scope
	unique      []string
}

// grain is what a SELECT's rows are unique by: the real field of its only
// GROUP BY key, or of its only output column under plain DISTINCT.
func (an *sqlAnalyzer) grain(s *pg.SelectStmt, sc *scope) map[string]bool {
	var key lineage
	switch g := s.GetGroupClause(); {
	case len(g) == 1:
		key = an.keyLineage(g[0], sc)
	case len(g) == 0 && len(s.GetDistinctClause()) > 0 && len(sc.targets) == 1:
		// SELECT DISTINCT x: the distinct clause holds one nil node.
		if d := s.GetDistinctClause()[0]; d == nil || d.GetNode() == nil {
			key = sc.targets[0]
		}
	}
	if f, ok := key.single(); ok {
		return map[string]bool{f: true}
	}
	return nil
}

// keyLineage is the lineage of a GROUP BY item, without recording a use
// (sortKey already did): an ordinal names a select-list entry.
func (an *sqlAnalyzer) keyLineage(n *pg.Node, sc *scope) lineage {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		if i := int(c.GetIval().GetIval()) - 1; i >= 0 && i < len(sc.targets) {
			return sc.targets[i]
		}
		return lineage{}
	}
	saved, savedAmb := an.dry, an.dryAmbiguous
	an.dry = true
	l := an.expr(unwrapCast(n), sc, walkCtx{role: RoleGroup, alias: aliasLast})
	an.dry, an.dryAmbiguous = saved, savedAmb
	return l
}

// fillGrain numbers the query levels and copies the scoped aggregates and
// joins into the analysis (the cached analysis keeps no scope alive).
func (an *sqlAnalyzer) fillGrain(out *SQLAnalysis) {
	levels := map[*scope]int{}
	level := func(s *scope) int {
		if n, ok := levels[s]; ok {
			return n
		}
		levels[s] = len(levels)
		return levels[s]
	}
	for _, a := range an.aggsAt {
		out.aggsAt = append(out.aggsAt, aggAt{fn: a.fn, field: a.field, level: level(a.sc), distinct: a.distinct})
	}
	for _, j := range an.joinsAt {
		l, r := j.left, j.right
		if r < l {
			l, r = r, l
		}
		ja := joinAt{join: Join{Left: l, Right: r}, level: level(j.sc)}
		for _, u := range j.unique {
			if ja.unique == nil {
				ja.unique = map[string]bool{}
			}
			ja.unique[u] = true
		}
		out.joinsAt = append(out.joinsAt, ja)
	}
}

// fanOutRule is the seed's "Aggregation after a one-to-many join… Every
// order with three lines counts three times": SUM, AVG or COUNT of a
// column of the one side (orders.total), in the same query level as a join
// from that side's key to a many side that repeats it (order_lines.order_id).
// Not fan-out: a many-side column aggregated at its own grain, an aggregate
// over DISTINCT values, an aggregate computed in a CTE or subquery before
// the join, and a join to a CTE or subquery grouped by the join key (one
// row per order).
func (st *state) fanOutRule(c *call, a *SQLAnalysis) {
	for _, ag := range a.aggsAt {
		switch ag.fn {
		case "sum", "avg", "count":
		default:
			continue
		}
		if ag.distinct {
			continue
		}
		parent := table(ag.field)
		for _, ja := range a.joinsAt {
			if ja.level != ag.level {
				continue
			}
			child, ok := fansOut(parent, ja.join)
			if !ok || ja.unique[manySide(ja.join, child)] {
				continue
			}
			st.evidence(model.ClassStructural, "fan_out", 0.85, c.step,
				fmt.Sprintf("%s(%s) after joining %s on %s = %s: each %s row counts once per %s row",
					ag.fn, ag.field, child, ja.join.Left, ja.join.Right, singular(parent), singular(child)))
		}
	}
}

// manySide is the join's field on the child table.
func manySide(j Join, child string) string {
	if table(j.Left) == child {
		return j.Left
	}
	return j.Right
}
