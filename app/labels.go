package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"slices"
	"strings"
	"sync"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// The labeling actions of the workbench. Each is one action in the event
// log (one group, however many fields it changes), computed from the case
// as stored inside the write transaction rather than from what a screen
// showed, and the actions on one case run one at a time: keys pressed
// faster than the saves land in order, and a toggle pressed twice returns
// to where it started.

// DefaultLabeler is the name written with edits when none is given: $USER,
// else the operating system's name for the user, else "unknown".
func DefaultLabeler() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "unknown"
}

// ErrNothingToRedo: the labeler has undone nothing since their last edit.
var ErrNothingToRedo = store.ErrNothingToRedo

// ActionResult is a case after a labeling action.
type ActionResult struct {
	Case *CaseRecord
	// Score is the trace's score after the action when the action moved
	// the gold (the trace was rescored); nil otherwise.
	Score *TraceScore
	// Group is the action's id in the event log (0: nothing changed) and
	// Changed the fields it changed, in order.
	Group   int64
	Action  string // edit | undo | redo
	Changed []string
	// PeersStale says the action changed what its question's other
	// traces are suggested: the engine rescores them in the background
	// (WaitIdle returns when it is done).
	PeersStale bool
}

// Warm readies the database connection a labeler's first keys will use
// (n in queue q, the label keys), so that they cost what the later ones
// do: a new team store connection reads its catalogs, plans its
// statements and compiles the edit's triggers on first use; see
// store.WarmLabeling. The workbench calls it while it opens; nothing is
// written. An error only means the first keys are slower.
func (l LabelService) Warm(ctx context.Context, q Query) error { return l.e.st.WarmLabeling(ctx, q) }

// caseLocks hands out one mutex per trace, so that actions on one case
// are serialized in this process (the write transaction serializes them
// across processes) while different cases proceed in parallel.
type caseLocks struct {
	mu sync.Mutex
	m  map[string]*caseLock
}

type caseLock struct {
	sync.Mutex
	users int
}

func (l *caseLocks) lock(id string) (unlock func()) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*caseLock{}
	}
	c := l.m[id]
	if c == nil {
		c = &caseLock{}
		l.m[id] = c
	}
	c.users++
	l.mu.Unlock()
	c.Lock()
	return func() {
		c.Unlock()
		l.mu.Lock()
		if c.users--; c.users == 0 {
			delete(l.m, id)
		}
		l.mu.Unlock()
	}
}

// act runs one action under the case's lock and, when it changed gold,
// rescores the trace so the score and the queue follow the gold.
func (e *Engine) act(ctx context.Context, traceID, who string, humanGold bool, fn func(*CaseRecord) ([]FieldEdit, error)) (ActionResult, error) {
	defer e.fg.enter()()
	unlock := e.cases.lock(traceID)
	defer unlock()
	return e.actLocked(ctx, traceID, who, humanGold, nil, fn)
}

// actLocked runs an action with the case locked by the caller; peers
// holds the peers of the trace's question if the caller read them.
func (e *Engine) actLocked(ctx context.Context, traceID, who string, humanGold bool, peers *peerMemo,
	fn func(*CaseRecord) ([]FieldEdit, error)) (ActionResult, error) {
	g, err := e.st.EditGroup(ctx, traceID, who, humanGold, func(rec *CaseRecord) ([]store.FieldChange, error) {
		eds, err := fn(rec)
		if err == nil {
			err = checkGoldEdits(rec.Case, eds)
		}
		cs := make([]store.FieldChange, len(eds))
		for i, ed := range eds {
			cs[i] = store.FieldChange{Field: ed.Field, Value: ed.Value}
		}
		return cs, err
	})
	if err != nil {
		res := ActionResult{}
		res.Case, _ = e.st.CaseForTrace(ctx, traceID)
		return res, err
	}
	return e.afterAction(ctx, traceID, g, humanGold, peers)
}

// afterAction reloads the case (unless the action returned it) and, when
// the action moved gold (or rescore says so), rescores the trace.
func (e *Engine) afterAction(ctx context.Context, traceID string, g store.Group, rescore bool, peers *peerMemo) (ActionResult, error) {
	res := ActionResult{Group: g.ID, Action: g.Action, PeersStale: g.Peers > 0}
	if res.PeersStale {
		// Asked for even when rescoring this trace fails below: the marks
		// are committed with the action.
		defer e.rescoreInBackground(traceID)
	}
	for _, ev := range g.Events {
		res.Changed = append(res.Changed, ev.Field)
		rescore = rescore || strings.HasPrefix(ev.Field, "gold.")
	}
	// The case as the action's transaction left it, where the store says
	// (an edit): reading it again was one more round trip for every key.
	var err error
	if res.Case = g.Case; res.Case == nil {
		if res.Case, err = e.st.CaseForTrace(ctx, traceID); err != nil {
			return res, err
		}
	}
	if !rescore {
		return res, nil
	}
	// The trace alone: the traces of its question it teaches were marked
	// stale by the action's transaction and are rescored in the background
	// (see below), so the labeler waits for one trace, not its question.
	if _, err := e.scoreOne(ctx, traceID); err != nil {
		return res, fmt.Errorf("rescoring %s: %w", traceID, err)
	}
	res.Score, err = e.scoreOf(ctx, traceID, peers)
	return res, err
}

func jsonOf(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// ToggleCorrect flips label.correct as stored (unset becomes true).
func (l LabelService) ToggleCorrect(ctx context.Context, traceID, who string) (ActionResult, error) {
	return l.toggle(ctx, traceID, who, "label.correct", func(lb model.Label) *bool { return lb.Correct })
}

// ToggleGrounded flips label.grounded as stored (unset becomes true).
func (l LabelService) ToggleGrounded(ctx context.Context, traceID, who string) (ActionResult, error) {
	return l.toggle(ctx, traceID, who, "label.grounded", func(lb model.Label) *bool { return lb.Grounded })
}

// toggle flips one yes/no field of the label as stored (unset becomes true).
func (l LabelService) toggle(ctx context.Context, traceID, who, field string, of func(model.Label) *bool) (ActionResult, error) {
	return l.e.act(ctx, traceID, who, false, func(rec *CaseRecord) ([]FieldEdit, error) {
		return []FieldEdit{{field, jsonOf(flip(of(rec.Case.Label)))}}, nil
	})
}

func flip(b *bool) bool { return b == nil || !*b }

// SetClass sets the failure class (nil: none).
func (l LabelService) SetClass(ctx context.Context, traceID, who string, c *model.FailureClass) (ActionResult, error) {
	return l.e.act(ctx, traceID, who, false, func(*CaseRecord) ([]FieldEdit, error) {
		return []FieldEdit{{"label.failure_class", jsonOf(c)}}, nil
	})
}

// MarkField makes a field required (or forbidden) in the gold, taking it
// out of the other list; marking a field that already has that status
// clears it. Computed from the stored gold.
func (l LabelService) MarkField(ctx context.Context, traceID, who, field string, required bool) (ActionResult, error) {
	return l.e.act(ctx, traceID, who, false, func(rec *CaseRecord) ([]FieldEdit, error) {
		return markField(rec.Case.Gold, field, required), nil
	})
}

func markField(g model.Gold, f string, req bool) []FieldEdit {
	in, other := g.RequiredFields, g.ForbiddenFields
	inName, otherName := "gold.required_fields", "gold.forbidden_fields"
	if !req {
		in, other, inName, otherName = other, in, otherName, inName
	}
	without := func(s []string) []string {
		out := []string{}
		for _, v := range s {
			if v != f {
				out = append(out, v)
			}
		}
		return out
	}
	if slices.Contains(in, f) {
		return []FieldEdit{{inName, jsonOf(without(in))}}
	}
	var edits []FieldEdit
	if slices.Contains(other, f) {
		edits = append(edits, FieldEdit{otherName, jsonOf(without(other))})
	}
	next := append(slices.Clone(in), f)
	slices.Sort(next)
	return append(edits, FieldEdit{inName, jsonOf(slices.Compact(next))})
}

// EditFields sets several fields as one action (the gold editor's save).
func (l LabelService) EditFields(ctx context.Context, traceID, who string, edits ...FieldEdit) (ActionResult, error) {
	return l.e.act(ctx, traceID, who, false, func(*CaseRecord) ([]FieldEdit, error) { return edits, nil })
}

// suggestedGoldFields are the gold fields a suggestion can fill.
var suggestedGoldFields = []string{"gold.required_fields", "gold.forbidden_fields", "gold.definition",
	"gold.window", "gold.freshness_bound_hours", "gold.policy_scope", "gold.answer", "gold.tolerance"}

// AcceptSuggestion lands the machine's label in one action: it takes the
// suggested gold (filling only what a person left empty when the gold is
// theirs), scores the trace on that gold, and sets correct, grounded and
// the class from that score, so the label agrees with the gold it was
// accepted with. The scorer's evidence goes to label.machine_note.
func (l LabelService) AcceptSuggestion(ctx context.Context, traceID, who string) (ActionResult, error) {
	e := l.e
	defer e.fg.enter()()
	unlock := e.cases.lock(traceID)
	defer unlock()
	// The peers are read once: the screen's suggestion after the action
	// comes from the same peers (the action changed only this trace, which
	// is not its own peer).
	peers := &peerMemo{}
	t, _, sugg, err := e.evaluateOne(ctx, traceID, peers)
	var sc *scoring.Scorer
	if err == nil {
		sc, err = scoring.NewScorer(e.Config())
	}
	if err != nil {
		return ActionResult{}, err
	}
	return e.actLocked(ctx, traceID, who, true, peers, func(rec *CaseRecord) ([]FieldEdit, error) {
		gold := acceptedGold(rec, sugg.Gold)
		score := sc.Score(t, &gold)
		var out []FieldEdit
		cur := rec.Case
		next := cur
		next.Gold = gold
		for _, f := range suggestedGoldFields {
			nv, _ := next.Field(f)
			out = append(out, FieldEdit{f, nv})
		}
		lab := scoring.SuggestLabel(score)
		if lab.Correct != nil {
			out = append(out, FieldEdit{"label.correct", jsonOf(*lab.Correct)})
		}
		if lab.Grounded != nil || lab.FailureClass != nil {
			out = append(out, FieldEdit{"label.failure_class", jsonOf(lab.FailureClass)})
		}
		if lab.Grounded != nil {
			out = append(out, FieldEdit{"label.grounded", jsonOf(*lab.Grounded)})
		}
		out = append(out, FieldEdit{"label.machine_note", jsonOf(lab.MachineNote)})
		return out, nil
	})
}

// acceptedGold is the gold a case has after accepting a suggestion: the
// machine's gold as suggested, or for a person's gold, theirs with only
// the fields they left empty filled from the suggestion.
func acceptedGold(rec *CaseRecord, sugg model.Gold) model.Gold {
	g := rec.Case.Gold
	human := rec.GoldOrigin == "human"
	if !human || len(g.RequiredFields)+len(g.ForbiddenFields) == 0 {
		g.RequiredFields, g.ForbiddenFields = sugg.RequiredFields, sugg.ForbiddenFields
	}
	if !human || g.Definition == "" {
		g.Definition = sugg.Definition
	}
	if !human || g.Window == nil {
		g.Window = sugg.Window
	}
	if !human || g.FreshnessBoundHours == nil {
		g.FreshnessBoundHours = sugg.FreshnessBoundHours
	}
	if !human || g.PolicyScope == "" {
		g.PolicyScope = sugg.PolicyScope
	}
	if (len(g.Answer) == 0 || string(g.Answer) == "null") && len(sugg.Answer) > 0 {
		// The answer a person confirmed for the same question, period
		// and scope (scoring.SuggestGold); one the case has stays.
		g.Answer, g.Tolerance = sugg.Answer, sugg.Tolerance
	}
	return g
}

// IncompleteError is a confirm refused because the label is not finished;
// Missing says what, in words for the labeler.
type IncompleteError struct{ Missing []string }

func (e *IncompleteError) Error() string { return "label incomplete: " + strings.Join(e.Missing, "; ") }

// LabelProblems lists what a label lacks before it can be confirmed:
// correct unknown, or not grounded with no class while the scorer names
// one (its suggestion is given).
func LabelProblems(l model.Label, score *TraceScore) []string {
	var out []string
	if l.Correct == nil {
		out = append(out, "correct is not set")
	}
	if l.Grounded != nil && !*l.Grounded && l.FailureClass == nil && score != nil && score.SuggestedClass != nil {
		out = append(out, fmt.Sprintf("not grounded but no failure class (the scorer suggests %s)", *score.SuggestedClass))
	}
	return out
}

// Confirm marks a trace's case confirmed, after checking its label as
// stored: with problems (see LabelProblems) and force unset, nothing is
// written and the error is an *IncompleteError.
func (l LabelService) ConfirmLabel(ctx context.Context, traceID, who string, force bool) (ActionResult, error) {
	var score *TraceScore
	if !force {
		raw, err := l.e.st.Score(ctx, traceID)
		if err != nil {
			return ActionResult{}, err
		}
		if len(raw) > 0 {
			if score, err = DecodeScore(raw); err != nil {
				return ActionResult{}, err
			}
		}
	}
	reviewed := ""
	res, err := l.e.act(ctx, traceID, who, false, func(rec *CaseRecord) ([]FieldEdit, error) {
		if p := LabelProblems(rec.Case.Label, score); len(p) > 0 && !force {
			return nil, &IncompleteError{Missing: p}
		}
		if rec.Status == model.StatusConfirmed {
			reviewed = rec.Review // confirmed again: the person has looked
		}
		return []FieldEdit{{"status", jsonOf(model.StatusConfirmed)}}, nil
	})
	if err == nil && reviewed != "" {
		err = l.e.st.ClearReview(ctx, traceID)
	}
	return res, err
}

// Undo undoes who's last action on a trace's case, every field it
// changed (ErrNothingToUndo when there is none).
func (l LabelService) Undo(ctx context.Context, traceID, who string) (ActionResult, error) {
	return l.e.revert(ctx, traceID, who, l.e.st.UndoGroup)
}

// Redo redoes who's last undone action (ErrNothingToRedo when they
// undid nothing since their last edit).
func (l LabelService) Redo(ctx context.Context, traceID, who string) (ActionResult, error) {
	return l.e.revert(ctx, traceID, who, l.e.st.RedoGroup)
}

func (e *Engine) revert(ctx context.Context, traceID, who string, fn func(context.Context, string, string) (store.Group, error)) (ActionResult, error) {
	defer e.fg.enter()()
	unlock := e.cases.lock(traceID)
	defer unlock()
	g, err := fn(ctx, traceID, who)
	if err != nil {
		return ActionResult{}, err
	}
	return e.afterAction(ctx, traceID, g, false, nil)
}

// IsIncomplete reports whether err is a confirm refused for an unfinished
// label, and what it lacks.
func IsIncomplete(err error) ([]string, bool) {
	var ie *IncompleteError
	if errors.As(err, &ie) {
		return ie.Missing, true
	}
	return nil, false
}

// peerMemo keeps the peers of one trace's question once read, so the
// steps of one action read them once (nil: read them each time).
type peerMemo struct {
	read  bool
	peers []scoring.Peer
}

// peers returns the peers of t's question (through the question's
// teachers, never a scan), without t itself.
func (e *Engine) peers(ctx context.Context, t *model.Trace, memo *peerMemo) ([]scoring.Peer, error) {
	if memo != nil && memo.read {
		return memo.peers, nil
	}
	book := peerBook{}
	if err := book.load(ctx, e.st, []*model.Trace{t}); err != nil {
		return nil, err
	}
	var out []scoring.Peer
	for _, peer := range book[store.QuestionKey(t.Question)] {
		if peer.TraceID != t.TraceID {
			out = append(out, peer)
		}
	}
	if memo != nil {
		memo.read, memo.peers = true, out
	}
	return out, nil
}

// evaluateOne is Evaluate for one trace, with its peers from the index:
// scored against its human gold, or else against the gold suggested for
// it. The suggestion is also made for human gold, for the labeler to
// compare.
func (e *Engine) evaluateOne(ctx context.Context, traceID string, memo *peerMemo) (*model.Trace, Result, *scoring.GoldSuggestion, error) {
	var r Result
	t, err := e.st.Trace(ctx, traceID)
	if err != nil {
		return nil, r, nil, err
	}
	if r.Case, err = e.st.CaseForTrace(ctx, traceID); err != nil {
		return nil, r, nil, err
	}
	cfg := e.Config()
	sc, err := e.scorer()
	if err != nil {
		return nil, r, nil, err
	}
	var gold *model.Gold
	if r.Case != nil && r.Case.GoldOrigin == "human" {
		g := r.Case.Case.Gold
		gold, r.HumanGold = &g, true
	}
	r.Score = sc.Score(t, gold)
	peers, err := e.peers(ctx, t, memo)
	if err != nil {
		return nil, r, nil, err
	}
	sugg := sc.SuggestGold(t, r.Score, peers)
	if !r.HumanGold {
		g := sugg.Gold
		r.Score, r.Suggested = sc.Score(t, &g), &sugg
	}
	r.Score = withCaseID(r.Score, r.Case)
	if o, ok := cfg.Policy.(*CommandOracle); ok && o.Err() != nil {
		return t, r, &sugg, o.Err()
	}
	return t, r, &sugg, nil
}
