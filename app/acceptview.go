package app

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
)

// AcceptPreview is the gold AcceptSuggestion would leave on the case rec
// with the score sv: the suggestion fills what the gold lacks (all of it
// when the gold is the machine's); the answer is the case's own, else the
// one a person confirmed for the same question, period and scope. The
// workbench shows it before a is pressed, so a never sets what the
// labeler has not seen; it is the same function the action uses.
func AcceptPreview(rec *CaseRecord, sv *TraceScore) model.Gold {
	var r CaseRecord
	if rec != nil {
		r = *rec
	}
	var sugg model.Gold
	if sv != nil && sv.SuggestedGold != nil {
		sugg = *sv.SuggestedGold
	}
	return acceptedGold(&r, sugg)
}

// EditGold sets gold fields as one action, as EditFields does (the gold
// editor's save), and keeps label.correct following the gold answer: when
// the edit moves the answer or its tolerance, correct becomes the answer
// check against the new gold, unless a person had set it against the
// check on the old one (then it is theirs and stays).
func (l LabelService) EditGold(ctx context.Context, traceID, who string, edits ...FieldEdit) (ActionResult, error) {
	e := l.e
	t, err := e.Traces.Trace(ctx, traceID)
	if err != nil {
		return ActionResult{}, err
	}
	answer := t.FinalAnswer()
	return e.act(ctx, traceID, who, false, func(rec *CaseRecord) ([]FieldEdit, error) {
		return followAnswer(answer, rec.Case, edits), nil
	})
}

// followAnswer adds to edits the label.correct that follows the gold
// answer they set (see EditGold); edits that leave the answer alone, or
// set correct themselves, are returned as they are.
func followAnswer(answer string, cur model.Case, edits []FieldEdit) []FieldEdit {
	moves := false
	for _, ed := range edits {
		switch ed.Field {
		case "label.correct":
			return edits
		case "gold.answer", "gold.tolerance":
			moves = true
		}
	}
	if !moves {
		return edits
	}
	// A deep copy: SetField decodes into the value's slices in place,
	// and cur shares them with the case the store compares against.
	var next model.Case
	if b, err := json.Marshal(cur); err != nil || json.Unmarshal(b, &next) != nil {
		return edits
	}
	for _, ed := range edits {
		if next.SetField(ed.Field, ed.Value) != nil {
			return edits // the store refuses the bad value with its error
		}
	}
	was := scoring.CheckAnswer(cur.Gold.Answer, cur.Gold.Tolerance, answer).Correct
	now := scoring.CheckAnswer(next.Gold.Answer, next.Gold.Tolerance, answer).Correct
	have := cur.Label.Correct
	following := have == nil || (was != nil && *was == *have)
	if !following || reflect.DeepEqual(have, now) {
		return edits
	}
	return append(slicesClone(edits), FieldEdit{"label.correct", jsonOf(now)})
}

func slicesClone(eds []FieldEdit) []FieldEdit { return append([]FieldEdit(nil), eds...) }

// CaseEdited says whether a person's edits to a case are in effect: some
// field differs from what it was before the first person's edit since the
// case was last written whole (by an import or the machine). Undoing every
// edit makes it false again, so an unconfirmed case reads "edited" only
// while a person's change stands.
func (l LabelService) CaseEdited(ctx context.Context, caseID string) (bool, error) {
	e := l.e
	evs, err := e.st.Events(ctx, caseID)
	if err != nil {
		return false, err
	}
	return editsStand(evs), nil
}

// editsStand is CaseEdited over a case's events, oldest first.
func editsStand(evs []Event) bool {
	first := map[string]json.RawMessage{} // each field before the edits
	last := map[string]json.RawMessage{}  // and after them
	var order []string
	for _, ev := range evs {
		switch ev.Field {
		case "case":
			// The case written whole: earlier edits are in its past.
			first, last, order = map[string]json.RawMessage{}, map[string]json.RawMessage{}, nil
			continue
		case "rater", "status":
			continue
		}
		if _, ok := first[ev.Field]; !ok {
			first[ev.Field] = ev.Old
			order = append(order, ev.Field)
		}
		last[ev.Field] = ev.New
	}
	for _, f := range order {
		if !sameJSON(first[f], last[f]) {
			return true
		}
	}
	return false
}

// sameJSON compares two JSON values by meaning; absent and null are the
// same value.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	if len(bytes.TrimSpace(a)) > 0 && json.Unmarshal(a, &va) != nil {
		return false
	}
	if len(bytes.TrimSpace(b)) > 0 && json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
