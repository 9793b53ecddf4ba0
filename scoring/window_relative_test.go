package scoring

import (
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

func TestRelativeWindow(t *testing.T) {
	for _, c := range []struct {
		q, at, cal string
		want       model.Window
		ok         bool
	}{
		// trace_27f6e9: asked on 2026-09-03, "this month" is September.
		{"Which deals are closing this month?", "2026-09-03T08:15:00Z", "", model.Window{Start: "2026-09-01", End: "2026-09-30", Calendar: "calendar"}, true},
		// trace_41d7b8, a month earlier: August.
		{"Which deals are closing this month?", "2026-08-03T08:10:00Z", "fiscal", model.Window{Start: "2026-08-01", End: "2026-08-31", Calendar: "calendar"}, true},
		// trace_19ce53: Wednesday 2026-09-09, the week from Monday the 7th.
		{"Which deals are at risk this week?", "2026-09-09T14:20:00Z", "", model.Window{Start: "2026-09-07", End: "2026-09-13", Calendar: "calendar"}, true},
		// The seed's "last quarter" in July 2026, named by the fiscal glossary.
		{"How many active customers did we have in EMEA last quarter?", "2026-07-03T09:12:00Z", "fiscal", model.Window{Start: "2026-04-01", End: "2026-06-30", Calendar: "fiscal"}, true},
		{"How many active customers did we have in EMEA last quarter?", "2026-01-15T09:12:00Z", "", model.Window{Start: "2025-10-01", End: "2025-12-31", Calendar: "calendar"}, true},
		{"What did we invoice yesterday?", "2026-03-01T00:30:00Z", "", model.Window{Start: "2026-02-28", End: "2026-02-28", Calendar: "calendar"}, true},
		{"What did we invoice last month?", "2026-01-10T10:00:00Z", "", model.Window{Start: "2025-12-01", End: "2025-12-31", Calendar: "calendar"}, true},
		{"Sunday's week: which deals this week?", "2026-09-13T23:00:00Z", "", model.Window{Start: "2026-09-07", End: "2026-09-13", Calendar: "calendar"}, true},
		// Its own offset: late on the 31st in New York is still August.
		{"Which deals are closing this month?", "2026-08-31T22:00:00-04:00", "", model.Window{Start: "2026-08-01", End: "2026-08-31", Calendar: "calendar"}, true},
		{"What was revenue in Q3?", "2026-07-15T11:00:00Z", "", model.Window{}, false},
		{"Which deals are closing this month?", "not a time", "", model.Window{}, false},
	} {
		got, ok := RelativeWindow(c.q, c.at, c.cal)
		if ok != c.ok || got != c.want {
			t.Errorf("%q at %s: %+v %v, want %+v %v", c.q, c.at, got, ok, c.want, c.ok)
		}
	}
}

// A peer's gold for the same words about another period teaches nothing:
// trace_27f6e9 is not offered trace_41d7b8's August window.
func TestSuggestGoldKeepsTheTracesOwnPeriod(t *testing.T) {
	sc, err := NewScorer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	q := "Which deals are closing this month?"
	tr := &model.Trace{TraceID: "trace_27f6e9", Server: "generic-warehouse", Question: q, StartedAt: "2026-09-03T08:15:00Z"}
	aug := &model.Gold{RequiredFields: []string{"opportunities.close_date"}, Window: &model.Window{Start: "2026-08-01", End: "2026-08-31", Calendar: "calendar"}}
	sep := &model.Gold{RequiredFields: []string{"opportunities.stage"}, Window: &model.Window{Start: "2026-09-01", End: "2026-09-30", Calendar: "calendar"}}
	for _, c := range []struct {
		name   string
		peers  []Peer
		req    []string
		window string
	}{
		{"august peer", []Peer{{TraceID: "trace_41d7b8", Server: "task-specific", Question: q, Gold: aug, Grounded: true}}, []string{}, ""},
		{"september peer", []Peer{{TraceID: "trace_90a4c6", Server: "task-specific", Question: q, Gold: sep, Grounded: true}}, []string{"opportunities.stage"}, "2026-09-01"},
		{"both, august first", []Peer{{TraceID: "trace_41d7b8", Server: "task-specific", Question: q, Gold: aug, Grounded: true},
			{TraceID: "trace_90a4c6", Server: "task-specific", Question: q, Gold: sep, Grounded: true}}, []string{"opportunities.stage"}, "2026-09-01"},
	} {
		s := sc.SuggestGold(tr, TraceScore{}, c.peers)
		w := s.Gold.Window
		if (w == nil) != (c.window == "") || (w != nil && w.Start != c.window) {
			t.Errorf("%s: window %+v, want one from %q", c.name, w, c.window)
		}
		if got := s.Gold.RequiredFields; len(got) != len(c.req) || (len(got) > 0 && got[0] != c.req[0]) {
			t.Errorf("%s: required %v, want %v", c.name, got, c.req)
		}
	}
}

// mayBeRelative only skips the regexp where it could not match: every
// question the regexp matches passes it, whatever the case, including
// the letters (?i) folds from outside ASCII.
func TestMayBeRelativeKeepsEveryMatch(t *testing.T) {
	for _, q := range []string{
		"What was revenue this quarter?", "LAST WEEK's signups", "previous\tMonth", "current  YEAR",
		"Yesterday's tickets", "how many TODAY", "this wee\u212a", "ye\u017fterday", "la\u017ft week",
		"this week", "last\u00a0month", "No period here", "", "weekly totals for this team",
	} {
		if relativePhrase.MatchString(q) && !mayBeRelative(q) {
			t.Errorf("%q matches the relative phrase but mayBeRelative skips it", q)
		}
	}
	for _, q := range []string{"How many active customers do we have?", "Top 10 accounts by revenue", "open tickets for Acme"} {
		if mayBeRelative(q) {
			t.Errorf("%q holds no unit word, yet mayBeRelative passes it", q)
		}
	}
}

func FuzzMayBeRelative(f *testing.F) {
	for _, s := range []string{"this wee\u212a", "ye\u017fterday", "LAST quarter", "today", "no"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if relativePhrase.MatchString(q) && !mayBeRelative(q) {
			t.Errorf("%q matches the relative phrase but mayBeRelative skips it", q)
		}
	})
}

func BenchmarkRelativeWindow(b *testing.B) {
	qs := []string{"How many active customers did we have at the end of the segment 2999?", "What was revenue last quarter?"}
	for i := 0; i < b.N; i++ {
		RelativeWindow(qs[i%2], "2026-07-03T09:12:00Z", "")
	}
}
