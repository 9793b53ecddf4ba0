package scoring

// Schemas whose $refs inline past maxInlined nodes are compared by
// reference instead: a $ref is resolved one level when the walk reaches
// it, and each pair of nodes holding a $ref (old ref, new ref, with their
// siblings) is compared once, wherever else the walk meets it again. A
// contract whose $defs fan out (each definition referring to the next one
// twice: 2^40 copies when inlined) then costs one comparison per
// definition, and a change 40 levels down is found at the definition that
// holds it. Where the walk keeps a keyword whole (not, if, a tuple, rename
// and branch keys), every $ref carries a hash of what it points at, so two
// refs of the same name compare equal only when their targets do.

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sort"
	"strings"
)

// refHashKey is the key under which annotateRefs stores the hash of a
// $ref's target next to the $ref. JSON Schema defines no such keyword;
// the walk drops it before a node is compared or reported.
const refHashKey = "$refHash\x00"

// maxRefSteps bounds the work of one by-reference comparison (annotating
// both documents plus the nodes the walk visits, union trials included).
const maxRefSteps = 400000

// refBudget is shared by the walk of one schema and its scratch walks.
type refBudget struct {
	left int
	cut  bool // the budget ran out: the comparison is incomplete
}

func (b *refBudget) take(n int) bool {
	b.left -= n
	if b.left < 0 {
		b.cut = true
	}
	return !b.cut
}

// refWalk is the by-reference state of one schema comparison.
type refWalk struct {
	oldRoot, newRoot any    // the documents, annotated by annotateRefs
	rootPath         string // where the documents sit in the tool (inputSchema)
	seen             map[string]bool
	budget           *refBudget
}

// scratch is a walk over the same documents with its own memory, for a
// scratch differ whose findings are only counted.
func (w *refWalk) scratch() *refWalk {
	if w == nil {
		return nil
	}
	return &refWalk{oldRoot: w.oldRoot, newRoot: w.newRoot, rootPath: w.rootPath, seen: map[string]bool{}, budget: w.budget}
}

// enter prepares one node pair for comparison: it reports false when the
// pair was compared already (or the budget ran out), and otherwise
// returns both nodes resolved one level, with the path moved to the
// definition the new side (else the old side) refers to, the location a
// reviewer opens.
func (w *refWalk) enter(path string, ov, nv any) (string, any, any, bool) {
	if !w.budget.take(1) {
		return path, nil, nil, false
	}
	oref, nref := localRef(ov), localRef(nv)
	if oref != "" || nref != "" {
		key := string(canonOf(ov)) + "\x00" + string(canonOf(nv))
		if w.seen[key] {
			return path, nil, nil, false
		}
		w.seen[key] = true
		switch {
		case nref != "":
			path = pointerPath(w.rootPath, nref[1:])
		case oref != "":
			path = pointerPath(w.rootPath, oref[1:])
		}
	}
	return path, shallowRef(w.oldRoot, ov, nil), shallowRef(w.newRoot, nv, nil), true
}

// localRef is a node's local $ref ("#/$defs/x"), or "".
func localRef(v any) string {
	m, _ := v.(map[string]any)
	ref, _ := m["$ref"].(string)
	if !strings.HasPrefix(ref, "#") {
		return ""
	}
	return ref
}

// shallowRef resolves a node's own $ref (and the target's, for a chain of
// refs) into one node, as refResolver.schema does for a whole document,
// but leaves the refs of its children for the walk to meet.
func shallowRef(root, v any, stack []string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		if k != "$defs" && k != "definitions" && k != refHashKey {
			out[k] = e
		}
	}
	ref := localRef(m)
	if ref == "" || slices.Contains(stack, ref) || len(stack) >= 64 {
		return unwrapNullable(out)
	}
	target, found := lookupPointer(root, ref[1:])
	if !found {
		return unwrapNullable(out)
	}
	delete(out, "$ref")
	return mergeRef(shallowRef(root, target, append(stack, ref)), out)
}

// refHasher annotates one document: each local $ref gets the hash of its
// target's semantic form, computed once per ref.
type refHasher struct {
	root   any
	memo   map[string]string
	stack  []string
	budget *refBudget
}

// annotateRefs returns a copy of doc in which every local $ref carries
// refHashKey. A ref inside its own expansion (a recursive schema) carries
// none and is compared by name.
func annotateRefs(doc any, budget *refBudget) any {
	h := &refHasher{root: doc, memo: map[string]string{}, budget: budget}
	return h.annotate(doc)
}

// annotate copies a schema node; keys are visited in sorted order so
// that equal documents give equal hashes whatever their key order.
func (h *refHasher) annotate(v any) any {
	m, ok := v.(map[string]any)
	if !ok || !h.budget.take(1) {
		return v
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(m)+1)
	for _, k := range keys {
		out[k] = h.keyword(k, m[k])
	}
	if ref := localRef(m); ref != "" {
		if s := h.hash(ref); s != "" {
			out[refHashKey] = s
		}
	}
	return out
}

// keyword annotates the schemas a keyword holds, by how it holds them.
func (h *refHasher) keyword(k string, e any) any {
	switch {
	case slices.Contains(schemaArrayKeywords, k) || (k == "items" && isJSONArray(e)):
		arr, ok := e.([]any)
		if !ok {
			return e
		}
		cp := make([]any, len(arr))
		for i, s := range arr {
			cp[i] = h.annotate(s)
		}
		return cp
	case slices.Contains(schemaKeywords, k):
		return h.annotate(e)
	case slices.Contains(schemaMapKeywords, k):
		sub, ok := e.(map[string]any)
		if !ok {
			return e
		}
		names := make([]string, 0, len(sub))
		for name := range sub {
			names = append(names, name)
		}
		sort.Strings(names)
		cp := make(map[string]any, len(sub))
		for _, name := range names {
			cp[name] = h.annotate(sub[name])
		}
		return cp
	}
	return e
}

func (h *refHasher) hash(ref string) string {
	if s, ok := h.memo[ref]; ok {
		return s
	}
	if slices.Contains(h.stack, ref) {
		return ""
	}
	target, found := lookupPointer(h.root, ref[1:])
	if !found {
		h.memo[ref] = ""
		return ""
	}
	h.stack = append(h.stack, ref)
	a := h.annotate(target)
	h.stack = h.stack[:len(h.stack)-1]
	sum := sha256.Sum256(canonOf(semanticSchema(a)))
	s := hex.EncodeToString(sum[:12])
	h.memo[ref] = s
	return s
}

// withoutRefHashes copies a value the by-reference walk reports, without
// the hashes annotateRefs added.
func withoutRefHashes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k != refHashKey {
				out[k] = withoutRefHashes(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutRefHashes(e)
		}
		return out
	}
	return v
}
