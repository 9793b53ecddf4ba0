package scoring

import (
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// SuggestGold offers the answer a person confirmed for the same question,
// period and scope (issue 26): on the same server too, a relative period
// resolved from when each trace was asked.
func TestSuggestGoldAnswerFromPeers(t *testing.T) {
	const q = "How many active customers did we have in EMEA last quarter?"
	me := &model.Trace{TraceID: "trace_e1a7d0", Server: "generic-warehouse", Question: q, StartedAt: "2026-08-18T09:05:00Z"}
	gold := func(answer, scope string, w *model.Window) *model.Gold {
		return &model.Gold{Answer: []byte(answer), PolicyScope: scope, Window: w}
	}
	q2 := &model.Window{Start: "2026-04-01", End: "2026-06-30"}
	q1 := &model.Window{Start: "2026-01-01", End: "2026-03-31"}
	cases := []struct {
		name  string
		peers []Peer
		want  string // the answer offered, "" for none
	}{
		{"same server, same quarter, no window on the gold",
			[]Peer{{TraceID: "trace_9f31c2", Server: "generic-warehouse", Question: q, StartedAt: "2026-07-03T09:12:00Z", Gold: gold("1147", "", nil)}}, "1147"},
		{"question spelled differently",
			[]Peer{{TraceID: "p", Server: "generic-warehouse", Question: "how many ACTIVE customers did we have in emea last quarter", StartedAt: "2026-07-03T09:12:00Z", Gold: gold("1147", "", nil)}}, "1147"},
		{"the gold's window is the same quarter",
			[]Peer{{TraceID: "p", Server: "task-specific", Question: q, StartedAt: "2026-07-03T09:12:00Z", Gold: gold("1284", "", q2)}}, "1284"},
		{"the gold's window is another quarter",
			[]Peer{{TraceID: "p", Server: "task-specific", Question: q, StartedAt: "2026-07-03T09:12:00Z", Gold: gold("1284", "", q1)}}, ""},
		{"asked in another quarter",
			[]Peer{{TraceID: "p", Server: "generic-warehouse", Question: q, StartedAt: "2026-10-02T09:00:00Z", Gold: gold("1300", "", nil)}}, ""},
		{"asked when nobody knows",
			[]Peer{{TraceID: "p", Server: "generic-warehouse", Question: q, Gold: gold("1300", "", nil)}}, ""},
		{"another scope",
			[]Peer{{TraceID: "p", Server: "generic-warehouse", Question: q, StartedAt: "2026-07-03T09:12:00Z", Gold: gold("900", "emea_only", nil)}}, ""},
		{"another question",
			[]Peer{{TraceID: "p", Server: "generic-warehouse", Question: "How many active customers did we have in APAC last quarter?", StartedAt: "2026-07-03T09:12:00Z", Gold: gold("12", "", nil)}}, ""},
		{"no answer on the gold",
			[]Peer{{TraceID: "p", Server: "generic-warehouse", Question: q, StartedAt: "2026-07-03T09:12:00Z", Gold: gold("null", "", nil)}}, ""},
		{"its own gold is no peer",
			[]Peer{{TraceID: "trace_e1a7d0", Server: "generic-warehouse", Question: q, StartedAt: me.StartedAt, Gold: gold("5", "", nil)}}, ""},
		{"the first peer in server order wins",
			[]Peer{
				{TraceID: "b", Server: "task-specific", Question: q, StartedAt: "2026-07-03T09:14:00Z", Gold: gold("1284", "", nil)},
				{TraceID: "a", Server: "generic-warehouse", Question: q, StartedAt: "2026-07-03T09:12:00Z", Gold: gold("1147", "", nil)},
			}, "1147"},
	}
	s, err := NewScorer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	// A question that names no period is the state when it was asked:
	// another day's answer is not offered.
	tickets := &model.Trace{TraceID: "trace_2d8f61", Server: "support-crm", Question: "What are the open tickets for Acme?", StartedAt: "2026-09-01T10:15:00Z"}
	if g := s.SuggestGold(tickets, TraceScore{}, []Peer{{TraceID: "trace_0c9d4e", Server: "support-crm", Question: tickets.Question,
		StartedAt: "2026-08-18T11:02:00Z", Gold: &model.Gold{Answer: []byte(`["T-1"]`)}}}); len(g.Gold.Answer) != 0 {
		t.Errorf("open tickets of another day offered: %s", g.Gold.Answer)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := s.SuggestGold(me, TraceScore{}, c.peers)
			if got := string(g.Gold.Answer); got != c.want {
				t.Fatalf("answer %q, want %q (sources %q)", got, c.want, g.Sources)
			}
			said := false
			for _, src := range g.Sources {
				said = said || len(src) > 7 && src[:7] == "answer:"
			}
			if said != (c.want != "") {
				t.Errorf("sources %q: the answer's source said %v, want %v", g.Sources, said, c.want != "")
			}
		})
	}
}
