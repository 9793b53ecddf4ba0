package scoring

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// JSON Schema keywords whose values are schemas, by how they hold them.
var (
	schemaKeywords = []string{"items", "additionalProperties", "not", "if", "then", "else", "contains",
		"propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema"}
	schemaMapKeywords   = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaArrayKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	// proseKeywords steer the model but never change which values validate.
	proseKeywords = []string{"description", "title", "examples", "example", "$comment"}
)

// decodeSchemaJSON decodes raw with numbers kept exact; nil for empty input.
func decodeSchemaJSON(raw []byte) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// canonOf is the canonical JSON of a decoded value; nil stays nil.
func canonOf(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := model.CanonicalValue(v)
	if err != nil {
		return json.RawMessage(strconv.Quote(fmt.Sprint(v)))
	}
	return b
}

// maxInlined bounds how many schema nodes $ref inlining may produce, so a
// hostile document of refs to refs cannot blow up exponentially.
const maxInlined = 20000

// refResolver inlines local $refs ("#/$defs/x", "#/properties/a") of one
// schema document. Remote refs are kept as written: they are never fetched.
type refResolver struct {
	root   any
	stack  []string // refs being expanded, to cut cycles
	budget int
	cut    bool // a ref was left unexpanded because the budget ran out
}

// resolveRefsCut returns a copy of schema with every resolvable local $ref
// inlined and $defs/definitions dropped; a ref inside its own expansion
// (a recursive schema) stays a $ref. cut says the inlining budget ran out
// and left refs unexpanded: such a schema cannot be compared node by node
// (two sides are cut at different places).
func resolveRefsCut(schema any) (_ any, cut bool) {
	r := &refResolver{root: schema, budget: maxInlined}
	out := r.schema(schema)
	return out, r.cut
}

func (r *refResolver) schema(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v // true, false, or not a schema
	}
	r.budget--
	out := make(map[string]any, len(m))
	for k, e := range m {
		switch {
		case k == "$defs" || k == "definitions":
			continue
		case slices.Contains(schemaArrayKeywords, k) || (k == "items" && isJSONArray(e)):
			if arr, ok := e.([]any); ok {
				cp := make([]any, len(arr))
				for i, s := range arr {
					cp[i] = r.schema(s)
				}
				out[k] = cp
			} else {
				out[k] = e
			}
		case slices.Contains(schemaKeywords, k):
			out[k] = r.schema(e)
		case slices.Contains(schemaMapKeywords, k):
			if sub, ok := e.(map[string]any); ok {
				cp := make(map[string]any, len(sub))
				for name, s := range sub {
					cp[name] = r.schema(s)
				}
				out[k] = cp
			} else {
				out[k] = e
			}
		default:
			out[k] = e
		}
	}
	ref, isRef := m["$ref"].(string)
	if !isRef || !strings.HasPrefix(ref, "#") || slices.Contains(r.stack, ref) {
		return unwrapNullable(out)
	}
	if r.budget <= 0 {
		r.cut = true
		return unwrapNullable(out)
	}
	target, found := lookupPointer(r.root, ref[1:])
	if !found {
		return unwrapNullable(out)
	}
	r.stack = append(r.stack, ref)
	inlined := r.schema(target)
	r.stack = r.stack[:len(r.stack)-1]
	delete(out, "$ref")
	return mergeRef(inlined, out)
}

// unwrapNullable rewrites the common spelling of a nullable value,
// {"oneOf":[X,{"type":"null"}]} (or anyOf, either order), as X with "null"
// added to its type list, so that it compares like {"type":[T,"null"]}.
// Only a node holding nothing but the composition and prose is rewritten,
// and only when X states its type.
func unwrapNullable(m map[string]any) map[string]any {
	for _, kw := range []string{"oneOf", "anyOf"} {
		arr, ok := m[kw].([]any)
		if !ok || len(arr) != 2 {
			continue
		}
		for k := range m {
			if k != kw && !slices.Contains(proseKeywords, k) {
				return m
			}
		}
		for i := range arr {
			null, _ := arr[i].(map[string]any)
			x, _ := arr[1-i].(map[string]any)
			if len(null) != 1 || null["type"] != "null" || x == nil {
				continue
			}
			ts := typeSet(x)
			if ts == nil {
				return m
			}
			out := make(map[string]any, len(x)+len(m))
			for k, v := range x {
				out[k] = v
			}
			for k, v := range m {
				if k != kw {
					out[k] = v // the outer description wins, as in a $ref
				}
			}
			types := []any{"null"}
			for _, t := range ts {
				if t != "null" {
					types = append(types, t)
				}
			}
			out["type"] = types
			return out
		}
	}
	return m
}

func isJSONArray(v any) bool { _, ok := v.([]any); return ok }

// mergeRef applies the siblings of a $ref to the schema it pointed at.
// Prose siblings override the target's; a structural keyword both define is
// kept as a conjunction, as JSON Schema 2020-12 evaluates it.
func mergeRef(target any, siblings map[string]any) any {
	if len(siblings) == 0 {
		return target
	}
	tm, ok := target.(map[string]any)
	if !ok {
		return map[string]any{"allOf": []any{target, siblings}}
	}
	out := make(map[string]any, len(tm)+len(siblings))
	for k, v := range tm {
		out[k] = v
	}
	var conflict map[string]any
	for k, v := range siblings {
		if _, both := tm[k]; both && !slices.Contains(proseKeywords, k) {
			if conflict == nil {
				conflict = map[string]any{}
			}
			conflict[k] = v
			continue
		}
		out[k] = v
	}
	if conflict != nil {
		return map[string]any{"allOf": []any{out, conflict}}
	}
	return out
}

// lookupPointer follows a JSON pointer (URI fragment form) into doc.
func lookupPointer(doc any, ptr string) (any, bool) {
	if p, err := url.PathUnescape(ptr); err == nil {
		ptr = p
	}
	if ptr == "" {
		return doc, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false // a named anchor: not supported, kept as a $ref
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// semanticSchema strips prose from a resolved schema and puts every keyword
// whose order carries no meaning (required, enum, a type list) in sorted
// order, so two schemas that accept the same values compare equal.
func semanticSchema(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		switch {
		case slices.Contains(proseKeywords, k):
			continue
		case k == "additionalProperties" && e == true:
			continue // the same as absent
		case k == "required":
			out[k] = sortedStringSet(e)
		case k == "enum":
			out[k] = sortedSet(e)
		case k == "type":
			out[k] = normType(e)
		case slices.Contains(schemaArrayKeywords, k) || (k == "items" && isJSONArray(e)):
			if arr, ok := e.([]any); ok {
				cp := make([]any, len(arr))
				for i, s := range arr {
					cp[i] = semanticSchema(s)
				}
				out[k] = cp
			} else {
				out[k] = e
			}
		case slices.Contains(schemaKeywords, k):
			out[k] = semanticSchema(e)
		case slices.Contains(schemaMapKeywords, k):
			if sub, ok := e.(map[string]any); ok {
				cp := make(map[string]any, len(sub))
				for name, s := range sub {
					cp[name] = semanticSchema(s)
				}
				out[k] = cp
			} else {
				out[k] = e
			}
		default:
			out[k] = e
		}
	}
	return out
}

func sortedStringSet(v any) any {
	arr, ok := v.([]any)
	if !ok {
		return v
	}
	var ss []string
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return v // malformed: keep as written
		}
		ss = append(ss, s)
	}
	sort.Strings(ss)
	ss = slices.Compact(ss)
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// sortedSet orders values by their canonical JSON and drops duplicates.
func sortedSet(v any) any {
	arr, ok := v.([]any)
	if !ok {
		return v
	}
	type kv struct {
		key string
		val any
	}
	items := make([]kv, 0, len(arr))
	for _, e := range arr {
		items = append(items, kv{string(canonOf(e)), e})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].key < items[j].key })
	out := make([]any, 0, len(items))
	for i, it := range items {
		if i > 0 && it.key == items[i-1].key {
			continue
		}
		out = append(out, it.val)
	}
	return out
}

func normType(v any) any {
	arr, ok := v.([]any)
	if !ok {
		return v
	}
	s := sortedStringSet(arr)
	if sa, ok := s.([]any); ok && len(sa) == 1 {
		return sa[0]
	}
	return s
}

// typeSet is the set of JSON types a schema allows; nil means any.
func typeSet(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		sort.Strings(out)
		return slices.Compact(out)
	case nil:
		return nil
	default: // malformed: compare it as written rather than ignore it
		return []string{string(canonOf(t))}
	}
}

// typesCover reports whether every value of types sub is also a value of
// types sup (integer is a subset of number; nil is every type).
func typesCover(sup, sub []string) bool {
	if sup == nil {
		return true
	}
	if sub == nil {
		return false
	}
	for _, t := range sub {
		if !slices.Contains(sup, t) && !(t == "integer" && slices.Contains(sup, "number")) {
			return false
		}
	}
	return true
}

// enumSet is the set of allowed values (enum, or const as a one-value
// enum) as canonical JSON strings; nil when unrestricted.
func enumSet(m map[string]any) ([]string, bool) {
	var set []string
	has := false
	if c, ok := m["const"]; ok {
		set, has = []string{string(canonOf(c))}, true
		if c == nil {
			set = []string{"null"}
		}
	}
	if arr, ok := m["enum"].([]any); ok {
		var es []string
		for _, e := range arr {
			if e == nil {
				es = append(es, "null")
				continue
			}
			es = append(es, string(canonOf(e)))
		}
		sort.Strings(es)
		es = slices.Compact(es)
		if has {
			var both []string
			for _, e := range es {
				if slices.Contains(set, e) {
					both = append(both, e)
				}
			}
			es = both
		}
		set, has = es, true
	}
	if set == nil && has {
		set = []string{}
	}
	return set, has
}

func setMinus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// schemaNumber reads a JSON number keyword.
func schemaNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	}
	return 0, false
}

// semanticEqual reports whether two resolved schemas accept the same
// values as far as their normalized forms tell.
func semanticEqual(a, b any) bool {
	return bytes.Equal(canonOf(semanticSchema(a)), canonOf(semanticSchema(b)))
}
