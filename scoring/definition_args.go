package scoring

import (
	"strings"
)

// Definition match through tool arguments. The seed: "'Resolved to' means
// the predicate in the query or tool arguments is equivalent to the
// definition string in the gold record." A tool argument that lineage maps
// to the predicate's governed column (statuses -> customers.
// subscription_status) states the predicate's values: its value, a string
// or an array, is compared as a set with the definition's IN (or =) list,
// case-insensitively.

// argPredicate is what one call's arguments say about one definition.
type argVerdict int

const (
	argsSilent   argVerdict = iota // no argument maps to every predicate's column
	argsMatch                      // every predicate stated with the same set of values
	argsMismatch                   // some argument states another set
)

// argsDefinition compares a call's arguments with a definition's
// predicates. Only = and IN predicates are compared; a definition with any
// other operator is left to the description (toolEncodes).
func (st *state) argsDefinition(c *call, preds []Predicate) argVerdict {
	if len(preds) == 0 || len(c.args) == 0 {
		return argsSilent
	}
	covered := 0
	for _, p := range preds {
		if p.Op != "in" && p.Op != "=" {
			return argsSilent
		}
		vals, ok := st.argValuesFor(c, p.Field)
		if !ok {
			continue
		}
		covered++
		if !sameFoldSet(vals, p.Values) {
			return argsMismatch
		}
	}
	if covered == len(preds) {
		return argsMatch
	}
	return argsSilent
}

// argValuesFor finds the argument whose lineage names field's column (and
// its table, when field has one) and returns its values as strings.
func (st *state) argValuesFor(c *call, field string) ([]string, bool) {
	f := strings.ToLower(field)
	col, tbl := column(f), table(NormField(f))
	for _, name := range c.argOrder {
		for _, target := range st.lineage[c.tool+"."+name] {
			t := NormField(target)
			if column(t) != col || tbl != "" && table(t) != tbl {
				continue
			}
			if vs, ok := argStrings(c.args[name]); ok {
				return vs, true
			}
		}
	}
	return nil, false
}

// argStrings reads a scalar or an array of scalars; a string may list its
// values with commas ("ACTIVE,PAUSED_BILLING").
func argStrings(v any) ([]string, bool) {
	switch x := v.(type) {
	case string:
		var out []string
		for _, p := range strings.Split(x, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, len(out) > 0
	case float64, bool:
		return []string{scalarString(x)}, true
	case []any:
		var out []string
		for _, e := range x {
			switch e.(type) {
			case string, float64, bool:
				out = append(out, strings.TrimSpace(scalarString(e)))
			default:
				return nil, false
			}
		}
		return out, len(out) > 0
	}
	return nil, false
}

// sameFoldSet: the two lists hold the same values, case and order aside.
func sameFoldSet(a, b []string) bool {
	set := func(xs []string) map[string]bool {
		m := make(map[string]bool, len(xs))
		for _, x := range xs {
			m[strings.ToLower(strings.Trim(strings.TrimSpace(x), `'"`))] = true
		}
		return m
	}
	sa, sb := set(a), set(b)
	if len(sa) != len(sb) {
		return false
	}
	for k := range sa {
		if !sb[k] {
			return false
		}
	}
	return true
}

// callAt is the call whose tool_call is at step, nil when none.
func (st *state) callAt(step int) *call {
	for _, c := range st.calls {
		if c.step == step {
			return c
		}
	}
	return nil
}
