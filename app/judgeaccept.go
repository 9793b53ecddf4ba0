package app

import (
	"context"
	"fmt"

	"github.com/tracelab-dev/tracelab/model"
)

// The human check of a judge: the workbench shows the judge's label
// beside tracelab's suggestion, one key takes it as the person's own, and
// the queue can show first the traces where the judge and the scorer
// disagree or the judge is unsure.

// FirstJudge is the label of the first judge (by rater name) that rated
// the trace, nil when no judge did.
func (tr TraceRaters) FirstJudge() *RaterLabel {
	for i := range tr.Labels {
		if tr.Labels[i].Kind == model.RaterJudge {
			return &tr.Labels[i]
		}
	}
	return nil
}

// JudgeSource is the note a label accepted from a judge carries: which
// judge, model and prompt it came from, and the judge's reason.
func JudgeSource(j RaterLabel) string {
	src := "from " + j.Rater
	if j.Model != "" {
		src += fmt.Sprintf(" (%s, prompt %.12s)", j.Model, j.PromptSHA256)
	}
	if j.Rationale != "" {
		src += ": " + j.Rationale
	}
	return src
}

// Accept makes a judge's label (rater judge:NAME, or the first judge
// when judge is "") who's own: correct, grounded and the class as the
// judge gave them, the judge as the source in the label's machine note.
// One undoable action. A judge that gave no label has nothing to accept.
func (js JudgeService) Accept(ctx context.Context, traceID, who, judge string) (ActionResult, error) {
	tr, err := js.e.Raters.Of(ctx, traceID)
	if err != nil {
		return ActionResult{}, err
	}
	j := tr.FirstJudge()
	if judge != "" {
		j = tr.Rater(JudgeRater(judge))
	}
	switch {
	case j == nil:
		return ActionResult{}, fmt.Errorf("no judge labeled trace %s (tracelab judge)", traceID)
	case j.Label.Correct == nil && j.Label.Grounded == nil && j.Label.FailureClass == nil:
		return ActionResult{}, fmt.Errorf("%s gave no label to accept: %s", j.Rater, j.Rationale)
	}
	l := j.Label
	return js.e.act(ctx, traceID, who, false, func(*CaseRecord) ([]FieldEdit, error) {
		var out []FieldEdit
		if l.Correct != nil {
			out = append(out, FieldEdit{"label.correct", jsonOf(*l.Correct)})
		}
		if l.Grounded != nil || l.FailureClass != nil {
			out = append(out, FieldEdit{"label.failure_class", jsonOf(l.FailureClass)})
		}
		if l.Grounded != nil {
			out = append(out, FieldEdit{"label.grounded", jsonOf(*l.Grounded)})
		}
		return append(out, FieldEdit{"label.machine_note", jsonOf(JudgeSource(*j))}), nil
	})
}

// JudgeUnsure says a judge's label leaves correct or grounded open (its
// "no label, because …" included).
func JudgeUnsure(j RaterLabel) bool {
	return j.Label.Correct == nil || j.Label.Grounded == nil
}

// Disagreements lists the traces a judge labeled where it disagrees
// with tracelab's suggestion (on correct, grounded or class) or is unsure,
// by trace id: the queue a person checks first.
func (js JudgeService) Disagreements(ctx context.Context) ([]string, error) {
	trs, err := js.e.Raters.RatedCases(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, tr := range trs {
		j := tr.FirstJudge()
		if j == nil || tr.TraceID == "" {
			continue
		}
		m := tr.Rater(model.MachineRater)
		if JudgeUnsure(*j) || m != nil && len(model.Disagreement(*j, *m)) > 0 {
			out = append(out, tr.TraceID)
		}
	}
	return out, nil
}

// QueueDisagreements makes the judge queue (JudgeDisagreements) the
// labeling queue, replacing the previous one, and returns its traces.
func (j JudgeService) QueueDisagreements(ctx context.Context) ([]string, error) {
	ids, err := j.e.Judges.Disagreements(ctx)
	if err != nil {
		return nil, err
	}
	return ids, j.e.st.SetQueue(ctx, ids)
}
