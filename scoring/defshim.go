package scoring

// Stand-ins for ParseDefinition and PredicateEquivalent from the sql branch,
// so the scorer builds before that branch lands. Removed at the merge.

import (
	"errors"
	"regexp"
	"strings"
)

var defRe = regexp.MustCompile(`(?i)^\s*(?:([\w ]+?)\s*(?:=|means|:)\s+)?([a-z_][\w.]*)\s+(not\s+in|in)\s*\(([^)]*)\)`)

func parseDefinition(text string) (string, []Predicate, error) {
	m := defRe.FindStringSubmatch(text)
	if m == nil {
		return "", nil, errors.New("no predicate in the definition text")
	}
	var vals []string
	for _, v := range strings.Split(m[4], ",") {
		vals = append(vals, strings.Trim(strings.TrimSpace(v), `'"`))
	}
	op := strings.ToLower(strings.Join(strings.Fields(m[3]), " "))
	return strings.TrimSpace(m[1]), []Predicate{{Field: strings.ToLower(m[2]), Op: op, Values: vals}}, nil
}

func predicateEquivalent(def, got Predicate) bool {
	if column(strings.ToLower(def.Field)) != column(strings.ToLower(got.Field)) {
		return false
	}
	norm := func(p Predicate) (string, map[string]bool) {
		op := p.Op
		if op == "=" {
			op = "in"
		}
		set := map[string]bool{}
		for _, v := range p.Values {
			set[strings.ToLower(v)] = true
		}
		return op, set
	}
	dop, dset := norm(def)
	gop, gset := norm(got)
	if dop != gop || len(dset) != len(gset) {
		return false
	}
	for v := range dset {
		if !gset[v] {
			return false
		}
	}
	return true
}
