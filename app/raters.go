package app

import (
	"context"
	"fmt"
	"sort"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
)

// Labels per labeler: every person, judge and the machine is a rater of a
// case; the case's final label follows model.FinalLabel (the store keeps
// it settled on every write). These are the engine operations the
// adjudication screens, `tracelab agree` and the reports call.

// RaterLabel is one rater's label of a case (model.RaterLabel).
type RaterLabel = model.RaterLabel

// TraceRaters is what the trace screen shows side by side: each rater's
// label with who and when, people and judges sorted by name and tracelab's
// own suggestion last; the adjudication if any; and the final label as
// the rule decides it (Final.Disputed with the aspects while the people
// disagree and nobody adjudicated).
type TraceRaters struct {
	TraceID      string
	CaseID       string // "" while the trace has no case
	Labels       []RaterLabel
	Adjudication *model.Adjudication
	Final        model.Final
}

// Rater returns the label of one rater, nil when they gave none.
func (tr TraceRaters) Rater(name string) *RaterLabel {
	for i := range tr.Labels {
		if tr.Labels[i].Rater == name {
			return &tr.Labels[i]
		}
	}
	return nil
}

// machineLabel is tracelab's suggestion as a rater: the scorer's correct,
// grounded and class from the stored score (no field sets: the machine's
// gold is a suggestion, not a rating).
func machineLabel(r store.MachineRating) RaterLabel {
	return RaterLabel{Rater: model.MachineRater, Kind: model.RaterMachine, Status: model.StatusSuggested,
		Label: model.Label{Correct: r.Correct, Grounded: r.Grounded, FailureClass: r.SuggestedClass}}
}

// Of returns the raters of one trace (ErrNotFound for no such trace).
func (r RaterService) Of(ctx context.Context, traceID string) (TraceRaters, error) {
	e := r.e
	cr, err := e.st.RatersOfTrace(ctx, traceID)
	if err != nil {
		return TraceRaters{}, err
	}
	var base model.Label
	human := map[string]bool{}
	if cr.CaseID != "" {
		rec, err := e.st.Case(ctx, cr.CaseID)
		if err != nil {
			return TraceRaters{}, err
		}
		base = rec.Case.Label
		human[traceID] = rec.GoldOrigin == store.OriginHuman
	}
	ratings, err := e.machineOpinions(ctx, []string{traceID}, human) // machine_opinion.go
	if err != nil {
		return TraceRaters{}, err
	}
	return traceRaters(cr, base, ratings), nil
}

// traceRaters completes a case's raters: the final label by the rule
// (base is the case's label, which stands while no person labeled it) and
// tracelab's suggestion from the stored score, when there is one.
func traceRaters(cr store.CaseRaters, base model.Label, ratings map[string]store.MachineRating) TraceRaters {
	tr := TraceRaters{TraceID: cr.TraceID, CaseID: cr.CaseID, Labels: cr.Labels, Adjudication: cr.Adjudication}
	tr.Final = model.FinalLabel(base, cr.Labels, cr.Adjudication)
	if r, ok := ratings[cr.TraceID]; ok && cr.TraceID != "" {
		tr.Labels = append(tr.Labels, machineLabel(r))
	}
	return tr
}

// AdjudicateRequest settles a case: Pick names the rater whose label (and
// field sets, when they gave some) becomes final, or Label is written as
// the final label outright; Note says why.
type AdjudicateRequest struct {
	Pick  string
	Label *model.Label
	Note  string
}

// Adjudicate settles the case of a trace as one action by who, in the
// event log (field "adjudication", plus the gold's field sets when the
// picked rater gave other ones), undone like any edit. The adjudicated
// label is final whatever the raters say later.
func (rs RaterService) Adjudicate(ctx context.Context, traceID, who string, req AdjudicateRequest) (ActionResult, error) {
	e := rs.e
	if (req.Pick == "") == (req.Label == nil) {
		return ActionResult{}, fmt.Errorf("adjudicate %s: pick a rater or give a label (one of the two)", traceID)
	}
	var adj model.Adjudication
	if req.Pick != "" {
		tr, err := e.Raters.Of(ctx, traceID)
		if err != nil {
			return ActionResult{}, err
		}
		r := tr.Rater(req.Pick)
		if r == nil {
			return ActionResult{}, fmt.Errorf("adjudicate %s: %q did not label it (raters: %s)", traceID, req.Pick, raterNames(tr.Labels))
		}
		adj = model.Adjudication{Label: r.Label, Fields: r.Fields, Picked: r.Rater}
	} else {
		adj = model.Adjudication{Label: *req.Label}
	}
	adj.Note, adj.By, adj.At = req.Note, who, e.st.Now()
	if adj.Note != "" {
		adj.Label.Note = adj.Note
	}
	return e.act(ctx, traceID, who, false, func(rec *CaseRecord) ([]FieldEdit, error) {
		edits := []FieldEdit{{store.FieldAdjudication, jsonOf(adj)}}
		if f := adj.Fields; f != nil {
			edits = append(edits, FieldEdit{"gold.required_fields", jsonOf(f.Required)},
				FieldEdit{"gold.forbidden_fields", jsonOf(f.Forbidden)})
		}
		return edits, nil
	})
}

func raterNames(ls []RaterLabel) string {
	out := ""
	for i, l := range ls {
		if i > 0 {
			out += ", "
		}
		out += l.Rater
	}
	if out == "" {
		return "none"
	}
	return out
}

// RatedCases returns every case some rater labeled (or someone
// adjudicated), sorted by case id, each with tracelab's suggestion as one
// more rater: the ratings table agreement is computed over.
func (rs RaterService) RatedCases(ctx context.Context) ([]TraceRaters, error) {
	e := rs.e
	crs, err := e.st.RatedCases(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, cr := range crs {
		if cr.TraceID != "" {
			ids = append(ids, cr.TraceID)
		}
	}
	recs, err := e.st.Cases(ctx, true)
	if err != nil {
		return nil, err
	}
	base := make(map[string]model.Label, len(recs))
	human := map[string]bool{}
	for _, r := range recs {
		base[r.Case.CaseID] = r.Case.Label
		if r.TraceID != "" && r.GoldOrigin == store.OriginHuman {
			human[r.TraceID] = true
		}
	}
	ratings, err := e.machineOpinions(ctx, ids, human) // machine_opinion.go
	if err != nil {
		return nil, err
	}
	out := make([]TraceRaters, 0, len(crs))
	for _, cr := range crs {
		out = append(out, traceRaters(cr, base[cr.CaseID], ratings))
	}
	return out, nil
}

// Disagreement is one case whose people disagree, not adjudicated yet.
type Disagreement struct {
	TraceID string
	CaseID  string
	Aspects []string // of model.Aspects: what they disagree on
	Raters  []string // the people who labeled it
}

// Disagreements lists the cases awaiting adjudication, by case id. The
// queue shows the same traces with Filter{Disputed: true}.
func (r RaterService) Disagreements(ctx context.Context) ([]Disagreement, error) {
	trs, err := r.e.Raters.RatedCases(ctx)
	if err != nil {
		return nil, err
	}
	var out []Disagreement
	for _, tr := range trs {
		if !tr.Final.Disputed {
			continue
		}
		d := Disagreement{TraceID: tr.TraceID, CaseID: tr.CaseID, Aspects: tr.Final.Aspects}
		for _, l := range tr.Labels {
			if l.Kind == model.RaterHuman {
				d.Raters = append(d.Raters, l.Rater)
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// LabelerProgress is how far one rater got: cases they labeled (set any of
// correct, grounded, class), of those confirmed by them, and the open
// disagreements they are part of.
type LabelerProgress struct {
	Rater     string          `json:"rater"`
	Kind      model.RaterKind `json:"kind"`
	Labeled   int             `json:"labeled"`
	Confirmed int             `json:"confirmed"`
	Disputed  int             `json:"disagreements_open"`
}

// Progress reports every rater's progress, people and judges sorted by
// name, tracelab last.
func (r RaterService) Progress(ctx context.Context) ([]LabelerProgress, error) {
	trs, err := r.e.Raters.RatedCases(ctx)
	if err != nil {
		return nil, err
	}
	return progressOf(trs), nil
}

func progressOf(trs []TraceRaters) []LabelerProgress {
	by := map[string]*LabelerProgress{}
	for _, tr := range trs {
		for _, l := range tr.Labels {
			p := by[l.Rater]
			if p == nil {
				p = &LabelerProgress{Rater: l.Rater, Kind: l.Kind}
				by[l.Rater] = p
			}
			if l.Label.Unset() {
				continue
			}
			p.Labeled++
			if l.Status == model.StatusConfirmed {
				p.Confirmed++
			}
			if tr.Final.Disputed && l.Kind == model.RaterHuman {
				p.Disputed++
			}
		}
	}
	out := make([]LabelerProgress, 0, len(by))
	for _, p := range by {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		mi, mj := out[i].Kind == model.RaterMachine, out[j].Kind == model.RaterMachine
		if mi != mj {
			return mj
		}
		return out[i].Rater < out[j].Rater
	})
	return out
}

// PutRaterLabel stores one rater's label of a trace beside the others (a
// judge's verdict, say) and settles the final label. A person's label is
// written by the labeling actions instead, so it can be undone.
func (r RaterService) PutRaterLabel(ctx context.Context, traceID string, rl RaterLabel) error {
	if rl.Rater == "" || rl.Rater == model.MachineRater {
		return fmt.Errorf("rater name %q is reserved or empty", rl.Rater)
	}
	unlock := r.e.cases.lock(traceID)
	defer unlock()
	return r.e.st.PutRaterLabel(ctx, traceID, rl)
}

// LabelFor is the label who edits on this case: their own when they
// labeled it, else the final label as it stands (unset while disputed).
// It is the label the labeling actions start from (see the store's
// viewFor), so a screen that shows it shows what c, g and 1-5 will change.
func (tr TraceRaters) LabelFor(who string) model.Label {
	if r := tr.Rater(who); r != nil && r.Kind == model.RaterHuman {
		return r.Label
	}
	return tr.Final.Label
}
