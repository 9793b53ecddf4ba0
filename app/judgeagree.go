package app

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/tracelab-dev/tracelab/agreement"
	"github.com/tracelab-dev/tracelab/model"
)

// Calibration: a judge against people on the cases both labeled, the
// figures `agree --judge` reports and `check --min-judge-kappa` gates on.
// The people's label of a case is its final label by model.FinalLabel
// (one person's, the common one, the adjudicated one); a case the people
// dispute and nobody adjudicated has none yet and is left out.

// PeopleRater names the people's label in the calibration's figures.
const PeopleRater = "people"

// JudgeCalibration is one judge against people.
type JudgeCalibration struct {
	Judge string `json:"judge"` // judge:NAME
	// Models and Prompts are the models and prompt hashes its labels name
	// (empty for a command judge).
	Models  []string `json:"models,omitempty"`
	Prompts []string `json:"prompt_sha256,omitempty"`
	// Cases is how many cases both the judge and people labeled.
	Cases   int           `json:"cases"`
	Aspects []JudgeAspect `json:"aspects"`
	// Classes is the failure class one class at a time: the judge and the
	// people agree on "this class or not" (Cohen's kappa over two values).
	Classes       []ClassAgreement    `json:"classes"`
	Disagreements []JudgeDisagreement `json:"disagreements"`
}

// JudgeAspect is the agreement on one aspect: class, correct or grounded.
type JudgeAspect struct {
	Aspect     string         `json:"aspect"`
	Categories []string       `json:"categories"`
	Pair       agreement.Pair `json:"pair"` // A is the judge, B the people
}

// ClassAgreement is the agreement on one failure class against the rest.
type ClassAgreement struct {
	Class     string         `json:"class"`
	People    int            `json:"people"` // cases the people put in it
	Judge     int            `json:"judge"`  // cases the judge put in it
	N         int            `json:"n"`
	Agreement agreement.Stat `json:"agreement"`
	Kappa     agreement.Stat `json:"kappa"`
}

// JudgeDisagreement is one case and aspect where the judge and the people
// differ, with the judge's reason.
type JudgeDisagreement struct {
	ID        string `json:"id"` // the trace, else the case
	Aspect    string `json:"aspect"`
	Judge     string `json:"judge"`
	People    string `json:"people"`
	Rationale string `json:"rationale,omitempty"`
}

// calItem is one case: the judge's label and the people's.
type calItem struct {
	id     string
	judge  model.RaterLabel
	people model.Label
}

// JudgeRater is the rater name of a judge given by name or as judge:NAME.
func JudgeRater(name string) string {
	if strings.HasPrefix(name, model.JudgePrefix) {
		return name
	}
	return model.JudgePrefix + name
}

// Agreement calibrates one judge (NAME or judge:NAME) against people
// over the database's rated cases.
func (js JudgeService) Agreement(ctx context.Context, name string) (JudgeCalibration, error) {
	trs, err := js.e.Raters.RatedCases(ctx)
	if err != nil {
		return JudgeCalibration{}, err
	}
	rater := JudgeRater(name)
	var items []calItem
	seen := false
	for _, tr := range trs {
		j := tr.Rater(rater)
		if j == nil {
			continue
		}
		seen = true
		if p, ok := peopleLabel(tr.Labels, tr.Final); ok {
			items = append(items, calItem{id: itemID(tr), judge: *j, people: p})
		}
	}
	if !seen {
		return JudgeCalibration{}, fmt.Errorf("--judge %s: no case has a label of %s (tracelab judge stores them; agree --progress lists the raters)", name, rater)
	}
	return calibrate(rater, items), nil
}

// peopleLabel is the people's label of a case: its final label when a
// person labeled it (or someone adjudicated) and it is not disputed.
func peopleLabel(labels []model.RaterLabel, fin model.Final) (model.Label, bool) {
	if fin.Disputed {
		return model.Label{}, false
	}
	for _, l := range labels {
		if l.Kind == model.RaterHuman {
			return fin.Label, true
		}
	}
	return model.Label{}, false
}

// SuiteJudgeCalibrations calibrates every judge whose labels a suite
// carries (export --labels all) against the suite's people.
func SuiteJudgeCalibrations(cases []model.Case) []JudgeCalibration {
	byJudge := map[string][]calItem{}
	var judges []string
	for _, c := range cases {
		fin := model.FinalLabel(c.Label, c.Labels, c.Adjudication)
		p, ok := peopleLabel(c.Labels, fin)
		if !ok && c.Adjudication != nil {
			p, ok = fin.Label, true
		}
		for _, l := range c.Labels {
			if l.Kind != model.RaterJudge {
				continue
			}
			if _, known := byJudge[l.Rater]; !known {
				judges = append(judges, l.Rater)
				byJudge[l.Rater] = []calItem{}
			}
			if ok {
				byJudge[l.Rater] = append(byJudge[l.Rater], calItem{id: c.CaseID, judge: l, people: p})
			}
		}
	}
	sort.Strings(judges)
	out := make([]JudgeCalibration, 0, len(judges))
	for _, j := range judges {
		out = append(out, calibrate(j, byJudge[j]))
	}
	return out
}

// calibrate computes a judge's figures over its items.
func calibrate(rater string, items []calItem) JudgeCalibration {
	cal := JudgeCalibration{Judge: rater, Aspects: []JudgeAspect{}, Classes: []ClassAgreement{}, Disagreements: []JudgeDisagreement{}}
	models, prompts := map[string]bool{}, map[string]bool{}
	people := model.RaterLabel{Rater: PeopleRater, Kind: model.RaterHuman}
	for _, it := range items {
		if it.judge.Model != "" {
			models[it.judge.Model] = true
		}
		if it.judge.PromptSHA256 != "" {
			prompts[it.judge.PromptSHA256] = true
		}
		people.Label = it.people
		both := false
		for _, asp := range []string{model.AspectClass, model.AspectCorrect, model.AspectGrounded} {
			vj, okj := it.judge.Rating(asp)
			vp, okp := people.Rating(asp)
			if okj && okp {
				both = true
				if vj != vp {
					cal.Disagreements = append(cal.Disagreements, JudgeDisagreement{ID: it.id, Aspect: asp, Judge: vj, People: vp,
						Rationale: it.judge.Rationale})
				}
			}
		}
		if both {
			cal.Cases++
		}
	}
	cal.Models, cal.Prompts = sortedSet(models), sortedSet(prompts)
	for _, asp := range []string{model.AspectClass, model.AspectCorrect, model.AspectGrounded} {
		r := agreement.Ratings{Raters: []string{rater, PeopleRater}, Categories: categoriesOf(asp)}
		for _, it := range items {
			people.Label = it.people
			vj, _ := it.judge.Rating(asp)
			vp, _ := people.Rating(asp)
			r.Items = append(r.Items, agreement.Item{ID: it.id, Values: map[string]string{rater: vj, PeopleRater: vp}})
		}
		res := agreement.Nominal(r)
		cal.Aspects = append(cal.Aspects, JudgeAspect{Aspect: asp, Categories: res.Categories, Pair: res.Pairs[0]})
	}
	cal.Classes = classAgreements(rater, items)
	return cal
}

// classAgreements is the class aspect one class at a time, over the
// cases both rated the class.
func classAgreements(rater string, items []calItem) []ClassAgreement {
	var out []ClassAgreement
	for _, cat := range categoriesOf(model.AspectClass) {
		ca := ClassAgreement{Class: cat}
		r := agreement.Ratings{Raters: []string{rater, PeopleRater}, Categories: []string{"yes", "no"}}
		for _, it := range items {
			vj, okj := it.judge.Label.ClassRating()
			vp, okp := it.people.ClassRating()
			if !okj || !okp {
				continue
			}
			if vj == cat {
				ca.Judge++
			}
			if vp == cat {
				ca.People++
			}
			r.Items = append(r.Items, agreement.Item{ID: it.id, Values: map[string]string{rater: yesNo(vj == cat), PeopleRater: yesNo(vp == cat)}})
		}
		p := agreement.Nominal(r).Pairs[0]
		ca.N, ca.Agreement, ca.Kappa = p.N, p.Agreement, p.Kappa
		out = append(out, ca)
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ShortClasses are the classes whose kappa falls below min: those either
// side used (a class nobody used says nothing), plus "all" when the
// kappa over every class does. A class whose kappa is undefined while
// used (both sides used it on every case) does not fall short.
func (c JudgeCalibration) ShortClasses(min float64) []string {
	var short []string
	for _, a := range c.Aspects {
		if a.Aspect == model.AspectClass && (a.Pair.N == 0 || a.Pair.Kappa.Defined && a.Pair.Kappa.Value < min) {
			short = append(short, "all classes")
		}
	}
	for _, ca := range c.Classes {
		if ca.People+ca.Judge > 0 && ca.Kappa.Defined && ca.Kappa.Value < min {
			short = append(short, ca.Class)
		}
	}
	return short
}
