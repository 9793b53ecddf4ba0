package app

import (
	"context"

	"github.com/tracelab-dev/tracelab/store"
)

// scoreChunk is how many traces one committed scoring step covers: a kill
// during scoring loses at most one chunk's work, and the next import or
// workbench start picks up whatever is still unscored.
const scoreChunk = 2000

// ScoreUnscored scores every trace not marked current (no score, a score
// from other content or gold, or one a peer's edit marked stale), plus
// extra (e.g. just re-imported), committing each chunk of scoreChunk
// traces before the next starts. Traces with a person's gold go first and
// mark stale the traces they teach, which the same call then scores. It
// returns how many traces it scored.
func (s ScoreService) ScoreUnscored(ctx context.Context, extra []string, progress Progress) (int, error) {
	e := s.e
	n := 0
	// Two passes at most: the first may mark takers it did not list (the
	// gold of the traces it scored teaches them); the second scores those.
	for pass := 0; pass < 2; pass++ {
		// The marks as they are before the listing: every taker they mark
		// is listed and scored below, on peers read after them.
		marks, err := e.st.PeerMarks(ctx)
		if err != nil {
			return n, err
		}
		todo, err := e.st.MarkedTraces(ctx)
		if err != nil {
			return n, err
		}
		if pass == 0 && len(extra) > 0 {
			first, err := e.withTakers(ctx, extra)
			if err != nil {
				return n, err
			}
			todo = unionStale(first, todo)
		}
		taught := false
		for start := 0; start < len(todo); start += scoreChunk {
			chunk := todo[start:min(start+scoreChunk, len(todo))]
			if _, err := e.scoreTraces(ctx, chunk, true, false, nil, nil); err != nil {
				return n, err
			}
			var human []string
			for _, t := range chunk {
				if t.HumanGold {
					human = append(human, t.TraceID)
				}
			}
			marked, err := e.st.MarkTakersStale(ctx, human)
			if err != nil {
				return n, err
			}
			taught = taught || marked > 0
			n += len(chunk)
			if progress != nil {
				progress(start+len(chunk), len(todo))
			}
		}
		if err := e.st.ClearPeerMarks(ctx, marks); err != nil {
			return n, err
		}
		if !taught {
			break
		}
	}
	return n, nil
}

// unionStale is a then the traces of b not in a.
func unionStale(a, b []store.StaleTrace) []store.StaleTrace {
	if len(a) == 0 {
		return b
	}
	seen := make(map[string]bool, len(a))
	for _, t := range a {
		seen[t.TraceID] = true
	}
	out := append([]store.StaleTrace(nil), a...)
	for _, t := range b {
		if !seen[t.TraceID] {
			out = append(out, t)
		}
	}
	return out
}
