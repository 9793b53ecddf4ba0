package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// The full-text search in the workbench: `/` in the queue finds traces
// by their question, id or steps (the engine's index), the queue's header
// says how many hold the search in their steps, and on the trace screen
// n / N jump between the steps that hold it, as ] / [ do between guess
// markers.

// stepCountMsg says how many traces of the queue's filter hold search in
// their question or steps.
type stepCountMsg struct {
	seq    int
	search string
	n      int
	err    error
}

func (stepCountMsg) owner() screenID { return screenQueue }

// loadStepCount counts the traces holding the search in their steps; nil
// when the search has no word to look for.
func (q *queueScreen) loadStepCount() tea.Cmd {
	eng, ctx, f, seq := q.eng, q.ctx, q.filter, q.seq
	if len(app.SearchTerms(f.Search)) == 0 {
		return nil
	}
	return func() tea.Msg {
		n, err := eng.Traces.SearchTraceCount(ctx, f.Search, f)
		return stepCountMsg{seq: seq, search: f.Search, n: n, err: err}
	}
}

func (q *queueScreen) stepCountDone(h host, msg stepCountMsg) {
	if msg.seq != q.seq {
		return
	}
	if msg.err != nil {
		h.setStatus("searching the steps: "+msg.err.Error(), true)
		return
	}
	q.inSteps, q.inStepsFor = msg.n, msg.search
}

// stepCountText is the header's "N in steps" while a search is on.
func (q *queueScreen) stepCountText(sty *themes.Styles) string {
	if q.filter.Search == "" || q.inStepsFor != q.filter.Search {
		return ""
	}
	return sty.Faint.Render("  │  ") + sty.Accent.Render(humanInt(q.inSteps)) + sty.Subtle.Render(" match in their steps")
}

// searchHits keeps the steps of the open trace that hold the queue's
// search (QuestionStep left out: the question is not a step here).
func (ts *traceScreen) searchHits(msg traceMsg) {
	ts.hits, ts.hitsFor, ts.hit = nil, msg.hitsFor, -1
	for _, s := range msg.hits {
		if s >= 0 {
			ts.hits = append(ts.hits, s)
		}
	}
}

// jumpHit moves to the next (dir 1) or previous (dir -1) step holding the
// search, wrapping around, and says which.
func (ts *traceScreen) jumpHit(h host, dir int) {
	if len(ts.hits) == 0 {
		if ts.hitsFor == "" {
			h.setStatus("no search: / in the queue searches the steps, then n / N jump between them here", false)
		} else {
			h.setStatus(fmt.Sprintf("no step of this trace holds %q", model.CleanLine(ts.hitsFor)), false)
		}
		return
	}
	target := -1
	if dir > 0 {
		for i, s := range ts.hits {
			if s > ts.step {
				target = i
				break
			}
		}
		if target < 0 {
			target = 0
		}
	} else {
		for i := len(ts.hits) - 1; i >= 0; i-- {
			if ts.hits[i] < ts.step {
				target = i
				break
			}
		}
		if target < 0 {
			target = len(ts.hits) - 1
		}
	}
	ts.hit, ts.step, ts.detailOff = target, ts.hits[target], 0
	kind := ""
	if ts.t != nil && ts.step < len(ts.t.Steps) {
		kind = " (" + string(ts.t.Steps[ts.step].Kind) + ")"
	}
	h.setStatus(fmt.Sprintf("hit %d/%d: step %d%s holds %q", target+1, len(ts.hits), ts.step, kind, model.CleanLine(ts.hitsFor)), false)
}
