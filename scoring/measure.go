package scoring

// Measure definitions. A governed term may define a quantity rather than
// a filter: "revenue = SUM(orders.total) of closed orders by closed_at".
// The seed's semantic rule asks whether "the predicate in the query or
// tool arguments is equivalent to the definition string"; for a measure
// the equivalent is the aggregate: the query computes the same function
// of the same column, or the tool's lineage says it computes from that
// column. Such a definition is decided like a predicate, so that a task
// whose definition cannot be decided can be left ungrounded (issue 28,
// rule 1) without taking every measure with it.

import (
	"fmt"
	"regexp"
	"strings"
)

// measure is AGG(column) read from a definition.
type measure struct {
	agg   string // lower case: sum, avg, count, min, max
	field string // lower case, table.column or a bare column
}

func (m measure) String() string { return fmt.Sprintf("%s(%s)", strings.ToUpper(m.agg), m.field) }

// measureRE reads "term = AGG(column)" (or "term: ...", "term means ...")
// at the start of a definition clause; what follows (of closed orders, by
// closed_at, / 100 in USD) qualifies the measure in prose.
var measureRE = regexp.MustCompile(`(?i)^\s*[^=:]+?\s*(?:=|:|\bmeans\b)\s*(sum|avg|count|min|max)\s*\(\s*(?:distinct\s+)?([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)?)\s*\)`)

// parseMeasure reads the measure of a definition clause.
func parseMeasure(text string) (measure, bool) {
	m := measureRE.FindStringSubmatch(text)
	if m == nil {
		return measure{}, false
	}
	return measure{agg: strings.ToLower(m[1]), field: NormField(m[2])}, true
}

// sameColumn compares a field a query or lineage names with the measure's:
// table and column when both are qualified, else the column.
func (m measure) sameColumn(f string) bool {
	f = NormField(f)
	if strings.Contains(m.field, ".") && strings.Contains(f, ".") && !strings.HasPrefix(f, "?.") {
		return f == m.field
	}
	return column(f) == column(m.field)
}

// matchMeasure decides a measure definition against the calls:
//   - a query computing the same aggregate of the same column, or a tool
//     (called without SQL) whose lineage "$tool" names the column, matches;
//   - else a query computing another aggregate of that column, or the
//     same aggregate of another column, is a mismatch;
//   - else a query that reads the column without aggregating it (the
//     agent may have added the rows up itself) is undecided, and so is a
//     task where no call computes anything the definition could be
//     compared with.
func (st *state) matchMeasure(d definition) (*bool, int, string) {
	m := *d.measure
	mismatchStep, rawStep, sawUnparsed := -1, -1, false
	mismatch := ""
	for _, c := range st.calls {
		if c.discovery || st.isError(c) {
			continue
		}
		for _, a := range c.sql {
			if a.Err != "" {
				sawUnparsed = true
				continue
			}
			for _, ag := range a.Aggregates {
				switch {
				case ag.Field == "":
				case m.sameColumn(ag.Field) && ag.Func == m.agg:
					return boolPtr(true), c.step, ""
				case (m.sameColumn(ag.Field) || ag.Func == m.agg) && mismatchStep < 0:
					mismatchStep, mismatch = c.step, measure{agg: ag.Func, field: ag.Field}.String()
				}
			}
			for _, f := range a.Fields {
				if m.sameColumn(f.Field) && rawStep < 0 {
					rawStep = c.step
				}
			}
		}
		if len(c.sql) == 0 {
			for _, f := range st.lineage[c.tool+".$tool"] {
				if m.sameColumn(f) {
					return boolPtr(true), c.step, ""
				}
			}
		}
	}
	switch {
	case mismatchStep >= 0:
		return boolPtr(false), mismatchStep, "step computes " + mismatch
	case rawStep >= 0:
		return nil, rawStep, fmt.Sprintf("the query at step %d reads %s without computing %s", rawStep, m.field, m)
	case sawUnparsed:
		return nil, -1, "the SQL did not parse, so its aggregates cannot be compared with " + m.String()
	}
	return nil, -1, fmt.Sprintf("no call computes %s in SQL or through a tool whose lineage names %s", m, m.field)
}
