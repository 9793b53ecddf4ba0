package scoring

// Finding paths are computed on the normalized form (local $refs inlined,
// nullable unions unwrapped, union branches merged with their parent), but
// a reviewer opens the listing as written. writtenPath maps a normalized
// path back to a location of the tool as written: through the $ref a
// segment was inlined from, into the union branch that holds it.

import (
	"net/url"
	"strings"
)

func appendSeg(at string, s findingPathSeg) string {
	if s.isIndex {
		return jsonPathIndex(at, s.index)
	}
	return jsonPathKey(at, s.key)
}

// writtenPath returns path as a location of prefer (the tool as written),
// else of other, else the deepest prefix found in prefer followed by the
// rest of path.
func writtenPath(path string, prefer, other map[string]any) string {
	segs, ok := parseFindingPath(path)
	if !ok || len(segs) == 0 {
		return path
	}
	best, bestN := "", -1
	for _, doc := range []map[string]any{prefer, other} {
		if doc == nil {
			continue
		}
		w := &pathWalker{budget: 4096}
		var p string
		var n int
		if s := segs[0]; !s.isIndex && (s.key == "inputSchema" || s.key == "outputSchema") {
			root, has := doc[s.key]
			if !has {
				continue
			}
			w.root, w.rootPath = root, s.key
			p, n = w.walk(root, s.key, segs[1:], 0)
			n++
		} else {
			p, n = w.walk(doc, "", segs, 0)
		}
		if n == len(segs) {
			return p
		}
		if bestN < 0 {
			best, bestN = p, n // the preferred document's partial match
		}
	}
	if bestN < 0 {
		return path
	}
	for _, s := range segs[bestN:] {
		best = appendSeg(best, s)
	}
	return best
}

type pathWalker struct {
	root     any    // the schema document $refs point into
	rootPath string // where root sits in the tool
	budget   int    // steps left, so hostile ref graphs stay cheap
}

// walk follows segs from node (at path at) and returns the longest
// location it reached and how many segments that consumed. A segment the
// node lacks is looked up through its $ref and then in its union branches.
func (w *pathWalker) walk(node any, at string, segs []findingPathSeg, refs int) (string, int) {
	if len(segs) == 0 {
		return at, 0
	}
	w.budget--
	if w.budget < 0 {
		return at, 0
	}
	best, bestN := at, 0
	try := func(p string, n int) bool {
		if n > bestN {
			best, bestN = p, n
		}
		return bestN == len(segs)
	}
	s := segs[0]
	m, isMap := node.(map[string]any)
	if s.isIndex {
		if arr, ok := node.([]any); ok && s.index >= 0 && s.index < len(arr) {
			p, n := w.walk(arr[s.index], appendSeg(at, s), segs[1:], refs)
			if try(p, n+1) {
				return best, bestN
			}
		}
	} else if isMap {
		if v, ok := m[s.key]; ok {
			p, n := w.walk(v, appendSeg(at, s), segs[1:], refs)
			if try(p, n+1) {
				return best, bestN
			}
		}
	}
	if !isMap {
		return best, bestN
	}
	if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#") && w.root != nil && refs < 16 {
		if target, found := lookupPointer(w.root, ref[1:]); found {
			p, n := w.walk(target, pointerPath(w.rootPath, ref[1:]), segs, refs+1)
			if try(p, n) {
				return best, bestN
			}
		}
	}
	// In a union, a location only one branch holds is that branch's; one
	// several branches hold (the type of a nullable union) is the union's.
	for _, kw := range schemaArrayKeywords {
		arr, _ := m[kw].([]any)
		full, fullPath := 0, ""
		for i, b := range arr {
			p, n := w.walk(b, jsonPathIndex(jsonPathKey(at, kw), i), segs, refs)
			if n == len(segs) {
				full++
				fullPath = p
			} else {
				try(p, n)
			}
		}
		switch {
		case full == 1:
			return fullPath, len(segs)
		case full > 1:
			return jsonPathKey(at, kw), len(segs)
		}
	}
	return best, bestN
}

// pointerPath is the finding path of a local JSON pointer under rootPath.
func pointerPath(rootPath, ptr string) string {
	if p, err := url.PathUnescape(ptr); err == nil {
		ptr = p
	}
	out := rootPath
	if ptr == "" || ptr == "/" {
		return out
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		out = jsonPathKey(out, tok)
	}
	return out
}
