package app

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
)

// labelEngine is an engine on the bundled traces without their cases,
// scored, as the demo starts: every trace waits for a label.
func labelEngine(t *testing.T) *Engine {
	t.Helper()
	st := openTestdata(t, false)
	e, err := newEngine(context.Background(), st, Files{Lineage: "../testdata/lineage.json"})
	if err != nil {
		t.Fatal(err)
	}
	e.SetPolicy(policy(t))
	t.Cleanup(e.stopBackground) // before the store closes (cleanups run last first)
	if _, err := e.Scores.Rescore(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	return e
}

// groundPeers confirms, as a person would, the task-specific traces of
// the questions trace_e7c3b5 and trace_9f31c2 ask as grounded and correct,
// so those two get gold suggested from a grounded peer on another server.
func groundPeers(t *testing.T, e *Engine) {
	t.Helper()
	ctx := context.Background()
	for _, id := range []string{"trace_3a6e0f", "trace_4be07a"} {
		for _, f := range []func(context.Context, string, string) (ActionResult, error){e.Labels.ToggleGrounded, e.Labels.ToggleCorrect} {
			if _, err := f(ctx, id, "peer"); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.Labels.ConfirmLabel(ctx, id, "peer", true); err != nil {
			t.Fatal(err)
		}
	}
}

func boolStr(b *bool) string {
	switch {
	case b == nil:
		return "?"
	case *b:
		return "yes"
	}
	return "no"
}

func classStr(c *model.FailureClass) string {
	if c == nil {
		return "none"
	}
	return string(*c)
}

// The label `a` lands agrees with the score on the gold it accepted, in one
// action, and a second `a` has nothing left to change (on trace_e7c3b5 it
// used to flip grounded and the class).
func TestAcceptSuggestionIsConsistent(t *testing.T) {
	ctx := context.Background()
	for _, id := range []string{"trace_e7c3b5", "trace_9f31c2"} {
		t.Run(id, func(t *testing.T) {
			e := labelEngine(t)
			// Before its peers are confirmed: the score the case's suggestion
			// then stands on is what accepting the peers' suggestion changes.
			unpeered, err := e.Scores.Of(ctx, id)
			if err != nil || unpeered == nil {
				t.Fatalf("score of %s: %v", id, err)
			}
			groundPeers(t, e)
			before, err := e.Scores.Of(ctx, id)
			if err != nil || before == nil || before.SuggestedGold == nil || len(before.SuggestedGold.RequiredFields) == 0 {
				t.Fatalf("no gold suggested for %s: %v", id, err)
			}
			res, err := e.Labels.AcceptSuggestion(ctx, id, "ann")
			if err != nil {
				t.Fatal(err)
			}
			if res.Group == 0 || len(res.Changed) < 2 {
				t.Fatalf("accept changed %v in group %d", res.Changed, res.Group)
			}
			sc, err := e.Scores.Of(ctx, id)
			if err != nil || sc == nil {
				t.Fatalf("score: %v", err)
			}
			l := res.Case.Case.Label
			if boolStr(l.Grounded) != boolStr(sc.Grounded) || boolStr(l.Correct) != boolStr(sc.Correct) ||
				classStr(l.FailureClass) != classStr(sc.SuggestedClass) {
				t.Errorf("label correct %s grounded %s class %s, score on the accepted gold says %s %s %s",
					boolStr(l.Correct), boolStr(l.Grounded), classStr(l.FailureClass),
					boolStr(sc.Correct), boolStr(sc.Grounded), classStr(sc.SuggestedClass))
			}
			if id == "trace_e7c3b5" && boolStr(unpeered.Grounded) != "no" {
				// Before any peer is confirmed, trace_3a6e0f's tool contract
				// teaches it closed_at already (0025): it was grounded "yes"
				// against no gold, and "accept" flipped it.
				t.Errorf("on the traces alone trace_e7c3b5 is grounded %s, want no", boolStr(unpeered.Grounded))
			}
			if l.Note != "" {
				t.Errorf("machine text in the human note: %q", l.Note)
			}
			again, err := e.Labels.AcceptSuggestion(ctx, id, "ann")
			if err != nil {
				t.Fatal(err)
			}
			if again.Group != 0 {
				t.Errorf("second accept changed %v", again.Changed)
			}
			evs, err := e.Traces.Events(ctx, res.Case.Case.CaseID)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs {
				if ev.Group != res.Group {
					t.Errorf("event %s in group %d, want the accept's %d", ev.Field, ev.Group, res.Group)
				}
			}
			if len(evs) != len(res.Changed) {
				t.Errorf("%d events for %d changed fields", len(evs), len(res.Changed))
			}
		})
	}
}

// One undo reverts one action however many fields it changed; redo puts
// it back; a new edit after an undo clears the redo.
func TestUndoRedoActions(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	groundPeers(t, e)
	id := "trace_9f31c2"
	state := func() string {
		rec, err := e.Traces.CaseForTrace(ctx, id)
		if err != nil || rec == nil {
			t.Fatalf("case: %v", err)
		}
		g := rec.Case.Gold
		return boolStr(rec.Case.Label.Correct) + " " + classStr(rec.Case.Label.FailureClass) + " " +
			string(jsonOf(g.RequiredFields)) + " " + string(jsonOf(g.ForbiddenFields))
	}
	step := func(name string, res ActionResult, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	res, err := e.Labels.AcceptSuggestion(ctx, id, "ann")
	step("accept", res, err)
	accepted := state()
	rec, _ := e.Traces.CaseForTrace(ctx, id)
	if len(rec.Case.Gold.ForbiddenFields) == 0 {
		t.Fatal("the suggestion for trace_9f31c2 forbids no field; the test needs one")
	}
	f := rec.Case.Gold.ForbiddenFields[0]
	// Forbidden to required: two fields in one action.
	res, err = e.Labels.MarkField(ctx, id, "ann", f, true)
	step("mark", res, err)
	if len(res.Changed) != 2 {
		t.Fatalf("marking a forbidden field required changed %v", res.Changed)
	}
	marked := state()
	res, err = e.Labels.Undo(ctx, id, "ann")
	step("undo", res, err)
	if got := state(); got != accepted || res.Action != "undo" || len(res.Changed) != 2 {
		t.Fatalf("after undo %s (changed %v), want %s", got, res.Changed, accepted)
	}
	res, err = e.Labels.Redo(ctx, id, "ann")
	step("redo", res, err)
	if got := state(); got != marked {
		t.Fatalf("after redo %s, want %s", got, marked)
	}
	res, err = e.Labels.Undo(ctx, id, "ann")
	step("undo the redo", res, err)
	if got := state(); got != accepted {
		t.Fatalf("after undoing the redo %s, want %s", got, accepted)
	}
	res, err = e.Labels.Undo(ctx, id, "ann")
	step("undo accept", res, err)
	if rec, _ := e.Traces.CaseForTrace(ctx, id); rec.Case.Label.Correct != nil {
		t.Errorf("undoing the accept left correct %s", boolStr(rec.Case.Label.Correct))
	}
	res, err = e.Labels.ToggleCorrect(ctx, id, "ann")
	step("toggle", res, err)
	if _, err := e.Labels.Redo(ctx, id, "ann"); !errors.Is(err, ErrNothingToRedo) {
		t.Errorf("redo after a new edit: %v, want ErrNothingToRedo", err)
	}
	// Someone else's actions are theirs to undo.
	if _, err := e.Labels.Undo(ctx, id, "bob"); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("undo by another labeler: %v", err)
	}
}

// Actions run from many goroutines at once land as if one after another:
// each computes from the stored value, so an even number of toggles
// returns to the start, also while another connection holds the write lock.
func TestActionsSerializePerCase(t *testing.T) {
	ctx := context.Background()
	for _, held := range []bool{false, true} {
		name := "free"
		if held {
			name = "lock held"
		}
		t.Run(name, func(t *testing.T) {
			e := labelEngine(t)
			id := "trace_e7c3b5"
			var other *sql.DB
			var tx *sql.Tx
			if held {
				var err error
				other, err = sql.Open("sqlite", "file:"+filepath.ToSlash(e.Path())+"?_pragma=busy_timeout(10000)&_txlock=immediate")
				if err != nil {
					t.Fatal(err)
				}
				defer other.Close()
				if tx, err = other.BeginTx(ctx, nil); err != nil {
					t.Fatal(err)
				}
				if _, err := tx.ExecContext(ctx, `UPDATE traces SET queued = queued WHERE trace_id = ?`, id); err != nil {
					t.Fatal(err)
				}
			}
			var wg sync.WaitGroup
			errs := make(chan error, 20)
			for i := 0; i < 10; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := e.Labels.ToggleCorrect(ctx, id, "ann")
					errs <- err
				}()
			}
			if held {
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			rec, err := e.Traces.CaseForTrace(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			// Ten flips from unset: true, false, … false.
			if got := boolStr(rec.Case.Label.Correct); got != "no" {
				t.Errorf("after 10 toggles correct is %s, want no", got)
			}
			evs, _ := e.Traces.Events(ctx, rec.Case.CaseID)
			if len(evs) != 10 {
				t.Errorf("%d events, want 10", len(evs))
			}
		})
	}
}

func TestConfirmLabelChecks(t *testing.T) {
	ctx := context.Background()
	yes, no := true, false
	sem := model.FailureClass("semantic")
	scoreWith := &TraceScore{TraceScore: scoring.TraceScore{SuggestedClass: &sem}}
	for _, tc := range []struct {
		name  string
		l     model.Label
		score *TraceScore
		want  int
	}{
		{"complete", model.Label{Correct: &yes, Grounded: &yes}, scoreWith, 0},
		{"correct unknown", model.Label{Grounded: &yes}, scoreWith, 1},
		{"not grounded, no class, scorer has one", model.Label{Correct: &no, Grounded: &no}, scoreWith, 1},
		{"not grounded, no class, scorer has none", model.Label{Correct: &no, Grounded: &no}, &TraceScore{}, 0},
		{"not grounded with a class", model.Label{Correct: &no, Grounded: &no, FailureClass: &sem}, scoreWith, 0},
		{"nothing set", model.Label{}, nil, 1},
	} {
		if got := LabelProblems(tc.l, tc.score); len(got) != tc.want {
			t.Errorf("%s: %v, want %d problem(s)", tc.name, got, tc.want)
		}
	}
	e := labelEngine(t)
	id := "trace_e7c3b5"
	if _, err := e.Labels.ConfirmLabel(ctx, id, "ann", false); err == nil {
		t.Fatal("confirmed a label with correct unknown")
	} else if missing, ok := IsIncomplete(err); !ok || len(missing) == 0 {
		t.Fatalf("error %v is not an IncompleteError", err)
	}
	if rec, _ := e.Traces.CaseForTrace(ctx, id); rec != nil && rec.Status == model.StatusConfirmed {
		t.Fatal("a refused confirm wrote the status")
	}
	res, err := e.Labels.ConfirmLabel(ctx, id, "ann", true)
	if err != nil || res.Case.Status != model.StatusConfirmed {
		t.Fatalf("forced confirm: %v %+v", err, res.Case)
	}
}

// evaluateOne (one trace, peers from the index) scores and suggests
// exactly as Evaluate does, for every bundled trace, before and after
// colleagues confirmed some traces as grounded.
func TestEvaluateOneMatchesEvaluate(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	ids, err := e.st.TraceIDs(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		for _, id := range ids {
			rs, err := engineOver(e.st, Files{}, e.Config()).evaluate(ctx, []string{id}, nil)
			if err != nil || len(rs) != 1 {
				t.Fatalf("Evaluate %s: %v", id, err)
			}
			_, r, _, err := e.evaluateOne(ctx, id, nil)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := string(jsonOf(rs[0].Score)), string(jsonOf(r.Score)); a != b {
				t.Errorf("%s %s: score differs\nEvaluate    %s\nevaluateOne %s", when, id, a, b)
			}
			if a, b := string(jsonOf(rs[0].Suggested)), string(jsonOf(r.Suggested)); a != b {
				t.Errorf("%s %s: suggestion differs\nEvaluate    %s\nevaluateOne %s", when, id, a, b)
			}
		}
	}
	check("unlabeled")
	groundPeers(t, e) // the index is built now: the actions must keep it current
	// The confirms rescore their peers in the background, which stores a
	// peer's suggested case; compare once that has landed, or the two
	// readers may see the case at different moments.
	if err := e.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	check("after confirms")
	if sg, _ := e.Scores.SuggestGold(ctx, "trace_e7c3b5"); sg == nil || len(sg.Gold.RequiredFields) == 0 {
		t.Errorf("the peer confirmed after the index was built does not reach trace_e7c3b5's suggestion: %+v", sg)
	}
}
