package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// queueRuleCases are the combinations the queue's class rule decides
// between: a label class wins, else the scorer's suggestion, else 'none'.
// label "" with labeled set is a case whose label names no class.
var queueRuleCases = []struct {
	trace, label, suggested, want string
	labeled                       bool
}{
	{"q1", "entity", "temporal", "entity", true},
	{"q2", "entity", "", "entity", true},
	{"q3", "", "semantic", "semantic", true},
	{"q4", "", "semantic", "semantic", false},
	{"q5", "", "", "none", true},
	{"q6", "", "", "none", false},
}

func queueRuleTraces() string {
	var b strings.Builder
	for _, c := range queueRuleCases {
		fmt.Fprintf(&b, `{"trace_id":%q,"server":"s","question":"q %s?","steps":[{"kind":"answer","text":"x"}]}`+"\n", c.trace, c.trace)
	}
	return b.String()
}

// queueRuleWrites are the rows that give each trace of queueRuleCases its
// label and suggested class.
func queueRuleWrites() ([]ScoreRow, []Suggestion) {
	var rows []ScoreRow
	var sgs []Suggestion
	for _, c := range queueRuleCases {
		rows = append(rows, ScoreRow{TraceID: c.trace, SuggestedClass: c.suggested, Detail: []byte(`{}`), GoldSHA: GoldSHANone})
		if c.labeled {
			var l model.Label
			if c.label != "" {
				fc := model.FailureClass(c.label)
				l.FailureClass = &fc
			}
			sgs = append(sgs, Suggestion{TraceID: c.trace, Gold: model.Gold{RequiredFields: []string{"a.b"}}, Label: l})
		}
	}
	return rows, sgs
}

// The queue class stored on a trace is what the one definition of the
// rule (migration 0026: the view trace_queue_class, and on PostgreSQL the
// function tracelab_queue_class behind it) says, for every combination of
// label class and suggestion: whether the label and score land with the
// trace in its import (on SQLite, through the staged copy) or are written
// to a trace already stored, and after they are taken away again.
func TestQueueClassIsTheRule(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, path := range []string{"in the import", "after the import"} {
			t.Run(path, func(t *testing.T) {
				st := b.open(t)
				ctx := context.Background()
				rows, sgs := queueRuleWrites()
				if path == "in the import" {
					importQueueRule(t, st, rows, sgs)
				} else {
					if _, err := importString(t, st, "q.jsonl", queueRuleTraces(), ImportOptions{}); err != nil {
						t.Fatal(err)
					}
					if err := st.SaveScores(ctx, rows, sgs); err != nil {
						t.Fatal(err)
					}
				}
				for _, c := range queueRuleCases {
					checkQueueClass(t, st, c.trace, c.want)
				}
				if b.name == "postgres" {
					checkQueueRuleFunction(t, st)
				}
				// Without their scores, the traces fall back to their label
				// class or 'none'.
				if _, err := st.db.Exec(`DELETE FROM scores`); err != nil {
					t.Fatal(err)
				}
				for _, c := range queueRuleCases {
					want := c.label
					if want == "" {
						want = "none"
					}
					checkQueueClass(t, st, c.trace, want)
				}
			})
		}
	})
}

// importQueueRule imports queueRuleTraces with their scores and machine
// cases put in the same import, as the import pipeline's scorer does.
func importQueueRule(t *testing.T, st *Store, rows []ScoreRow, sgs []Suggestion) {
	t.Helper()
	ctx := context.Background()
	im, err := st.BeginImport(ctx, "q.jsonl", false)
	if err != nil {
		t.Fatal(err)
	}
	defer im.Rollback()
	for i, c := range queueRuleCases {
		tr := &model.Trace{TraceID: c.trace, Server: "s", Question: "q " + c.trace + "?",
			Steps: []model.Step{{Kind: model.KindAnswer, Text: "x"}}, Source: model.Source{File: "q.jsonl", Line: i + 1}}
		if rerr, err := im.PutTrace(tr); err != nil || rerr != nil {
			t.Fatal(rerr, err)
		}
	}
	if err := im.PutScores(rows, sgs); err != nil {
		t.Fatal(err)
	}
	if err := im.Commit("native", "sha", 0); err != nil {
		t.Fatal(err)
	}
}

// checkQueueClass compares the stored queue class of trace id with the
// rule's view over the same row and with want.
func checkQueueClass(t *testing.T, st *Store, id, want string) {
	t.Helper()
	var stored, rule, label, suggested string
	err := st.db.QueryRow(`SELECT t.queue_class, v.queue_class, t.label_class, t.suggested_class
		FROM traces t JOIN trace_queue_class v ON v.id = t.id WHERE t.trace_id = '`+id+`'`).Scan(&stored, &rule, &label, &suggested)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	if stored != rule || stored != want {
		t.Errorf("%s (label %q, suggested %q): queue_class %q, the rule's view says %q, want %q", id, label, suggested, stored, rule, want)
	}
}

// checkQueueRuleFunction calls PostgreSQL's tracelab_queue_class on each
// combination, apart from any row.
func checkQueueRuleFunction(t *testing.T, st *Store) {
	t.Helper()
	for _, c := range queueRuleCases {
		var got string
		if err := st.db.QueryRow(`SELECT tracelab_queue_class('` + c.label + `', '` + c.suggested + `')`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("tracelab_queue_class(%q, %q) = %q, want %q", c.label, c.suggested, got, c.want)
		}
	}
}
