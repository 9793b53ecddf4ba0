package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/tracelab-dev/tracelab/agreement"
	"github.com/tracelab-dev/tracelab/model"
)

// AgreeBy lists what `tracelab agree --by` compares raters on.
var AgreeBy = []string{model.AspectClass, model.AspectCorrect, model.AspectGrounded, model.AspectFields}

// Agreement compares the raters of every rated case the report counts
// (population.go) on one aspect (class,
// correct, grounded or fields) with package agreement: the people among
// themselves, and apart from them each machine rater (judges, tracelab's
// own suggestion) against each person. For class, correct and grounded the
// report also has the trust figure for tracelab's suggestions, counted
// over the people's labels only (a judge agreeing with the machine says
// nothing of whether the machine can be trusted).
func (r RaterService) Agreement(ctx context.Context, by string) (agreement.Report, error) {
	if !slices.Contains(AgreeBy, by) {
		return agreement.Report{}, fmt.Errorf("--by %q is not one of class, correct, grounded, fields", by)
	}
	trs, pop, err := r.e.ratedInPopulation(ctx) // population.go
	if err != nil {
		return agreement.Report{}, err
	}
	rep := AgreementOf(trs, by)
	rep.Population = &pop
	return rep, nil
}

// AgreementOf builds the report of Agreement from a ratings table.
func AgreementOf(trs []TraceRaters, by string) agreement.Report {
	rep := agreement.Report{By: by}
	if by == model.AspectFields {
		req, forb := fieldSetItems(trs)
		r, f := agreement.Sets(nil, req), agreement.Sets(nil, forb)
		r.Field, f.Field = "required", "forbidden"
		rep.Sets = []agreement.SetResult{r, f}
		return rep
	}
	cats := categoriesOf(by)
	all := agreement.Ratings{Categories: cats}
	people := agreement.Ratings{Categories: cats}
	trust := agreement.Ratings{Categories: cats} // people and tracelab
	kinds := map[string]model.RaterKind{}
	for _, tr := range trs {
		it := agreement.Item{ID: itemID(tr), Values: map[string]string{}}
		pit := agreement.Item{ID: it.ID, Values: map[string]string{}}
		tit := agreement.Item{ID: it.ID, Values: map[string]string{}}
		for _, l := range tr.Labels {
			v, ok := l.Rating(by)
			if !ok {
				continue
			}
			kinds[l.Rater] = l.Kind
			it.Values[l.Rater] = v
			if l.Kind == model.RaterHuman {
				pit.Values[l.Rater] = v
			}
			if l.Kind != model.RaterJudge {
				tit.Values[l.Rater] = v
			}
		}
		all.Items = append(all.Items, it)
		people.Items = append(people.Items, pit)
		trust.Items = append(trust.Items, tit)
	}
	// People among themselves on their own: a machine rater in the group
	// figures would lift them with its own consistency.
	res := agreement.Nominal(people)
	rep.Nominal = &res
	// Machine raters (tracelab, judges) against each person, apart.
	rep.Machines = []agreement.Pair{}
	for _, p := range agreement.Nominal(all).Pairs {
		ha, hb := kinds[p.A] == model.RaterHuman, kinds[p.B] == model.RaterHuman
		if ha != hb {
			rep.Machines = append(rep.Machines, p)
		}
	}
	rep.Machine = model.MachineRater
	rep.Trust = agreement.MachineTrust(trust, model.MachineRater)
	return rep
}

// itemID names a rated case by its trace, else its case id.
func itemID(tr TraceRaters) string {
	if tr.TraceID != "" {
		return tr.TraceID
	}
	return tr.CaseID
}

func categoriesOf(by string) []string {
	if by == model.AspectClass {
		cs := make([]string, 0, len(model.Classes)+1)
		for _, c := range model.Classes {
			cs = append(cs, string(c))
		}
		return append(cs, "none")
	}
	return []string{"true", "false"}
}

// fieldSetItems are the raters' required and forbidden field sets, one
// item per case, from the raters that gave field sets.
func fieldSetItems(trs []TraceRaters) (req, forb []agreement.SetItem) {
	for _, tr := range trs {
		r := agreement.SetItem{ID: itemID(tr), Sets: map[string][]string{}}
		f := agreement.SetItem{ID: r.ID, Sets: map[string][]string{}}
		for _, l := range tr.Labels {
			if l.Fields != nil {
				r.Sets[l.Rater], f.Sets[l.Rater] = l.Fields.Required, l.Fields.Forbidden
			}
		}
		req, forb = append(req, r), append(forb, f)
	}
	return req, forb
}
