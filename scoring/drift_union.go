package scoring

// Unions that appear or disappear. A schema wrapped in anyOf/oneOf, or
// split into a union of shapes, is compared branch by branch against the
// schema on the other side instead of keyword by keyword against the
// union's empty parent (which made every field of branch 0 look removed).

import "slices"

// effect is how a finding changes the set of values a schema accepts.
type effect uint8

const (
	effectNone   effect = iota // prose, defaults, deprecation: same values
	effectWiden                // accepts more
	effectNarrow               // accepts less
	effectMixed                // accepts some new values and drops some old ones, or unknown
)

// checkEffects gives the effect of the input checks; acceptRelation reads
// every schema as an input. Checks not listed are effectNone.
var checkEffects = map[string]effect{
	"input-property-added-required": effectNarrow, "input-property-added-required-with-default": effectNarrow,
	"input-property-added-optional": effectWiden, "input-property-added-to-open-object": effectNarrow,
	"input-property-became-required": effectNarrow, "input-property-became-optional": effectWiden,
	"input-property-removed": effectWiden, "input-property-removed-closed": effectNarrow,
	"input-property-renamed": effectMixed,
	"input-type-changed":     effectMixed, "input-type-widened": effectWiden,
	"input-enum-narrowed": effectNarrow, "input-enum-widened": effectWiden,
	"input-format-tightened": effectNarrow, "input-pattern-tightened": effectNarrow, "input-pattern-changed": effectMixed,
	"input-bound-tightened": effectNarrow, "input-constraint-relaxed": effectWiden,
	"input-additional-properties-closed": effectNarrow, "input-additional-properties-opened": effectWiden,
	"input-composition-narrowed": effectNarrow, "input-composition-widened": effectWiden, "input-composition-changed": effectMixed,
	"input-assertion-added": effectNarrow, "input-assertion-removed": effectWiden,
	"input-keyword-changed": effectMixed,
}

// maxUnionComparisons bounds the branch comparisons of one tool's diff.
const maxUnionComparisons = 4096

// acceptRel is how the values NEW accepts compare with those OLD accepts.
type acceptRel uint8

const (
	relEqual acceptRel = iota
	relWider
	relNarrower
	relMixed
)

// acceptRelation compares two resolved schemas by the effects of the
// findings of an input-side diff between them; it also returns how many
// findings changed values, to pick the closest branch.
func (d *schemaDiffer) acceptRelation(o, n any) (acceptRel, int) {
	// Unions nested in union branches compare each level again; a budget
	// per tool keeps a hostile listing of deep unions linear.
	if d.unionBudget == nil {
		d.unionBudget = &refBudget{left: maxUnionComparisons}
	}
	if !d.unionBudget.take(1) {
		return relMixed, 1
	}
	s := &schemaDiffer{unionBudget: d.unionBudget, refs: d.refs.scratch()}
	s.schema(SideInput, "", o, n)
	wide, narrow, count := false, false, 0
	for _, e := range s.effects {
		switch e {
		case effectWiden:
			wide = true
		case effectNarrow:
			narrow = true
		case effectMixed:
			wide, narrow = true, true
		}
		if e != effectNone {
			count++
		}
	}
	switch {
	case wide && narrow:
		return relMixed, count
	case wide:
		return relWider, count
	case narrow:
		return relNarrower, count
	}
	return relEqual, count
}

// unionBranches is the branches of a well-formed, non-empty anyOf/oneOf.
func unionBranches(m map[string]any, kw string) []any {
	arr, _ := m[kw].([]any)
	return arr
}

func without(m map[string]any, kw string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != kw {
			out[k] = v
		}
	}
	return out
}

// mergeBranch is parent and branch as one schema (what a value matching
// that branch must satisfy); false when they set the same keyword in ways
// that do not merge simply. The parent's prose wins, as for a $ref.
func mergeBranch(parent map[string]any, b any) (map[string]any, bool) {
	branch, ok := asSchemaObject(b)
	if !ok {
		return nil, false
	}
	out := make(map[string]any, len(parent)+len(branch))
	for k, v := range parent {
		out[k] = v
	}
	for k, v := range branch {
		pv, both := out[k]
		switch {
		case !both:
			out[k] = v
		case slices.Contains(proseKeywords, k) || semanticEqual(pv, v):
		case k == "required":
			req := append(append([]any{}, asArray(pv)...), asArray(v)...)
			out[k] = sortedStringSet(req)
		case k == "type":
			// Both constrain the type: a value must have one of both.
			pt, bt := typeSet(parent), typeSet(branch)
			var both []any
			for _, t := range bt {
				if typesCover(pt, []string{t}) {
					both = append(both, t)
				}
			}
			if len(both) == 0 {
				return nil, false
			}
			out[k] = normType(both)
		case k == "properties":
			pp, bp := asObject(pv), asObject(v)
			if pp == nil || bp == nil {
				return nil, false
			}
			props := make(map[string]any, len(pp)+len(bp))
			for name, s := range pp {
				props[name] = s
			}
			for name, s := range bp {
				if ps, dup := props[name]; dup && !semanticEqual(ps, s) {
					return nil, false
				}
				props[name] = s
			}
			out[k] = props
		default:
			return nil, false
		}
	}
	return out, true
}

func asArray(v any) []any {
	a, _ := v.([]any)
	return a
}

// union compares o and n when exactly one of them holds a kw union. The
// other side, the single schema S, is compared with the branch closest to
// it (each branch merged with its parent); the union as a whole then
// widens or narrows by what its other branches add or lose:
//   - one branch, or a union equal to S: a pure wrap, only the closest
//     branch's own differences are reported;
//   - every branch within S: the union is a restriction of S (an anyOf of
//     required sets appearing narrows; disappearing relaxes), and the
//     parents are compared;
//   - otherwise some branch reaches outside S: appearing widens (values
//     of new shapes), disappearing narrows (those shapes are gone).
func (d *schemaDiffer) union(side Side, path, kw string, o, n map[string]any) {
	appear := len(unionBranches(o, kw)) == 0
	single, holder := o, n
	if !appear {
		single, holder = n, o
	}
	parent, branches := without(holder, kw), unionBranches(holder, kw)
	p := jsonPathKey(path, kw)

	best, bestCount, bestRank := -1, 0, 0
	var merged []map[string]any
	allIn, anyEqual := true, false
	for i, b := range branches {
		m, ok := mergeBranch(parent, b)
		merged = append(merged, m)
		if !ok {
			allIn = false
			continue
		}
		var rel acceptRel
		var count int
		if appear {
			rel, count = d.acceptRelation(single, m)
		} else {
			rel, count = d.acceptRelation(m, single)
		}
		// in: every value of the branch is a value of S; covers: the reverse.
		in := rel == relEqual || (appear && rel == relNarrower) || (!appear && rel == relWider)
		covers := rel == relEqual || (appear && rel == relWider) || (!appear && rel == relNarrower)
		allIn = allIn && in
		anyEqual = anyEqual || rel == relEqual
		rank := 2
		switch {
		case rel == relEqual:
			rank = 0
		case covers:
			rank = 1
		}
		if best < 0 || rank < bestRank || (rank == bestRank && count < bestCount) {
			best, bestCount, bestRank = i, count, rank
		}
	}
	compareBest := func() {
		if appear {
			d.schema(side, path, single, merged[best])
		} else {
			d.schema(side, path, merged[best], single)
		}
	}
	compareParents := func() {
		if appear {
			d.schema(side, path, single, parent)
		} else {
			d.schema(side, path, parent, single)
		}
	}
	ov, nv := semanticSchema(o[kw]), semanticSchema(n[kw])
	widened := func(why string) {
		d.add(sideID(side, "composition-widened"), p, ov, nv, "%s %s: more values accepted", kw, why)
	}
	narrowed := func(why string) {
		d.add(sideID(side, "composition-narrowed"), p, ov, nv, "%s %s: fewer values accepted", kw, why)
	}
	switch {
	case best < 0: // no branch merges with its parent: judge the union as a constraint
		compareParents()
		if appear {
			narrowed("added")
		} else {
			widened("removed")
		}
	case len(branches) == 1 || (allIn && anyEqual):
		compareBest() // a pure wrap or an equivalent split
	case allIn && d.typeSplit(single, merged, appear):
		// {type:[string,integer]} as anyOf [{type:string},{type:integer}]:
		// the same values, only the prose can differ.
		if appear {
			d.prose(side, path, single, parent)
		} else {
			d.prose(side, path, parent, single)
		}
	case allIn && appear:
		compareParents()
		narrowed("added: values must now also match one of its branches")
	case allIn:
		compareParents()
		widened("removed: values no longer have to match one of its branches")
	case appear:
		compareBest()
		widened("added with branches beyond the old schema")
	default:
		compareBest()
		narrowed("removed: values of its other branches are no longer accepted")
	}
}

// typeSplit reports whether the branches are S restricted to one type
// each and together cover every type of S: a union equal to S.
func (d *schemaDiffer) typeSplit(single map[string]any, merged []map[string]any, appear bool) bool {
	st := typeSet(single)
	if st == nil {
		return false
	}
	var types []string
	for _, m := range merged {
		mt := typeSet(m)
		if m == nil || mt == nil {
			return false
		}
		restricted := without(single, "type")
		restricted["type"] = m["type"]
		var rel acceptRel
		if appear {
			rel, _ = d.acceptRelation(restricted, m)
		} else {
			rel, _ = d.acceptRelation(m, restricted)
		}
		if rel != relEqual {
			return false
		}
		types = append(types, mt...)
	}
	return typesCover(types, st)
}
