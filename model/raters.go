package model

import (
	"slices"
	"sort"
)

// RaterKind says what kind of rater gave a label: a person, the scorer's
// own suggestion, or an external judge (an LLM, a script).
type RaterKind string

const (
	RaterHuman   RaterKind = "human"
	RaterMachine RaterKind = "machine"
	RaterJudge   RaterKind = "judge"
)

// MachineRater is the name of the rater that stands for tracelab's own
// suggestion (the scorer's verdict on the trace): always one more rater,
// so agreement says how far the suggestions can be trusted.
const MachineRater = "tracelab"

// JudgePrefix starts the rater name of a judge: "judge:NAME".
const JudgePrefix = "judge:"

// FieldSets are a rater's required and forbidden gold fields, the part
// of the gold that raters are compared on.
type FieldSets struct {
	Required  []string `json:"required_fields"`
	Forbidden []string `json:"forbidden_fields"`
}

// RaterLabel is one rater's label of one case: who, what kind of rater,
// the label, the gold field sets when the rater gave any (nil: not rated),
// the rater's status (suggested, or confirmed by them) and when it was
// last written. It is also the element of a case line's "labels" array
// (export --labels all).
type RaterLabel struct {
	Rater     string     `json:"rater"`
	Kind      RaterKind  `json:"kind"`
	Label     Label      `json:"label"`
	Fields    *FieldSets `json:"fields,omitempty"`
	Status    Status     `json:"status"`
	UpdatedAt string     `json:"updated_at,omitempty"`
	// Rationale is a judge's reason for its label.
	Rationale string `json:"rationale,omitempty"`
}

// Adjudication is the label someone settled a disagreement with: a rater
// picked (Picked names them) or a label written outright, with a note.
type Adjudication struct {
	Label  Label      `json:"label"`
	Fields *FieldSets `json:"fields,omitempty"`
	Picked string     `json:"picked,omitempty"`
	Note   string     `json:"note,omitempty"`
	By     string     `json:"by"`
	At     string     `json:"at"`
}

// Aspects raters are compared on, in the order they are reported.
const (
	AspectCorrect  = "correct"
	AspectGrounded = "grounded"
	AspectClass    = "class"
	AspectFields   = "fields"
)

// Aspects lists the aspects in report order.
var Aspects = []string{AspectCorrect, AspectGrounded, AspectClass, AspectFields}

// ClassRating is the failure class a label gives as a rating: the class,
// "none" when the label names no class but judged groundedness (the
// verdict rule of scoring.DecideVerdict: whoever judged groundedness and
// named no class judged there is none), and ok=false when it rated no class.
func (l Label) ClassRating() (string, bool) {
	switch {
	case l.FailureClass != nil:
		return string(*l.FailureClass), true
	case l.Grounded != nil:
		return "none", true
	}
	return "", false
}

// Rating is a label's value for one aspect as a nominal rating; ok=false
// when the rater did not rate that aspect (a null field, no field sets).
func (r RaterLabel) Rating(aspect string) (string, bool) {
	switch aspect {
	case AspectCorrect:
		return boolRating(r.Label.Correct)
	case AspectGrounded:
		return boolRating(r.Label.Grounded)
	case AspectClass:
		return r.Label.ClassRating()
	}
	return "", false
}

func boolRating(b *bool) (string, bool) {
	if b == nil {
		return "", false
	}
	if *b {
		return "true", true
	}
	return "false", true
}

// Disagreement lists the aspects on which two labels disagree: both rated
// the aspect and gave different values (for fields: different required or
// forbidden sets). An aspect one of them left unrated is no disagreement.
func Disagreement(a, b RaterLabel) []string {
	var out []string
	for _, asp := range []string{AspectCorrect, AspectGrounded, AspectClass} {
		va, oka := a.Rating(asp)
		vb, okb := b.Rating(asp)
		if oka && okb && va != vb {
			out = append(out, asp)
		}
	}
	if a.Fields != nil && b.Fields != nil && !a.Fields.Equal(*b.Fields) {
		out = append(out, AspectFields)
	}
	return out
}

// Equal says both sets hold the same fields, in any order.
func (f FieldSets) Equal(o FieldSets) bool {
	return sameSet(f.Required, o.Required) && sameSet(f.Forbidden, o.Forbidden)
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// Final is a case's final label as FinalLabel decides it.
type Final struct {
	Label  Label
	Fields *FieldSets // the field sets the final label stands on; nil: keep the case's gold
	// Disputed: the people who labeled the case disagree and nobody
	// adjudicated yet; Label is then unset (pending adjudication).
	Disputed bool
	// Aspects the people disagree on (set when Disputed).
	Aspects []string
}

// FinalLabel is the one rule for a case's final label, the label scoring,
// export, report and the queue read (cases.label):
//
//	adjudicated                      → the adjudicated label (and its field sets)
//	no person labeled it             → base, the case's label as it stands (a suite
//	                                   imported with no labeler, the machine's case);
//	                                   judges and the machine never decide it
//	one person labeled it            → that person's label
//	every person agrees              → the common label: each of correct, grounded
//	                                   and class from whoever rated it (they agree
//	                                   where both rated), the first note by rater name
//	people disagree on an aspect     → pending adjudication: an unset label, Disputed
//
// "Agree" is Disagreement finding nothing between any two people.
func FinalLabel(base Label, raters []RaterLabel, adj *Adjudication) Final {
	if adj != nil {
		return Final{Label: adj.Label, Fields: adj.Fields}
	}
	var people []RaterLabel
	for _, r := range raters {
		if r.Kind == RaterHuman {
			people = append(people, r)
		}
	}
	sort.Slice(people, func(i, j int) bool { return people[i].Rater < people[j].Rater })
	switch len(people) {
	case 0:
		return Final{Label: base}
	case 1:
		return Final{Label: people[0].Label, Fields: people[0].Fields}
	}
	seen := map[string]bool{}
	var aspects []string
	for i := range people {
		for j := i + 1; j < len(people); j++ {
			for _, a := range Disagreement(people[i], people[j]) {
				if !seen[a] {
					seen[a] = true
					aspects = append(aspects, a)
				}
			}
		}
	}
	if len(aspects) > 0 {
		sort.Slice(aspects, func(i, j int) bool {
			return slices.Index(Aspects, aspects[i]) < slices.Index(Aspects, aspects[j])
		})
		return Final{Disputed: true, Aspects: aspects}
	}
	var f Final
	for _, p := range people {
		l := p.Label
		if f.Label.Correct == nil {
			f.Label.Correct = l.Correct
		}
		if f.Label.Grounded == nil {
			f.Label.Grounded = l.Grounded
		}
		if f.Label.FailureClass == nil {
			f.Label.FailureClass = l.FailureClass
		}
		if f.Label.Note == "" {
			f.Label.Note = l.Note
		}
		if f.Label.MachineNote == "" {
			f.Label.MachineNote = l.MachineNote
		}
		if f.Fields == nil {
			f.Fields = p.Fields
		}
	}
	return f
}
