package scoring

// The temporal rules that read dates: the columns a query filters on,
// the window its bounds make against the gold window, the window a tool
// says it resolved, and the date arguments of tools.

import (
	"fmt"
	"strings"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

func (st *state) temporalRules() {
	st.todayWindowRule()
	if st.gold == nil {
		return
	}
	order, byField := st.dateFilterBounds()
	w := st.gold.Window
	if w == nil {
		return
	}
	start, err1 := time.Parse(time.DateOnly, w.Start)
	end, err2 := time.Parse(time.DateOnly, w.End)
	if err1 != nil || err2 != nil {
		return
	}
	for _, f := range order {
		st.windowBoundsRule(f, byField[f], w, start, end)
	}
	st.resolvedWindowRule(w)
	st.dateArgumentsRule(w, start, end)
}

// dateBounds is the window the date filters on one column (or on the
// governed timestamps together) make.
type dateBounds struct {
	step           int
	lower, upper   *time.Time
	lowOp, upperOp string
}

// apply narrows the bounds by one predicate.
func (b *dateBounds) apply(p Predicate) {
	d0, _ := dateLiteral(p.Values[0])
	switch p.Op {
	case ">", ">=":
		b.lower, b.lowOp = &d0, p.Op
	case "<", "<=":
		b.upper, b.upperOp = &d0, p.Op
	case "between":
		if len(p.Values) == 2 {
			d1, ok := dateLiteral(p.Values[1])
			if ok {
				b.lower, b.lowOp, b.upper, b.upperOp = &d0, ">=", &d1, "<="
			}
		}
	case "=":
		b.lower, b.lowOp, b.upper, b.upperOp = &d0, ">=", &d0, "<="
	}
}

// dateFilterBounds reports date filters on the wrong column and gathers
// the bounds of every filtered column, in the order first filtered.
func (st *state) dateFilterBounds() ([]string, map[string]*dateBounds) {
	ts := st.timestampColumns()
	steps, preds := st.dateFilters()
	byField := map[string]*dateBounds{}
	var order []string
	for i, p := range preds {
		f := NormField(p.Field)
		switch {
		case st.forbidden[f]:
			st.evidence(model.ClassTemporal, "wrong_date_column", 0.85, steps[i],
				fmt.Sprintf("date filter on %s, a forbidden column; the metric is dated by %s", f, listOr(ts, "its governed timestamp")))
		case len(ts) > 0 && !ts[f] && !st.required[f]:
			st.evidence(model.ClassTemporal, "wrong_date_column", 0.8, steps[i],
				fmt.Sprintf("date filter on %s; the metric is dated by %s", f, listOr(ts, "")))
		}
		// The governed timestamp columns bound the window together (an
		// overlap test puts the start on period_end and the end on
		// period_start); any other column is judged on its own.
		key := f
		if ts[f] || st.required[f] {
			key = "the governed timestamp"
		}
		b := byField[key]
		if b == nil {
			b = &dateBounds{step: steps[i]}
			byField[key] = b
			order = append(order, key)
		}
		b.apply(p)
	}
	return order, byField
}

// windowBoundsRule compares the bounds on one column with the gold window.
func (st *state) windowBoundsRule(f string, b *dateBounds, w *model.Window, start, end time.Time) {
	day := 24 * time.Hour
	switch {
	case b.lower == nil:
		st.evidence(model.ClassTemporal, "window", 0.7, b.step,
			fmt.Sprintf("the filter on %s has no start; the %s window starts %s", f, w.Calendar, w.Start))
	case b.lowOp == ">=" && !b.lower.Equal(start) || b.lowOp == ">" && !b.lower.Add(day).Equal(start):
		st.evidence(model.ClassTemporal, "window", 0.75, b.step,
			fmt.Sprintf("the filter on %s starts %s; the %s window starts %s", f, b.lower.Format(time.DateOnly), w.Calendar, w.Start))
	}
	switch {
	case b.upper == nil:
		st.evidence(model.ClassTemporal, "window", 0.7, b.step,
			fmt.Sprintf("the filter on %s has no end; the %s window ends %s", f, w.Calendar, w.End))
	case b.upperOp == "<=" && !b.upper.Equal(end) || b.upperOp == "<" && !b.upper.Equal(end.Add(day)):
		st.evidence(model.ClassTemporal, "window", 0.75, b.step,
			fmt.Sprintf("the filter on %s ends %s %s; the %s window ends %s", f, b.upperOp, b.upper.Format(time.DateOnly), w.Calendar, w.End))
	}
}

// resolvedWindowRule: a tool that reports the window it resolved
// ({"window":{start,end,calendar}}) against the gold window.
func (st *state) resolvedWindowRule(w *model.Window) {
	for _, c := range st.dataResults() {
		m, ok := c.resVal.(map[string]any)
		if !ok {
			continue
		}
		rw, ok := m["window"].(map[string]any)
		if !ok {
			continue
		}
		rs, _ := rw["start"].(string)
		re, _ := rw["end"].(string)
		rc, _ := rw["calendar"].(string)
		if rs != "" && re != "" && (rs != w.Start || re != w.End) {
			st.evidence(model.ClassTemporal, "window", 0.8, c.result,
				fmt.Sprintf("%s resolved the window %s..%s; the %s window is %s..%s", c.tool, rs, re, w.Calendar, w.Start, w.End))
		} else if rc != "" && w.Calendar != "" && !strings.EqualFold(rc, w.Calendar) {
			st.evidence(model.ClassTemporal, "window", 0.6, c.result,
				fmt.Sprintf("%s resolved a %s window; the case's window is %s", c.tool, rc, w.Calendar))
		}
	}
}

// dateArgumentsRule: date arguments of non-SQL tools against the window.
func (st *state) dateArgumentsRule(w *model.Window, start, end time.Time) {
	for _, c := range st.calls {
		if len(c.sql) > 0 || c.discovery {
			continue
		}
		for _, name := range c.argOrder {
			v, ok := c.args[name].(string)
			if !ok {
				continue
			}
			d, ok := dateLiteral(v)
			if !ok || len(v) > 10 && v[10] != 'T' && v[10] != ' ' {
				continue
			}
			isStart, isEnd := dateArgRole(name)
			switch {
			case isStart && !d.Equal(start):
				st.evidence(model.ClassTemporal, "window", 0.75, c.step,
					fmt.Sprintf("%s(%s=%s); the %s window starts %s", c.tool, name, v, w.Calendar, w.Start))
			case isEnd && !isStart && !d.Equal(end) && !d.Equal(end.Add(24*time.Hour)):
				st.evidence(model.ClassTemporal, "window", 0.75, c.step,
					fmt.Sprintf("%s(%s=%s); the %s window ends %s", c.tool, name, v, w.Calendar, w.End))
			}
		}
	}
}

// dateArgRole reads from an argument's name whether it starts or ends a
// window.
func dateArgRole(name string) (isStart, isEnd bool) {
	n := strings.ToLower(name)
	isStart = strings.Contains(n, "start") || strings.Contains(n, "from") || strings.Contains(n, "since") || strings.Contains(n, "after")
	isEnd = strings.Contains(n, "end") || strings.Contains(n, "to") || strings.Contains(n, "until") || strings.Contains(n, "before")
	return isStart, isEnd
}
