package tui

import (
	"fmt"
	"tracelab/app"

	tea "charm.land/bubbletea/v2"

	"tracelab/model"
)

// handleResult routes the result of a command to its owner by type.
// Results that belong to an older query (seq) are dropped.
func (m *Model) handleResult(msg tea.Msg) (tea.Model, tea.Cmd) {
	q := m.queue
	switch msg := msg.(type) {
	case pageMsg:
		if msg.seq != q.seq {
			return m, nil
		}
		q.loading = false
		q.loaded = true
		q.err = nil
		if msg.err != nil {
			q.err = msg.err
			return m, nil
		}
		if msg.append {
			q.rows = append(q.rows, msg.rows...)
		} else {
			q.rows = msg.rows
			q.cursor, q.offset = 0, 0
		}
		q.next = msg.next
		if msg.selectIdx >= 0 && msg.selectIdx < len(q.rows) {
			q.cursor = msg.selectIdx
			q.scroll()
			if msg.open {
				return m, m.openTrace(q.rows[q.cursor].TraceID)
			}
		}
		if len(q.rows) > 0 {
			q.cursor = clamp(q.cursor, 0, len(q.rows)-1)
		}
		return m, m.queueMaybeMore()
	case countsMsg:
		if msg.seq != q.seq {
			return m, nil
		}
		if msg.err != nil {
			m.setStatus("counting: "+msg.err.Error(), true)
			return m, nil
		}
		q.counts, q.countsLoaded = msg.counts, true
	case searchTickMsg:
		if msg.seq != q.seq {
			return m, nil
		}
		q.loading, q.loaded, q.countsLoaded = true, false, false
		return m, tea.Batch(m.loadPage(q.query(nil), q.seq, false, 0), m.loadCounts(q.filter, q.seq))
	case traceMsg:
		if msg.id != m.trace.pending {
			return m, nil
		}
		m.trace.setLoaded(msg)
		if msg.score != nil {
			q.setRowScore(msg.id, msg.score) // the queue says what the panel says
		}
		m.goTo(screenTrace)
		if msg.err != nil {
			m.setStatus(msg.err.Error(), true)
		}
		return m, m.traceOpened(msg)
	case nextMsg:
		return m, m.nextDone(msg)
	case pollTickMsg:
		return m, m.pollTick(msg)
	case changesMsg:
		return m, m.changesDone(msg)
	case actionMsg:
		return m, m.actionDone(msg)
	case reportMsg:
		r := m.report
		if msg.seq != r.seq {
			return m, nil
		}
		r.loading, r.loaded, r.missing, r.err = false, true, msg.missing, msg.err
		r.reports = msg.reports
		r.pending = map[string]int{}
		for _, l := range msg.labels {
			r.pending[l.Server] = l.LabelPending
		}
	case distinctMsg:
		if msg.err != nil {
			m.setStatus("filter values: "+msg.err.Error(), true)
			return m, nil
		}
		m.distinct = msg.values
		if m.dialog() != nil {
			cmd, act := m.dialog().update(msg)
			return m.handleAction(act, cmd)
		}
	case driftLoadedMsg:
		return m, m.drift.handle(msg)
	case driftOpenQueueMsg:
		if len(msg.traceIDs) == 0 {
			m.setStatus("no labeled case is affected by "+msg.tool, false)
			return m, nil
		}
		m.queue.filter = app.Filter{TraceIDs: msg.traceIDs}
		m.goTo(screenQueue)
		m.setStatus(fmt.Sprintf("queue: the %d trace(s) of cases affected by %s on %s (esc clears)", len(msg.traceIDs), msg.tool, msg.server), false)
		return m, m.reloadQueue()
	case glossaryMsg:
		if msg.err != nil {
			m.setStatus(msg.err.Error(), true)
		} else {
			m.setStatus("glossary: saved "+model.CleanLine(msg.term), false)
		}
	default:
		// Everything else (cursor blinks and the like) goes to the dialog.
		if m.dialog() != nil {
			cmd, act := m.dialog().update(msg)
			return m.handleAction(act, cmd)
		}
		if q.searching {
			var cmd tea.Cmd
			q.search, cmd = q.search.Update(msg)
			return m, cmd
		}
	}
	return m, nil
}
