package tui

import (
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
)

// The judge queue: m on the queue keeps the traces where a judge and
// tracelab's suggestion disagree, or the judge is unsure, so a person
// checks those first (app.Engine.JudgeDisagreements).

// judgeQueueMsg carries the traces of the judge queue.
type judgeQueueMsg struct {
	ids []string
	err error
}

func (judgeQueueMsg) owner() screenID { return screenQueue }

// toggleJudgeQueue shows the judge queue, or leaves it.
func (q *queueScreen) toggleJudgeQueue(h host) tea.Cmd {
	if q.judgeIDs(q.filter) {
		f := q.filter
		f.TraceIDs, q.judgeQueue = nil, nil
		return q.setFilter(h, f, "judge queue cleared")
	}
	eng, ctx := q.eng, q.ctx
	return func() tea.Msg {
		ids, err := eng.Judges.Disagreements(ctx)
		return judgeQueueMsg{ids: ids, err: err}
	}
}

func (q *queueScreen) judgeQueueLoaded(h host, msg judgeQueueMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		h.setStatus("judge queue: "+msg.err.Error(), true)
		return nil
	case len(msg.ids) == 0:
		h.setStatus("no trace where a judge disagrees with the scorer or is unsure (tracelab judge labels them)", false)
		return nil
	}
	f := q.filter
	f.TraceIDs, q.judgeQueue = msg.ids, msg.ids
	return q.setFilter(h, f, "queue: the traces where the judge disagrees with the scorer or is unsure (m again clears)")
}

// judgeIDs says the filter's trace list is the judge queue's.
func (q *queueScreen) judgeIDs(f app.Filter) bool {
	return q.judgeQueue != nil && slices.Equal(f.TraceIDs, q.judgeQueue)
}
