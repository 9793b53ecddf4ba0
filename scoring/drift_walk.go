package scoring

// The schema walk: two resolved schemas compared keyword by keyword, each
// difference classified for the side (input or output) it is on.

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// handledKeywords are compared one by one; any other keyword that differs
// is reported by the side's keyword-changed check.
var handledKeywords = []string{
	"description", "title", "examples", "example", "$comment", "$schema", "$defs", "definitions",
	"type", "enum", "const", "format", "pattern",
	"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains",
	"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains",
	"multipleOf", "uniqueItems", "default", "properties", "required", "additionalProperties",
	"items", "allOf", "anyOf", "oneOf", "deprecated",
	"not", "dependentSchemas", "dependentRequired", "if", "then", "else", "propertyNames", "contains",
}

// assertionKeywords only ever reject values: one that appears narrows the
// schema and one that disappears relaxes it, whatever it held.
var assertionKeywords = []string{"not", "dependentSchemas", "dependentRequired", "if", "then", "else", "propertyNames", "contains"}

var lowerBounds = []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"}
var upperBounds = []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"}

// asSchemaObject turns a schema value into a map: absent and true accept anything.
func asSchemaObject(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case nil:
		return map[string]any{}, true
	case bool:
		if x {
			return map[string]any{}, true
		}
		return nil, false
	case map[string]any:
		return x, true
	}
	return nil, false
}

// schema compares two resolved schemas at path. o or n may be nil (absent).
func (d *schemaDiffer) schema(side Side, path string, ov, nv any) {
	if d.refs != nil {
		var fresh bool
		if path, ov, nv, fresh = d.refs.enter(path, ov, nv); !fresh {
			return
		}
	}
	o, oOK := asSchemaObject(ov)
	n, nOK := asSchemaObject(nv)
	if !oOK || !nOK {
		if !bytes.Equal(canonOf(semanticSchema(ov)), canonOf(semanticSchema(nv))) {
			d.add(sideID(side, "keyword-changed"), path, semanticSchema(ov), semanticSchema(nv), "schema changed from %s to %s", canonOf(ov), canonOf(nv))
		}
		return
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if (len(unionBranches(o, kw)) == 0) != (len(unionBranches(n, kw)) == 0) {
			d.union(side, path, kw, o, n)
			return
		}
	}
	d.prose(side, path, o, n)
	if os, ns := o["$schema"], n["$schema"]; !bytes.Equal(canonOf(os), canonOf(ns)) {
		d.add(sideID(side, "schema-dialect-changed"), jsonPathKey(path, "$schema"), os, ns, "$schema dialect changed")
	}
	if od, nd := o["deprecated"] == true, n["deprecated"] == true; od != nd {
		if nd {
			d.add(sideID(side, "deprecated"), jsonPathKey(path, "deprecated"), o["deprecated"], true, "marked deprecated")
		} else {
			d.add(sideID(side, "deprecated"), jsonPathKey(path, "deprecated"), true, n["deprecated"], "no longer deprecated")
		}
	}
	if d.types(side, path, o, n) {
		return // the children's changes are folded into the type change
	}
	d.enums(side, path, o, n)
	d.formats(side, path, o, n)
	d.bounds(side, path, o, n)
	if side == SideInput {
		if od, nd := o["default"], n["default"]; !bytes.Equal(canonOf(od), canonOf(nd)) {
			_, had := o["default"]
			_, has := n["default"]
			d.add(sideID(side, "default-changed"), jsonPathKey(path, "default"), od, nd, "default %s", change(had, has, od, nd))
		}
	}
	d.properties(side, path, o, n)
	d.additional(side, path, o, n)
	d.items(side, path, o, n)
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		d.composition(side, path, kw, o, n)
	}
	for _, k := range assertionKeywords {
		ov, had := o[k]
		nv, has := n[k]
		switch {
		case had == has:
			if !bytes.Equal(canonOf(semanticSchema(ov)), canonOf(semanticSchema(nv))) {
				d.add(sideID(side, "keyword-changed"), jsonPathKey(path, k), semanticSchema(ov), semanticSchema(nv), "keyword %s changed", k)
			}
		case has:
			d.add(sideID(side, "assertion-added"), jsonPathKey(path, k), nil, semanticSchema(nv), "%s added: values must now also satisfy it", k)
		default:
			d.add(sideID(side, "assertion-removed"), jsonPathKey(path, k), semanticSchema(ov), nil, "%s removed: it no longer rejects values", k)
		}
	}
	for _, k := range unionKeys(o, n) {
		if containsStr(handledKeywords, k) && wellFormed(k, o[k]) && wellFormed(k, n[k]) {
			continue
		}
		ovk, nvk := semanticSchema(o[k]), semanticSchema(n[k])
		if !bytes.Equal(canonOf(ovk), canonOf(nvk)) {
			d.add(sideID(side, "keyword-changed"), jsonPathKey(path, k), ovk, nvk, "keyword %s changed", k)
		}
	}
}

// wellFormed reports whether a keyword the walk compares one by one has
// the shape it reads (absent counts); a malformed one is compared as a
// whole by keyword-changed instead of being skipped.
func wellFormed(k string, v any) bool {
	if v == nil {
		return true
	}
	switch k {
	case "properties":
		_, ok := v.(map[string]any)
		return ok
	case "required", "enum", "allOf", "anyOf", "oneOf":
		_, ok := v.([]any)
		return ok
	}
	return true
}

func change(had, has bool, o, n any) string {
	switch {
	case !had:
		return fmt.Sprintf("added: %s", canonOf(n))
	case !has:
		return fmt.Sprintf("removed (was %s)", canonOf(o))
	}
	return fmt.Sprintf("changed from %s to %s", canonOf(o), canonOf(n))
}

func (d *schemaDiffer) prose(side Side, path string, o, n map[string]any) {
	for _, k := range []string{"description", "title", "$comment"} {
		if ov, nv := o[k], n[k]; !bytes.Equal(canonOf(ov), canonOf(nv)) {
			os, _ := ov.(string)
			ns, _ := nv.(string)
			d.add(sideID(side, "description-changed"), jsonPathKey(path, k), ov, nv, "%s changed%s", k, proseDelta(os, ns))
		}
	}
	for _, k := range []string{"examples", "example"} {
		if ov, nv := o[k], n[k]; !bytes.Equal(canonOf(ov), canonOf(nv)) {
			_, had := o[k]
			_, has := n[k]
			d.add(sideID(side, "example-changed"), jsonPathKey(path, k), ov, nv, "%s %s", k, change(had, has, ov, nv))
		}
	}
}

// types reports a type change and whether it folds the rest of the node:
// when both sides state types and neither covers the other, every
// difference below (properties of an object that is now a string) is a
// consequence of that one change, not a change of its own.
func (d *schemaDiffer) types(side Side, path string, o, n map[string]any) bool {
	ot, nt := typeSet(o), typeSet(n)
	if typesCover(ot, nt) && typesCover(nt, ot) {
		return false
	}
	fold := ot != nil && nt != nil && !typesCover(ot, nt) && !typesCover(nt, ot)
	p := jsonPathKey(path, "type")
	ov, nv := normType(o["type"]), normType(n["type"])
	desc := fmt.Sprintf("type %s → %s", typeText(ot), typeText(nt))
	if fold && hasChildren(o, n) {
		desc += " (the changes inside are folded into this one)"
	}
	switch {
	case side == SideInput && typesCover(nt, ot):
		d.add("input-type-widened", p, ov, nv, "%s: accepts more values", desc)
	case side == SideInput:
		d.add("input-type-changed", p, ov, nv, "%s: old values may no longer validate", desc)
		if typesCover(ot, nt) {
			d.setEffect(effectNarrow)
		}
	case typesCover(ot, nt):
		d.add("output-type-narrowed", p, ov, nv, "%s: results are narrower", desc)
	default:
		d.add("output-type-changed", p, ov, nv, "%s: results may carry a type the agent did not expect", desc)
	}
	return fold
}

// hasChildren reports whether either node holds subschemas.
func hasChildren(o, n map[string]any) bool {
	for _, k := range []string{"properties", "items", "additionalProperties", "allOf", "anyOf", "oneOf"} {
		if o[k] != nil || n[k] != nil {
			return true
		}
	}
	return false
}

func typeText(ts []string) string {
	if ts == nil {
		return "any"
	}
	return strings.Join(ts, "|")
}

func (d *schemaDiffer) enums(side Side, path string, o, n map[string]any) {
	oe, oHas := enumSet(o)
	ne, nHas := enumSet(n)
	if !oHas && !nHas {
		return
	}
	kw := "enum"
	if _, c := n["const"]; c {
		kw = "const"
	} else if _, c := o["const"]; c && !nHas {
		kw = "const"
	}
	p := jsonPathKey(path, kw)
	ov, nv := enumValue(o), enumValue(n)
	narrow, wide := sideID(side, "enum-narrowed"), sideID(side, "enum-widened")
	switch {
	case !oHas:
		d.add(narrow, p, nil, nv, "now restricted to %s", strings.Join(ne, ", "))
	case !nHas:
		d.add(wide, p, ov, nil, "%s removed: any value now allowed", kw)
	default:
		removed, added := setMinus(oe, ne), setMinus(ne, oe)
		if len(removed) > 0 {
			d.add(narrow, p, ov, nv, "%s value(s) removed: %s", kw, strings.Join(removed, ", "))
		}
		if len(added) > 0 {
			d.add(wide, p, ov, nv, "%s value(s) added: %s", kw, strings.Join(added, ", "))
		}
	}
}

// enumValue is the allowed values as one JSON value for old/new.
func enumValue(m map[string]any) any {
	if e, ok := m["enum"]; ok {
		return sortedSet(e)
	}
	if c, ok := m["const"]; ok {
		return []any{c}
	}
	return nil
}

func (d *schemaDiffer) formats(side Side, path string, o, n map[string]any) {
	for _, kw := range []string{"format", "pattern"} {
		ov, had := o[kw]
		nv, has := n[kw]
		if bytes.Equal(canonOf(ov), canonOf(nv)) {
			continue
		}
		p := jsonPathKey(path, kw)
		what := fmt.Sprintf("%s %s", kw, change(had, has, ov, nv))
		switch {
		case !has: // removed
			if side == SideInput {
				d.add("input-constraint-relaxed", p, ov, nil, "%s", what)
			} else {
				d.add("output-constraint-relaxed", p, ov, nil, "%s", what)
			}
		case !had: // added
			if side == SideInput {
				d.add("input-"+kw+"-tightened", p, nil, nv, "%s", what)
			} else {
				d.add("output-constraint-tightened", p, nil, nv, "%s", what)
			}
		case kw == "format":
			if side == SideInput {
				d.add("input-format-tightened", p, ov, nv, "%s", what)
			} else {
				d.add("output-constraint-relaxed", p, ov, nv, "%s: results may no longer match the old format", what)
			}
		default:
			d.add(sideID(side, "pattern-changed"), p, ov, nv, "%s", what)
		}
	}
}

func (d *schemaDiffer) bounds(side Side, path string, o, n map[string]any) {
	tight, relax := "input-bound-tightened", "input-constraint-relaxed"
	if side == SideOutput {
		tight, relax = "output-constraint-tightened", "output-constraint-relaxed"
	}
	cmp := func(kw string, lower bool) {
		ov, had := o[kw]
		nv, has := n[kw]
		if bytes.Equal(canonOf(ov), canonOf(nv)) {
			return
		}
		p := jsonPathKey(path, kw)
		what := fmt.Sprintf("%s %s", kw, change(had, has, ov, nv))
		of, oNum := schemaNumber(ov)
		nf, nNum := schemaNumber(nv)
		switch {
		case !has:
			d.add(relax, p, ov, nil, "%s", what)
		case !had:
			d.add(tight, p, nil, nv, "%s", what)
		case oNum && nNum && ((lower && nf < of) || (!lower && nf > of)):
			d.add(relax, p, ov, nv, "%s", what)
		default: // tightened, or not comparable as numbers: assume the worst
			d.add(tight, p, ov, nv, "%s", what)
		}
	}
	for _, kw := range lowerBounds {
		cmp(kw, true)
	}
	for _, kw := range upperBounds {
		cmp(kw, false)
	}
	if ov, nv := o["multipleOf"], n["multipleOf"]; !bytes.Equal(canonOf(ov), canonOf(nv)) {
		_, had := o["multipleOf"]
		_, has := n["multipleOf"]
		of, _ := schemaNumber(ov)
		nf, _ := schemaNumber(nv)
		p := jsonPathKey(path, "multipleOf")
		what := "multipleOf " + change(had, has, ov, nv)
		// A multiple of the new step is a multiple of the old one only when
		// the old step divides the new one.
		if !has || (had && nf != 0 && of != 0 && isWholeMultiple(of, nf)) {
			d.add(relax, p, ov, nv, "%s", what)
		} else {
			d.add(tight, p, ov, nv, "%s", what)
		}
	}
	ou, _ := o["uniqueItems"].(bool)
	nu, _ := n["uniqueItems"].(bool)
	switch {
	case !ou && nu:
		d.add(tight, jsonPathKey(path, "uniqueItems"), o["uniqueItems"], true, "uniqueItems set: duplicate items now rejected")
	case ou && !nu:
		d.add(relax, jsonPathKey(path, "uniqueItems"), true, n["uniqueItems"], "uniqueItems unset: duplicate items now allowed")
	}
}

// isWholeMultiple reports whether o is a whole multiple of n, so every
// multiple of the old step o is also a multiple of the new step n.
func isWholeMultiple(o, n float64) bool {
	q := o / n
	return q == float64(int64(q))
}

func requiredNames(m map[string]any) map[string]bool {
	out := map[string]bool{}
	if arr, ok := m["required"].([]any); ok {
		for _, e := range arr {
			if s, ok := e.(string); ok {
				out[s] = true
			}
		}
	}
	return out
}

func (d *schemaDiffer) properties(side Side, path string, o, n map[string]any) {
	pc := propertyChanges{op: asObject(o["properties"]), np: asObject(n["properties"]), oreq: requiredNames(o), nreq: requiredNames(n)}
	pc.sortNames()
	propPath := func(name string) string { return jsonPathKey(jsonPathKey(path, "properties"), name) }
	renamed, taken := pc.renames()
	for _, r := range pc.removed {
		if a, ok := renamed[r]; ok {
			d.add(sideID(side, "property-renamed"), propPath(a), r, a, "field renamed: %s → %s", r, a)
			if side == SideInput && pc.nreq[a] && !pc.oreq[r] {
				d.add("input-property-became-required", propPath(a), false, true, "renamed field %s is now required", a)
			}
			continue
		}
		d.removedProperty(side, propPath(r), r, &pc, n["additionalProperties"] == false)
	}
	for _, a := range pc.added {
		if !taken[a] {
			d.addedProperty(side, propPath(a), a, &pc, o["additionalProperties"] == false)
		}
	}
	for _, c := range pc.common {
		d.commonProperty(side, propPath(c), c, &pc)
	}
}

// propertyChanges is the properties of an old and a new object schema
// (named in properties or in required), split into removed, added and
// common names, each sorted.
type propertyChanges struct {
	op, np                 map[string]any
	oreq, nreq             map[string]bool
	removed, added, common []string
}

func (pc *propertyChanges) sortNames() {
	names := func(props map[string]any, req map[string]bool) map[string]bool {
		out := map[string]bool{}
		for k := range props {
			out[k] = true
		}
		for k := range req {
			out[k] = true
		}
		return out
	}
	oNames, nNames := names(pc.op, pc.oreq), names(pc.np, pc.nreq)
	for k := range oNames {
		if nNames[k] {
			pc.common = append(pc.common, k)
		} else {
			pc.removed = append(pc.removed, k)
		}
	}
	for k := range nNames {
		if !oNames[k] {
			pc.added = append(pc.added, k)
		}
	}
	sort.Strings(pc.removed)
	sort.Strings(pc.added)
	sort.Strings(pc.common)
}

// renames pairs removed and added properties: a removed and an added
// property with the same schema, each the only match of the other, is a
// rename. taken marks the added names so paired.
func (pc *propertyChanges) renames() (renamed map[string]string, taken map[string]bool) {
	keyOf := func(props map[string]any, name string) string {
		if s, ok := props[name]; ok {
			return string(canonOf(semanticSchema(s)))
		}
		return "" // only named in required: never a rename candidate
	}
	removedBy, addedBy := map[string][]string{}, map[string][]string{}
	for _, r := range pc.removed {
		if k := keyOf(pc.op, r); k != "" {
			removedBy[k] = append(removedBy[k], r)
		}
	}
	for _, a := range pc.added {
		if k := keyOf(pc.np, a); k != "" {
			addedBy[k] = append(addedBy[k], a)
		}
	}
	renamed, taken = map[string]string{}, map[string]bool{}
	for k, rs := range removedBy {
		if as := addedBy[k]; len(rs) == 1 && len(as) == 1 {
			renamed[rs[0]] = as[0]
			taken[as[0]] = true
		}
	}
	return renamed, taken
}

// removedProperty classifies a property OLD has and NEW lacks; closed
// says NEW rejects unknown properties.
func (d *schemaDiffer) removedProperty(side Side, p, r string, pc *propertyChanges, closed bool) {
	// Removing what OLD already marked deprecated is at most risky:
	// callers were warned.
	deprecated := asObject(pc.op[r])["deprecated"] == true
	note := ""
	if deprecated {
		note = ", deprecated in OLD"
	}
	old := semanticSchema(pc.op[r])
	switch {
	case side == SideInput && closed && !deprecated:
		d.add("input-property-removed-closed", p, old, nil, "field removed: %s (the object is closed: old calls sending it now fail)", r)
	case side == SideInput:
		d.add("input-property-removed", p, old, nil, "field removed: %s (old calls still validate; what they send is ignored%s)", r, note)
		if closed {
			d.setEffect(effectNarrow)
		}
	case pc.oreq[r] && !deprecated:
		d.add("output-required-property-removed", p, old, nil, "required field removed: %s", r)
	default:
		d.add("output-property-removed", p, old, nil, "optional field removed: %s%s", r, note)
	}
}

// addedProperty classifies a property NEW has and OLD lacks; oldClosed
// says OLD rejected unknown properties.
func (d *schemaDiffer) addedProperty(side Side, p, a string, pc *propertyChanges, oldClosed bool) {
	nv := semanticSchema(pc.np[a])
	switch {
	case side == SideOutput:
		d.add("output-property-added", p, nil, nv, "field added: %s", a)
	case pc.nreq[a] && hasDefault(pc.np[a]):
		d.add("input-property-added-required-with-default", p, nil, nv, "new required field added: %s (has a default, but old calls still fail validation)", a)
	case pc.nreq[a]:
		d.add("input-property-added-required", p, nil, nv, "new required field added: %s", a)
	case oldClosed:
		d.add("input-property-added-optional", p, nil, nv, "new optional field added: %s", a)
	default:
		d.add("input-property-added-to-open-object", p, nil, nv, "new optional field added to an open object: %s (old calls may already send it with another meaning)", a)
	}
}

// commonProperty reports a property both sides have: whether it became
// required or optional, then the changes of its schema.
func (d *schemaDiffer) commonProperty(side Side, p, c string, pc *propertyChanges) {
	switch {
	case !pc.oreq[c] && pc.nreq[c]:
		if side == SideInput {
			d.add("input-property-became-required", p, false, true, "field became required: %s", c)
		} else {
			d.add("output-property-became-required", p, false, true, "field became required: %s", c)
		}
	case pc.oreq[c] && !pc.nreq[c]:
		if side == SideInput {
			d.add("input-property-became-optional", p, true, false, "field became optional: %s", c)
		} else {
			d.add("output-property-became-optional", p, true, false, "field became optional: %s (results may lack it)", c)
		}
	}
	_, inOld := pc.op[c]
	_, inNew := pc.np[c]
	if inOld || inNew {
		d.schema(side, p, pc.op[c], pc.np[c])
	}
}

func hasDefault(schema any) bool {
	_, ok := asObject(schema)["default"]
	return ok
}

func (d *schemaDiffer) additional(side Side, path string, o, n map[string]any) {
	ov, nv := o["additionalProperties"], n["additionalProperties"]
	state := func(v any) string {
		switch x := v.(type) {
		case bool:
			if !x {
				return "closed"
			}
		case map[string]any:
			return "schema"
		}
		return "open"
	}
	os, ns := state(ov), state(nv)
	p := jsonPathKey(path, "additionalProperties")
	switch {
	case os == ns && os == "schema":
		d.schema(side, p, ov, nv)
	case os == ns:
	case os == "open" || (os == "schema" && ns == "closed"):
		d.add(sideID(side, "additional-properties-closed"), p, ov, nv, "unknown properties now %s", map[string]string{"closed": "rejected", "schema": "restricted by a schema"}[ns])
	default:
		d.add(sideID(side, "additional-properties-opened"), p, ov, nv, "unknown properties now %s", map[string]string{"open": "allowed", "schema": "allowed when they match a schema"}[ns])
	}
}

func (d *schemaDiffer) items(side Side, path string, o, n map[string]any) {
	ov, nv := o["items"], n["items"]
	if ov == nil && nv == nil {
		return
	}
	if isJSONArray(ov) || isJSONArray(nv) {
		if !bytes.Equal(canonOf(semanticSchema(ov)), canonOf(semanticSchema(nv))) {
			d.add(sideID(side, "keyword-changed"), jsonPathKey(path, "items"), semanticSchema(ov), semanticSchema(nv), "tuple items changed")
		}
		return
	}
	d.schema(side, jsonPathKey(path, "items"), ov, nv)
}

func (d *schemaDiffer) composition(side Side, path, kw string, o, n map[string]any) {
	oa, _ := o[kw].([]any)
	na, _ := n[kw].([]any)
	if len(oa) == 0 && len(na) == 0 {
		return
	}
	p := jsonPathKey(path, kw)
	if len(oa) == len(na) {
		// Pair each old branch with an equal new one, else by position.
		used := make([]bool, len(na))
		pair := make([]int, len(oa))
		for i := range oa {
			pair[i] = -1
			for j := range na {
				if !used[j] && semanticEqual(oa[i], na[j]) {
					pair[i], used[j] = j, true
					break
				}
			}
		}
		for i := range oa {
			if pair[i] >= 0 {
				continue
			}
			for j := range na {
				if !used[j] {
					pair[i], used[j] = j, true
					break
				}
			}
		}
		for i := range oa {
			d.schema(side, jsonPathIndex(p, pair[i]), oa[i], na[pair[i]])
		}
		return
	}
	key := func(arr []any) []string {
		var out []string
		for _, b := range arr {
			out = append(out, string(canonOf(semanticSchema(b))))
		}
		return out
	}
	ok, nk := key(oa), key(na)
	grew, shrank := len(setMinus(ok, nk)) == 0, len(setMinus(nk, ok)) == 0
	// More anyOf/oneOf branches accept more; more allOf conjuncts accept less.
	wider := (grew && kw != "allOf") || (shrank && kw == "allOf")
	narrower := (shrank && kw != "allOf") || (grew && kw == "allOf")
	ov, nv := semanticSchema(o[kw]), semanticSchema(n[kw])
	switch {
	case wider:
		d.add(sideID(side, "composition-widened"), p, ov, nv, "%s went from %d to %d branches: more values accepted", kw, len(oa), len(na))
	case narrower:
		d.add(sideID(side, "composition-narrowed"), p, ov, nv, "%s went from %d to %d branches: fewer values accepted", kw, len(oa), len(na))
	default:
		d.add(sideID(side, "composition-changed"), p, ov, nv, "%s branches changed", kw)
	}
}
