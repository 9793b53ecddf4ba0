package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
)

// The queue's rows: page by page from keyset queries, read again when
// the store changed, and the cursor kept on the selected trace.

// setFilter shows the queue under f.
func (q *queueScreen) setFilter(h host, f app.Filter, status string) tea.Cmd {
	q.filter = f
	// A new query reads one page, not as many rows as the old one had loaded.
	if len(q.rows) > q.pageSize {
		q.rows, q.cursor = q.rows[:q.pageSize], min(q.cursor, q.pageSize-1)
	}
	if status != "" {
		h.setStatus(status, false)
	}
	if h.current() != screenQueue {
		return h.show(screenQueue) // which reads the rows
	}
	return q.reread(nil)
}

// pageLoaded takes in the rows of a page query.
func (q *queueScreen) pageLoaded(h host, msg pageMsg) tea.Cmd {
	if msg.seq != q.seq {
		return nil
	}
	q.loading = false
	q.loaded = true
	q.err = nil
	if msg.err != nil {
		q.err = msg.err
		return nil
	}
	if msg.append {
		q.rows = append(q.rows, msg.rows...)
	} else {
		q.rows = msg.rows
		q.cursor, q.offset = 0, 0
		if i := indexOf(q.rows, msg.keep); msg.keep != "" && i >= 0 {
			q.cursor = i
		}
		q.scroll()
	}
	q.next = msg.next
	if msg.selectIdx >= 0 && msg.selectIdx < len(q.rows) {
		q.cursor = msg.selectIdx
		q.scroll()
		if msg.open {
			return q.openTrace(q.rows[q.cursor].TraceID)
		}
	}
	if len(q.rows) > 0 {
		q.cursor = clamp(q.cursor, 0, len(q.rows)-1)
	}
	var cmds []tea.Cmd
	if msg.then != nil {
		cmds = append(cmds, msg.then(q, h))
	}
	if q.openOnLoad && !msg.append {
		q.openOnLoad = false
		r, ok := q.current()
		switch {
		case !q.opening: // esc gave up opening it
		case ok:
			cmds = append(cmds, q.openTrace(r.TraceID))
		default: // nothing to open: the keys held for it are dropped
			cmds = append(cmds, func() tea.Msg { return openTraceMsg{} })
		}
	}
	return tea.Batch(append(cmds, q.maybeMore())...)
}

// loadPage fetches one page of q.
func (q *queueScreen) loadPage(query app.Query, seq int, appendRows bool, keep string) tea.Cmd {
	eng, ctx := q.eng, q.ctx
	return func() tea.Msg {
		rows, next, err := eng.Traces.ListTraces(ctx, query)
		return pageMsg{seq: seq, rows: rows, next: next, append: appendRows, selectIdx: -1, keep: keep, err: err}
	}
}

func (q *queueScreen) loadCounts() tea.Cmd {
	eng, ctx, f, seq := q.eng, q.ctx, q.filter, q.seq
	return tea.Batch(func() tea.Msg {
		c, err := eng.Traces.Counts(ctx, f)
		return countsMsg{seq: seq, counts: c, err: err}
	}, q.loadStepCount())
}

// pageUntil reads pages from query.After on until match accepts a row, or
// the rows run out, and returns every page it read (appended after base
// rows, or replacing them) so the list stays contiguous. The row found is
// selected (and opened with open); with none found, at the end the last
// row is selected when last is set, else the message carries notFound.
func (q *queueScreen) pageUntil(query app.Query, base int, appendRows, open, last bool, match func(app.TraceSummary) bool, notFound error) tea.Cmd {
	eng, ctx, seq := q.eng, q.ctx, q.seq
	return func() tea.Msg {
		var all []app.TraceSummary
		for {
			rows, next, err := eng.Traces.ListTraces(ctx, query)
			if err != nil {
				return pageMsg{seq: seq, append: appendRows, rows: all, next: query.After, selectIdx: -1, err: err}
			}
			for i, r := range rows {
				if match != nil && match(r) {
					idx := base + len(all) + i
					all = append(all, rows...)
					return pageMsg{seq: seq, append: appendRows, rows: all, next: next, selectIdx: idx, open: open}
				}
			}
			all = append(all, rows...)
			if next == nil {
				msg := pageMsg{seq: seq, append: appendRows, rows: all, selectIdx: -1, open: open, err: notFound}
				if last && len(all) > 0 {
					msg.selectIdx, msg.err = base+len(all)-1, nil
				}
				return msg
			}
			query.After = next
		}
	}
}

func indexOf(rows []app.TraceSummary, id string) int {
	for i, r := range rows {
		if r.TraceID == id {
			return i
		}
	}
	return -1
}

// listHeight is how many rows fit under the queue's three header lines.
func queueListHeight(bodyH int) int { return max(1, bodyH-3) }

// scroll keeps the cursor inside the visible window.
func (q *queueScreen) scroll() {
	if q.cursor < q.offset {
		q.offset = q.cursor
	}
	if q.cursor >= q.offset+q.height {
		q.offset = q.cursor - q.height + 1
	}
	if q.offset < 0 {
		q.offset = 0
	}
}

// reload starts a new query for the current filter and sort from the top.
func (q *queueScreen) reload() tea.Cmd {
	q.seq++
	q.loading, q.loaded, q.countsLoaded = true, false, false
	return tea.Batch(q.loadPage(q.query(nil), q.seq, false, ""), q.loadCounts())
}

// reread reads the rows loaded so far again, in one query from the top
// (with the counts), keeping the selected trace selected when the new
// rows hold it; then, when set, runs on the new rows.
func (q *queueScreen) reread(then func(*queueScreen, host) tea.Cmd) tea.Cmd {
	q.seq++
	q.loading, q.loaded, q.countsLoaded = true, false, false
	query := q.query(nil)
	query.Limit = max(q.pageSize, len(q.rows))
	keep := ""
	if r, ok := q.current(); ok {
		keep = r.TraceID
	}
	page := q.loadPage(query, q.seq, false, keep)
	if then != nil {
		load := page
		page = func() tea.Msg {
			msg := load().(pageMsg)
			msg.then = then
			return msg
		}
	}
	return tea.Batch(page, q.loadCounts())
}

// reloadKeeping reloads the queue (a new sort, a cleared search or
// filter) and keeps the selected trace selected, reading pages until it
// is met; a trace the new query leaves out selects the first row.
func (q *queueScreen) reloadKeeping() tea.Cmd {
	cur, ok := q.current()
	if !ok {
		return q.reload()
	}
	q.seq++
	q.loading, q.loaded, q.countsLoaded = true, false, false
	id := cur.TraceID
	return tea.Batch(q.pageUntil(q.query(nil), 0, false, false, false,
		func(r app.TraceSummary) bool { return r.TraceID == id }, nil), q.loadCounts())
}

// move moves the cursor, fetching the next page when it nears the end.
func (q *queueScreen) move(delta int) tea.Cmd {
	if len(q.rows) == 0 {
		return nil
	}
	q.cursor = clamp(q.cursor+delta, 0, len(q.rows)-1)
	q.scroll()
	return q.maybeMore()
}

func (q *queueScreen) maybeMore() tea.Cmd {
	if q.next != nil && !q.loading && q.cursor >= len(q.rows)-q.height*2 {
		q.loading = true
		return q.loadPage(q.query(q.next), q.seq, true, "")
	}
	return nil
}

func clamp(v, lo, hi int) int {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}

// loadValues fetches what the filter menu offers (distinctMsg goes to it).
func (q *queueScreen) loadValues() tea.Cmd {
	eng, ctx := q.eng, q.ctx
	return func() tea.Msg {
		out := map[string][]string{}
		for _, a := range []string{"server", "tool", "user_role", "outcome"} {
			vs, err := eng.Traces.Distinct(ctx, a)
			if err != nil {
				return distinctMsg{err: err}
			}
			out[a] = vs
		}
		views, err := eng.Traces.Views(ctx)
		return distinctMsg{values: out, views: views, err: err}
	}
}

func nextSort(k app.SortKey) app.SortKey {
	for i, s := range app.SortKeys {
		if s == k {
			return app.SortKeys[(i+1)%len(app.SortKeys)]
		}
	}
	return app.SortImported
}
