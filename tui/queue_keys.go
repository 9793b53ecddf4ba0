package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
)

// The help columns of the queue.
const (
	groupQueueMove = iota
	groupQueueShow
)

func (q *queueScreen) key(h host, msg tea.KeyPressMsg) tea.Cmd {
	cmd, _ := q.commands().dispatch(h, msg)
	return cmd
}

func (q *queueScreen) commands() commands {
	if q.cmds == nil {
		q.cmds = q.buildCommands()
	}
	return q.cmds
}

func (q *queueScreen) help(k keyMap) helpKeys {
	if q.searching {
		return k.searchHelp()
	}
	qk, g := k.Queue, k.Global
	short := []key.Binding{g.Help, qk.Open, qk.NextUnconfirmed, qk.Search, qk.Filter, qk.Sort, g.Report, g.Quit}
	return q.commands().help(short, g.all())
}

func (q *queueScreen) buildCommands() commands {
	k := q.keys.Queue
	move := func(d func() int) func(host, tea.KeyPressMsg) tea.Cmd {
		return func(host, tea.KeyPressMsg) tea.Cmd { return q.move(d()) }
	}
	return commands{
		{key: k.Up, group: groupQueueMove, run: move(func() int { return -1 })},
		{key: k.Down, group: groupQueueMove, run: move(func() int { return 1 })},
		{key: k.PageUp, group: groupQueueMove, run: move(func() int { return -max(1, q.height-1) })},
		{key: k.PageDown, group: groupQueueMove, run: move(func() int { return max(1, q.height-1) })},
		{key: k.Top, group: groupQueueMove, run: func(host, tea.KeyPressMsg) tea.Cmd { q.cursor = 0; q.scroll(); return nil }},
		{key: k.Bottom, group: groupQueueMove, run: q.bottomKey},
		{key: k.Open, group: groupQueueMove, run: q.openKey},
		{key: k.Search, group: groupQueueShow, run: q.searchStart},
		{key: k.Filter, group: groupQueueShow, run: q.filterKey},
		{key: k.SaveView, group: groupQueueShow, disabled: q.env.readOnly, run: func(h host, _ tea.KeyPressMsg) tea.Cmd {
			h.pushDialog(screenQueue, newViewPrompt(q.filter.Search))
			return nil
		}},
		{key: k.Disputed, group: groupQueueShow, run: q.disputedKey},
		{key: k.JudgeQueue, group: groupQueueShow, run: func(h host, _ tea.KeyPressMsg) tea.Cmd { return q.toggleJudgeQueue(h) }},
		{key: k.Clear, group: groupQueueShow, run: q.clearKey},
		{key: k.Sort, group: groupQueueShow, run: func(h host, _ tea.KeyPressMsg) tea.Cmd {
			q.sort = nextSort(q.sort)
			h.setStatus("sorted by "+string(q.sort), false)
			return q.reloadKeeping()
		}},
		{key: k.Reverse, group: groupQueueShow, run: func(host, tea.KeyPressMsg) tea.Cmd {
			q.desc = !q.desc
			return q.reloadKeeping()
		}},
		{key: k.NextUnconfirmed, group: groupQueueShow, run: q.nextKey, disabled: func() string {
			if q.readOnly() != "" {
				return "read-only database: n reserves the trace it opens, which cannot be saved; enter opens the selected one"
			}
			return ""
		}},
	}
}

func (q *queueScreen) bottomKey(h host, _ tea.KeyPressMsg) tea.Cmd {
	if q.next == nil {
		q.cursor = max(0, len(q.rows)-1)
		q.scroll()
		return nil
	}
	q.loading = true
	h.setStatus("reading to the end of the queue…", false)
	return q.pageUntil(q.query(q.next), len(q.rows), true, false, true, nil, nil)
}

func (q *queueScreen) openKey(host, tea.KeyPressMsg) tea.Cmd {
	if !q.loaded {
		// The rows on screen belong to the query before (a search still
		// typing, a filter just set): open what the new one selects, not
		// what it is about to replace. The keys typed until then are
		// for that trace (trace_keys.go), as after any enter.
		q.openOnLoad, q.opening = true, true
		return nil
	}
	if r, ok := q.current(); ok {
		return q.openTrace(r.TraceID)
	}
	return nil
}

func (q *queueScreen) searchStart(host, tea.KeyPressMsg) tea.Cmd {
	q.searching = true
	q.search.SetValue(q.filter.Search)
	q.search.CursorEnd()
	return q.search.Focus()
}

func (q *queueScreen) filterKey(h host, _ tea.KeyPressMsg) tea.Cmd {
	h.pushDialog(screenQueue, newFilterDialog(q.filter, q.values, q.counts.Disputed))
	if q.values.values == nil {
		return q.loadValues()
	}
	return nil
}

// disputedKey toggles the adjudication queue: the traces whose raters
// disagree.
func (q *queueScreen) disputedKey(h host, _ tea.KeyPressMsg) tea.Cmd {
	q.filter.Disputed = !q.filter.Disputed
	if q.filter.Disputed {
		h.setStatus("queue: the traces whose raters disagree (d again or esc clears)", false)
	} else {
		h.setStatus("disagreements filter cleared", false)
	}
	return q.reloadKeeping()
}

func (q *queueScreen) clearKey(h host, _ tea.KeyPressMsg) tea.Cmd {
	if !filterActive(q.filter) {
		return nil
	}
	q.filter = app.Filter{}
	h.setStatus("filters cleared", false)
	return q.reloadKeeping()
}

// nextKey opens the first unconfirmed trace no one else holds from the
// selected row on, the selected row included: the engine's pick starts
// after the row above it (from the top on the first row).
func (q *queueScreen) nextKey(h host, _ tea.KeyPressMsg) tea.Cmd {
	if q.loaded && len(q.rows) == 0 {
		h.setStatus(q.emptyQueue(), false)
		return nil
	}
	after := ""
	if q.cursor > 0 && q.cursor <= len(q.rows) {
		after = q.rows[q.cursor-1].TraceID
	}
	return q.nextUnconfirmed(after, true)
}

// emptyQueue says why there is no trace to open.
func (q *queueScreen) emptyQueue() string {
	if filterActive(q.filter) {
		return "no trace matches this queue's filter: esc clears it"
	}
	return "the queue is empty: no traces yet (tracelab import FILE…, or tracelab demo)"
}
