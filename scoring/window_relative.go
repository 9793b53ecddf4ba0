package scoring

import (
	"regexp"
	"strings"
	"time"

	"github.com/tracelab-dev/tracelab/model"
)

// Relative windows in a question ("this month", "last quarter", "this
// week", "yesterday") mean the period around when it was asked: they are
// resolved from the trace's own started_at, never from the clock, so
// scoring stays pure and a trace asked on 2026-09-03 about "this month"
// gets September, not the August of a peer asked a month earlier
// (issue 26). Weeks run Monday to Sunday. Quarters have calendar-quarter
// bounds; the glossary's calendar (fiscal or calendar) only names them,
// as the bundled fiscal year (from 1 July) has calendar-quarter bounds.

var relativePhrase = regexp.MustCompile(`(?i)\b(this|last|previous|current)\s+(week|month|quarter|year)\b|\b(yesterday|today)\b`)

// relativeUnits are pieces every match of relativePhrase holds one of,
// ASCII case ignored: the unit words, with the letters (?i) also matches
// outside ASCII left out (the Kelvin sign is a k, the long s an s), so
// "weeK" with a Kelvin sign still holds "wee".
var relativeUnits = []string{"wee", "month", "quarter", "year", "terday", "today"}

// mayBeRelative says question may hold a relative period: false when it
// holds none of relativeUnits, and then the regexp, which cost about a
// microsecond a question three times a trace at import, is not run.
func mayBeRelative(question string) bool {
	for _, u := range relativeUnits {
		if containsFoldASCII(question, u) {
			return true
		}
	}
	return false
}

// containsFoldASCII says s holds sub (lower-case ASCII) with ASCII case
// ignored, without allocating.
func containsFoldASCII(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for ; j < len(sub); j++ {
			if s[i+j]|0x20 != sub[j] {
				break
			}
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// RelativeWindow resolves the first relative period in question against
// startedAt (RFC 3339, in its own offset). calendar names a quarter's or
// a year's calendar ("" is calendar); ok is false when the question names
// no relative period or startedAt does not parse.
func RelativeWindow(question, startedAt, calendar string) (model.Window, bool) {
	if !mayBeRelative(question) {
		return model.Window{}, false
	}
	m := relativePhrase.FindStringSubmatch(question)
	if m == nil {
		return model.Window{}, false
	}
	at, err := time.Parse(time.RFC3339, strings.TrimSpace(startedAt))
	if err != nil {
		return model.Window{}, false
	}
	day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
	back := strings.EqualFold(m[1], "last") || strings.EqualFold(m[1], "previous")
	unit := strings.ToLower(m[2])
	if m[3] != "" {
		unit, back = "day", strings.EqualFold(m[3], "yesterday")
	}
	var start, end time.Time
	switch unit {
	case "day":
		start = day
		if back {
			start = day.AddDate(0, 0, -1)
		}
		end = start
	case "week":
		start = day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7)) // back to Monday
		if back {
			start = start.AddDate(0, 0, -7)
		}
		end = start.AddDate(0, 0, 6)
	case "month":
		start = time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
		if back {
			start = start.AddDate(0, -1, 0)
		}
		end = start.AddDate(0, 1, -1)
	case "quarter":
		q := (int(day.Month()) - 1) / 3
		start = time.Date(day.Year(), time.Month(q*3+1), 1, 0, 0, 0, 0, time.UTC)
		if back {
			start = start.AddDate(0, -3, 0)
		}
		end = start.AddDate(0, 3, -1)
	default: // year
		start = time.Date(day.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		if back {
			start = start.AddDate(-1, 0, 0)
		}
		end = start.AddDate(1, 0, -1)
	}
	cal := "calendar"
	if (unit == "quarter" || unit == "year") && calendar != "" {
		cal = calendar
	}
	return model.Window{Start: start.Format(time.DateOnly), End: end.Format(time.DateOnly), Calendar: cal}, true
}

// sameBounds says two windows cover the same dates.
func sameBounds(a, b *model.Window) bool {
	return a != nil && b != nil && a.Start == b.Start && a.End == b.End
}
