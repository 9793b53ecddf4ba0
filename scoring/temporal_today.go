package scoring

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// todayRe finds a window computed from the current date: now(),
// current_date, CURRENT_TIMESTAMP, date_trunc('quarter', now()),
// date('now') (SQLite), GETDATE() and SYSDATE, CURDATE().
var todayRe = regexp.MustCompile(`(?i)\bnow\s*\(\s*\)|\bcurrent_date\b|\bcurrent_timestamp\b|\blocaltimestamp\b|\bgetdate\s*\(\s*\)|\bsysdate\b|\bcurdate\s*\(\s*\)|\bdate(?:time)?\s*\(\s*'now'|\btoday\s*\(\s*\)`)

// findToday is todayRe's first match in s. Most SQL reads no clock: a
// scan for the words' first letters rules it out before the regexp runs.
func findToday(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] | 0x20 {
		case 'n', 'c', 'l', 'g', 's', 't':
			rest := s[i:]
			for _, w := range todayWords {
				if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) {
					return todayRe.FindString(s)
				}
			}
		}
	}
	return ""
}

var todayWords = []string{"now", "current_", "localtimestamp", "getdate", "sysdate", "curdate", "today"}

// calendarLookup: a call that read a calendar: a tool or a table whose
// name says calendar, fiscal or period (fiscal_calendar, get_fiscal_period,
// resolve_period).
func calendarLookup(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "calendar") || strings.Contains(n, "fiscal") || strings.Contains(n, "period")
}

// fiscalWindow says why the task's window is fiscal: the gold window's
// calendar, or a glossary term of the question that says fiscal; "" when
// neither does.
func (st *state) fiscalWindow() string {
	if st.gold != nil && st.gold.Window != nil && strings.EqualFold(st.gold.Window.Calendar, "fiscal") {
		w := st.gold.Window
		if w.Start != "" && w.End != "" {
			return fmt.Sprintf("the case's window is fiscal %s..%s", w.Start, w.End)
		}
		return "the case's window is fiscal"
	}
	for _, tm := range st.terms {
		if strings.EqualFold(tm.entry.Calendar, "fiscal") || containsPhrase(normText(tm.entry.Definition), "fiscal") {
			return fmt.Sprintf("the glossary term %q is fiscal", tm.entry.Term)
		}
	}
	return ""
}

// todayWindowRule is the seed's temporal symptom "A window computed from
// today's date with no fiscal calendar lookup": SQL (or a string argument)
// that dates its window from now(), current_date and the like, in a task
// whose window is fiscal, with no call in the trace that read a calendar.
func (st *state) todayWindowRule() {
	why := st.fiscalWindow()
	if why == "" {
		return
	}
	for _, c := range st.calls {
		if st.isError(c) {
			continue
		}
		if calendarLookup(c.tool) {
			return
		}
		for _, a := range c.sql {
			for _, t := range a.Tables {
				if calendarLookup(t) {
					return
				}
			}
		}
	}
	for _, c := range st.calls {
		if c.discovery || st.isError(c) {
			continue
		}
		found := ""
		for _, a := range c.sql {
			if a.today != "" && a.Err == "" {
				found = a.today
				break
			}
		}
		if found == "" && len(c.sql) == 0 {
			for _, name := range c.argOrder {
				if v, ok := c.args[name].(string); ok {
					if m := findToday(v); m != "" {
						found = m
						break
					}
				}
			}
		}
		if found == "" {
			continue
		}
		st.evidence(model.ClassTemporal, "today_window", 0.7, c.step,
			fmt.Sprintf("%s computes its window from today's date (%s) with no fiscal calendar lookup; %s", c.tool, strings.TrimSpace(found), why))
	}
}

// skewTolerance is how far a result's as_of may run ahead of the trace's
// start before it is clock skew rather than rounding or a slow call.
const skewTolerance = 5 * time.Minute

// skewed: an as_of later than the trace's start by more than a few
// minutes. The data cannot be from the future: a clock is wrong, so the
// age computed from it proves nothing either way.
func (st *state) skewed(c *call, at time.Time) bool {
	ahead := at.Sub(st.now)
	if ahead <= skewTolerance {
		return false
	}
	st.review = append(st.review, fmt.Sprintf("freshness: result of %s (step %d) has as_of %s, %s after the trace started (%s): clock skew, so its age is unknown",
		c.tool, c.result, at.UTC().Format(time.RFC3339), ahead.Round(time.Minute), st.now.UTC().Format(time.RFC3339)))
	return true
}
