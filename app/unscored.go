package app

import (
	"context"
	"slices"
)

// scoreChunk is how many traces one committed scoring step covers: a kill
// during scoring loses at most one chunk's work, and the next import or
// workbench start picks up whatever is still unscored.
const scoreChunk = 2000

// ScoreUnscored scores every trace that has no score, plus extra (traces
// whose score is stale, e.g. just re-imported), committing each chunk of
// scoreChunk traces before the next starts. It returns how many traces it
// scored.
func (e *Engine) ScoreUnscored(ctx context.Context, extra []string, progress Progress) (int, error) {
	ids, err := e.st.UnscoredTraceIDs(ctx)
	if err != nil {
		return 0, err
	}
	ids = union(extra, ids)
	for start := 0; start < len(ids); start += scoreChunk {
		chunk := ids[start:min(start+scoreChunk, len(ids))]
		if _, err := e.Rescore(ctx, chunk, nil); err != nil {
			return start, err
		}
		if progress != nil {
			progress(start+len(chunk), len(ids))
		}
	}
	return len(ids), nil
}

// union is a then the elements of b not in a.
func union(a, b []string) []string {
	if len(a) == 0 {
		return b
	}
	seen := make(map[string]bool, len(a))
	out := slices.Clone(a)
	for _, x := range a {
		seen[x] = true
	}
	for _, x := range b {
		if !seen[x] {
			out = append(out, x)
		}
	}
	return out
}
