package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// Live arrivals: another process (tracelab serve, an import) may write the
// database while the workbench is open. The queue asks the engine for a
// cheap change mark every Options.WatchStore and, when it moved, reads its
// rows and counts again, keeping the selected trace selected.

type (
	// storeTickMsg: time to look at the change mark.
	storeTickMsg struct{}
	// storeMarkMsg is the mark the engine read.
	storeMarkMsg struct {
		mark [3]int64
		err  error
	}
)

func (storeTickMsg) owner() screenID { return screenQueue }
func (storeMarkMsg) owner() screenID { return screenQueue }

// watchStoreAfter schedules the next look (none when watching is off).
func (q *queueScreen) watchStoreAfter() tea.Cmd {
	if q.watch <= 0 {
		return nil
	}
	return tea.Tick(q.watch, func(time.Time) tea.Msg { return storeTickMsg{} })
}

// readMark reads the change mark.
func (q *queueScreen) readMark() tea.Cmd {
	eng, ctx := q.eng, q.ctx
	return func() tea.Msg {
		m, err := eng.Traces.ChangeMark(ctx)
		return storeMarkMsg{mark: m, err: err}
	}
}

// markRead rereads the queue when the mark moved and the queue is on
// screen and idle; otherwise the change is picked up at a later look (or
// when the queue is shown again, which rereads anyway).
func (q *queueScreen) markRead(h host, msg storeMarkMsg) tea.Cmd {
	next := q.watchStoreAfter()
	if msg.err != nil {
		return next // a busy database now: the next look will do
	}
	if !q.markSeen {
		q.mark, q.markSeen = msg.mark, true
		return next
	}
	if msg.mark == q.mark || h.current() != screenQueue || q.loading || q.searching {
		return next
	}
	q.mark = msg.mark
	return tea.Batch(q.reread(nil), next)
}
