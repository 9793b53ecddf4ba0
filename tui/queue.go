package tui

import (
	"fmt"
	"github.com/tracelab-dev/tracelab/app"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// queueScreen is the list of traces. Rows arrive page by page from keyset
// queries as the cursor nears the end of what is loaded, so opening a
// database of any size costs one page.
type queueScreen struct {
	*env
	pageSize int
	filter   app.Filter
	// judgeQueue is the trace list of the judge queue while it is the
	// filter's (judgequeue.go).
	judgeQueue []string
	sort       app.SortKey
	desc       bool

	rows    []app.TraceSummary
	next    *app.Cursor // nil when every matching row is loaded
	loading bool
	loaded  bool // the first page of the current query arrived
	seq     int  // bumped on every new query; stale results are dropped
	// openOnLoad: enter was pressed while the rows of a new query were on
	// their way; the selected row of the new rows opens when they land.
	openOnLoad bool
	err        error

	counts       app.Counts
	countsLoaded bool

	cursor, offset int
	height         int // rows visible at the last draw

	searching bool
	search    textinput.Model
	// inSteps is how many traces hold the search inStepsFor in their
	// steps (search.go).
	inSteps    int
	inStepsFor string

	values *filterValues // what the filter menu offers, loaded once

	// drawn rows by content, width and selection: moving the cursor
	// redraws two rows, not a screenful. Dropped when the theme changes.
	rowCache map[rowKey]string

	// The database's change mark at the last reread for it (live.go).
	mark     [3]int64
	markSeen bool
}

type rowKey struct {
	id, caseID, labelClass, suggested, reservedBy string
	status                                        model.Status
	markers                                       int
	selected                                      bool
	width                                         int
}

func itoa(n int) string { return strconv.Itoa(n) }

func newQueueScreen(e *env, pageSize int) *queueScreen {
	ti := textinput.New()
	ti.Prompt = "/"
	ti.Placeholder = "search question, id or steps"
	ti.CharLimit = 200
	return &queueScreen{env: e, pageSize: pageSize, sort: app.SortImported, search: ti, height: 20, values: &filterValues{}}
}

func (q *queueScreen) query(after *app.Cursor) app.Query {
	return app.Query{Filter: q.filter, Sort: q.sort, Desc: q.desc, After: after, Limit: q.pageSize}
}

// The messages the queue owns: its results and what other screens ask of it.
type (
	// pageMsg carries one or more pages of the queue.
	pageMsg struct {
		seq  int
		rows []app.TraceSummary
		next *app.Cursor
		// append adds the rows after the loaded ones; else they replace them.
		append bool
		// selectIdx, when >= 0, moves the cursor to that row of the whole
		// list; open also opens it (confirm-and-next). keep, when set,
		// selects that trace if the rows hold it.
		selectIdx int
		keep      string
		open      bool
		// then runs on the new rows (a reread before picking the next trace).
		then func(q *queueScreen, h host) tea.Cmd
		err  error
	}
	countsMsg struct {
		seq    int
		counts app.Counts
		err    error
	}
	// searchTickMsg fires when typing paused; seq says whether it is still current.
	searchTickMsg struct{ seq int }
	// queueFilterMsg shows the queue under a new filter (the report's
	// class, the drift screen's traces), with a status line saying so.
	queueFilterMsg struct {
		f      app.Filter
		status string
	}
	// queueNextMsg asks for the next trace to label after from (the
	// engine's pick, team.go), to open it (the trace screen, after a
	// confirm).
	queueNextMsg struct{ from string }
	// queueStepMsg asks to open the trace d rows away from from.
	queueStepMsg struct {
		from string
		d    int
	}
	// applyFilterAction is the filter menu's answer.
	applyFilterAction struct{ f app.Filter }
	// peersRescoredMsg says the engine's background rescore of the peers
	// an action marked stale has ended (err: how its last run ended).
	peersRescoredMsg struct{ err error }
)

func (pageMsg) owner() screenID           { return screenQueue }
func (countsMsg) owner() screenID         { return screenQueue }
func (searchTickMsg) owner() screenID     { return screenQueue }
func (queueFilterMsg) owner() screenID    { return screenQueue }
func (queueNextMsg) owner() screenID      { return screenQueue }
func (queueStepMsg) owner() screenID      { return screenQueue }
func (nextMsg) owner() screenID           { return screenQueue }
func (driftOpenQueueMsg) owner() screenID { return screenQueue }
func (peersRescoredMsg) owner() screenID  { return screenQueue }

func (q *queueScreen) typing() bool { return q.searching }

func (q *queueScreen) update(h host, msg tea.Msg) tea.Cmd {
	defer func() { q.stepSearch = q.filter.Search }()
	switch msg := msg.(type) {
	case stepCountMsg:
		q.stepCountDone(h, msg)
	case saveViewAction:
		return q.saveView(msg.name)
	case viewSavedMsg:
		q.viewSaved(h, msg)
	case applyViewAction:
		return q.setFilter(h, msg.view.Filter, fmt.Sprintf("view %q", model.CleanLine(msg.view.Name)))
	case tea.WindowSizeMsg:
		q.height = queueListHeight(msg.Height - 2)
		q.scroll()
	case themeMsg:
		q.rowCache = nil
	case shownMsg:
		// Back on screen: the store's columns are the one source of what a
		// row says (the triggers of store/migrations/0003 keep them), and
		// edits, rescoring and the report's scoring of what was stale
		// change rows other than the one opened. Read them again.
		return q.reread(nil)
	case peersRescoredMsg:
		// The peers of an action were rescored after it returned: rows
		// on screen may show their old suggestions. Off screen, the
		// queue reads its rows when it is shown again.
		if msg.err != nil {
			h.setStatus("rescoring the traces of the same question: "+msg.err.Error(), true)
		}
		if h.current() != screenQueue || msg.err != nil {
			return nil
		}
		return q.reread(nil)
	case tea.KeyPressMsg:
		if q.searching {
			return q.searchKey(h, msg)
		}
		return q.key(h, msg)
	case tea.PasteMsg:
		if q.searching {
			return q.updateSearch(msg)
		}
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			return q.move(-3)
		}
		return q.move(3)
	case pageMsg:
		return q.pageLoaded(h, msg)
	case storeTickMsg:
		return q.readMark()
	case storeMarkMsg:
		return q.markRead(h, msg)
	case countsMsg:
		if msg.seq != q.seq {
			return nil
		}
		if msg.err != nil {
			h.setStatus("counting: "+msg.err.Error(), true)
			return nil
		}
		q.counts, q.countsLoaded = msg.counts, true
	case searchTickMsg:
		if msg.seq != q.seq {
			return nil
		}
		return q.reload()
	case queueFilterMsg:
		return q.setFilter(h, msg.f, msg.status)
	case applyFilterAction:
		f := msg.f
		f.Search = q.filter.Search
		return q.setFilter(h, f, "")
	case judgeQueueMsg:
		return q.judgeQueueLoaded(h, msg)
	case driftOpenQueueMsg:
		if len(msg.traceIDs) == 0 {
			h.setStatus("no labeled case is affected by "+msg.tool, false)
			return nil
		}
		return q.setFilter(h, app.Filter{TraceIDs: msg.traceIDs},
			fmt.Sprintf("queue: the %d trace(s) of cases affected by %s on %s (esc clears)", len(msg.traceIDs), msg.tool, msg.server))
	case queueNextMsg:
		// The rows may be stale (the confirm just landed): read them again,
		// so the trace the engine hands out is most likely among them.
		from := msg.from
		return q.reread(func(q *queueScreen, h host) tea.Cmd {
			return q.nextUnconfirmed(from, true)
		})
	case nextMsg:
		return q.nextDone(h, msg)
	case queueStepMsg:
		i := indexOf(q.rows, msg.from)
		if i < 0 || i+msg.d < 0 || i+msg.d >= len(q.rows) {
			return nil
		}
		q.cursor = i + msg.d
		q.scroll()
		return tea.Batch(openTrace(q.rows[q.cursor].TraceID), q.maybeMore())
	default:
		if q.searching {
			var cmd tea.Cmd
			q.search, cmd = q.search.Update(msg)
			return cmd
		}
	}
	return nil
}

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
			return openTrace(q.rows[q.cursor].TraceID)
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
		if r, ok := q.current(); ok {
			cmds = append(cmds, openTrace(r.TraceID))
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

func (q *queueScreen) key(h host, msg tea.KeyPressMsg) tea.Cmd {
	k := q.keys.Queue
	switch {
	case key.Matches(msg, k.Down):
		return q.move(1)
	case key.Matches(msg, k.Up):
		return q.move(-1)
	case key.Matches(msg, k.PageDown):
		return q.move(max(1, q.height-1))
	case key.Matches(msg, k.PageUp):
		return q.move(-max(1, q.height-1))
	case key.Matches(msg, k.Top):
		q.cursor = 0
		q.scroll()
		return nil
	case key.Matches(msg, k.Bottom):
		if q.next == nil {
			q.cursor = max(0, len(q.rows)-1)
			q.scroll()
			return nil
		}
		q.loading = true
		h.setStatus("reading to the end of the queue…", false)
		return q.pageUntil(q.query(q.next), len(q.rows), true, false, true, nil, nil)
	case key.Matches(msg, k.Open):
		if !q.loaded {
			// The rows on screen belong to the query before (a search
			// still typing, a filter just set): open what the new one
			// selects, not what it is about to replace.
			q.openOnLoad = true
			return nil
		}
		if r, ok := q.current(); ok {
			return openTrace(r.TraceID)
		}
	case key.Matches(msg, k.Search):
		q.searching = true
		q.search.SetValue(q.filter.Search)
		q.search.CursorEnd()
		return q.search.Focus()
	case key.Matches(msg, k.Filter):
		h.pushDialog(screenQueue, newFilterDialog(q.filter, q.values, q.counts.Disputed))
		if q.values.values == nil {
			return q.loadValues()
		}
	case key.Matches(msg, k.SaveView):
		h.pushDialog(screenQueue, newViewPrompt(q.filter.Search))
	case key.Matches(msg, k.Sort):
		q.sort = nextSort(q.sort)
		h.setStatus("sorted by "+string(q.sort), false)
		return q.reloadKeeping()
	case key.Matches(msg, k.Reverse):
		q.desc = !q.desc
		return q.reloadKeeping()
	case key.Matches(msg, k.NextUnconfirmed):
		after := ""
		if r, ok := q.current(); ok {
			after = r.TraceID
		}
		return q.nextUnconfirmed(after, false)
	case key.Matches(msg, k.Disputed):
		// The adjudication queue: the traces whose raters disagree.
		q.filter.Disputed = !q.filter.Disputed
		if q.filter.Disputed {
			h.setStatus("queue: the traces whose raters disagree (d again or esc clears)", false)
		} else {
			h.setStatus("disagreements filter cleared", false)
		}
		return q.reloadKeeping()
	case key.Matches(msg, k.JudgeQueue):
		return q.toggleJudgeQueue(h)
	case key.Matches(msg, k.Clear):
		if filterActive(q.filter) {
			q.filter = app.Filter{}
			h.setStatus("filters cleared", false)
			return q.reloadKeeping()
		}
	}
	return nil
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

func (q *queueScreen) searchKey(h host, msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		q.searching = false
		q.search.Blur()
		return nil
	case "esc":
		q.searching = false
		q.search.Blur()
		if q.filter.Search != "" {
			q.filter.Search = ""
			return q.reloadKeeping()
		}
		return nil
	case "down", "up":
		q.searching = false
		q.search.Blur()
		return q.key(h, msg)
	}
	return q.updateSearch(msg)
}

// updateSearch feeds the input and schedules a query once typing pauses.
func (q *queueScreen) updateSearch(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	q.search, cmd = q.search.Update(msg)
	v := strings.TrimSpace(q.search.Value())
	if v == q.filter.Search {
		return cmd
	}
	q.filter.Search = v
	q.seq++
	// The rows on screen are the old query's until the new one lands.
	q.loaded = false
	seq := q.seq
	return tea.Batch(cmd, tea.Tick(120*time.Millisecond, func(time.Time) tea.Msg { return searchTickMsg{seq} }))
}

func (q *queueScreen) current() (app.TraceSummary, bool) {
	if q.cursor < 0 || q.cursor >= len(q.rows) {
		return app.TraceSummary{}, false
	}
	return q.rows[q.cursor], true
}

func filterActive(f app.Filter) bool {
	return len(f.Classes)+len(f.Statuses)+len(f.Servers)+len(f.Tools)+len(f.Roles)+len(f.Outcomes)+len(f.TraceIDs) > 0 ||
		f.Search != "" || f.QueuedOnly || f.Disputed
}

// queue columns, by terminal width.
type queueCols struct {
	status, caseID, server, question, outcome, class, suggested, markers int
	statusWords                                                          bool
}

func layoutQueue(w int) queueCols {
	// Narrow: ids and servers give way so the question stays readable.
	c := queueCols{status: 2, caseID: 14, server: 11, outcome: 8, class: 10, markers: 3}
	if w >= 100 {
		c.caseID, c.server = 20, 18
	}
	if w >= 120 {
		c = queueCols{status: 12, caseID: 22, server: 22, outcome: 13, class: 11, markers: 4, statusWords: true}
	}
	if w >= 140 {
		// Wide: the label and the machine's suggestion in two columns.
		c.suggested = 11
	}
	if w >= 180 {
		c.caseID, c.server = 30, 26
	}
	fixed := c.status + c.caseID + c.server + c.outcome + c.class + c.markers + 7
	if c.suggested > 0 {
		fixed += c.suggested + 1
	}
	c.question = max(10, w-fixed)
	return c
}

func statusGlyph(s model.Status) string {
	switch s {
	case model.StatusConfirmed:
		return "●"
	case model.StatusPending:
		return "◑"
	case model.StatusSuggested:
		return "◐"
	}
	return "○"
}

func statusStyle(sty *themes.Styles, s model.Status) func(...string) string {
	switch s {
	case model.StatusConfirmed:
		return sty.Confirmed.Render
	case model.StatusSuggested, model.StatusPending:
		return sty.Suggested.Render
	}
	return sty.Unlabeled.Render
}

func classStyle(sty *themes.Styles, class string) func(...string) string {
	for i, c := range model.Classes {
		if string(c) == class {
			return sty.Class[i].Render
		}
	}
	return sty.Subtle.Render
}

func (q *queueScreen) view(sty *themes.Styles, w, h int) string {
	var lines []string
	lines = append(lines, q.countsLine(sty, w), q.filterLine(sty, w))
	cols := layoutQueue(w)
	header := " " + cell("", cols.status) + " " + cell("CASE", cols.caseID) + " " + cell("SERVER", cols.server) + " " +
		cell("QUESTION", cols.question) + " " + cell("OUTCOME", cols.outcome) + " " + cell("CLASS", cols.class) + " "
	if cols.suggested > 0 {
		header += cell("SUGGESTED", cols.suggested) + " "
	}
	header += rcell("◆", cols.markers)
	lines = append(lines, sty.Header.Render(cell(header, w)))
	listH := max(1, h-len(lines))
	switch {
	case q.err != nil:
		lines = append(lines, sty.Error.Render(" cannot list traces: "+model.CleanLine(q.err.Error())))
	case !q.loaded && len(q.rows) == 0:
		lines = append(lines, sty.Subtle.Render(" loading…"))
	case len(q.rows) == 0:
		if filterActive(q.filter) {
			lines = append(lines, sty.Subtle.Render(" no trace matches; esc clears the filters"))
		} else {
			lines = append(lines, sty.Subtle.Render(" no traces yet: tracelab import FILE…, or tracelab demo"))
		}
	}
	end := min(len(q.rows), q.offset+listH)
	if q.rowCache == nil || len(q.rowCache) > 4096 {
		q.rowCache = map[rowKey]string{}
	}
	for i := q.offset; i < end; i++ {
		r := q.rows[i]
		k := rowKey{r.TraceID, r.CaseID, r.LabelClass, r.SuggestedClass, reservedByOther(r, q.labeler), r.Status, r.Markers, i == q.cursor, w}
		line, ok := q.rowCache[k]
		if !ok {
			line = q.rowView(sty, cols, r, i == q.cursor, w)
			q.rowCache[k] = line
		}
		lines = append(lines, line)
	}
	if end == len(q.rows) && q.loading && len(q.rows) > 0 && len(lines) < h {
		lines = append(lines, sty.Subtle.Render(" loading more…"))
	}
	return strings.Join(lines, "\n")
}

func (q *queueScreen) rowView(sty *themes.Styles, c queueCols, r app.TraceSummary, selected bool, w int) string {
	caseID := r.CaseID
	if caseID == "" {
		caseID = r.TraceID
	}
	status := statusGlyph(r.Status)
	if c.statusWords {
		status += " " + string(r.Status)
	}
	by := reservedByOther(r, q.labeler)
	if by != "" {
		status = reservedCell(by, c.statusWords)
	}
	class := r.Class()
	classText := class
	switch {
	case c.suggested > 0:
		class, classText = r.LabelClass, r.LabelClass // the suggestion has its own column
		if class == "" {
			classText = "-"
		}
	case class == "":
		classText = "-"
	case r.LabelClass == "":
		classText = class + "?" // a suggestion, not a label
	}
	markers := ""
	if r.Markers > 0 {
		markers = itoa(r.Markers)
	}
	cells := []string{
		cell(status, c.status), cell(model.CleanLine(caseID), c.caseID), cell(model.CleanLine(r.Server), c.server),
		cell(model.CleanLine(r.Question), c.question), cell(string(r.Outcome), c.outcome), cell(classText, c.class),
	}
	if c.suggested > 0 {
		sug := r.SuggestedClass
		if sug == "" {
			sug = "-"
		}
		cells = append(cells, cell(sug, c.suggested))
	}
	cells = append(cells, rcell(markers, c.markers))
	if selected {
		return sty.Selected.Render(cell("▌"+strings.Join(cells, " "), w))
	}
	if by != "" {
		cells[0] = sty.Warn.Render(cells[0]) // someone else's: a warning, whatever its status
	} else {
		cells[0] = statusStyle(sty, r.Status)(cells[0])
	}
	cells[1] = sty.Text.Render(cells[1])
	cells[2] = sty.Subtle.Render(cells[2])
	cells[3] = sty.Text.Render(cells[3])
	cells[4] = outcomeStyle(sty, r.Outcome)(cells[4])
	cells[5] = classStyle(sty, class)(cells[5])
	if c.suggested > 0 {
		cells[6] = classStyle(sty, r.SuggestedClass)(cells[6])
	}
	cells[len(cells)-1] = sty.Warn.Render(cells[len(cells)-1])
	return " " + strings.Join(cells, " ")
}

func outcomeStyle(sty *themes.Styles, o model.Outcome) func(...string) string {
	switch o {
	case model.OutcomePass:
		return sty.OK.Render
	case model.OutcomeFailure:
		return sty.Error.Render
	case model.OutcomeRetry, model.OutcomeClarification:
		return sty.Warn.Render
	}
	return sty.Subtle.Render
}

// countsLine is the header: totals per status and per class.
func (q *queueScreen) countsLine(sty *themes.Styles, w int) string {
	if !q.countsLoaded {
		return sty.Subtle.Render(" counting…")
	}
	c := q.counts
	// Under 120 columns the words shorten so every count fits.
	short := w < 120
	parts := []string{sty.Bold.Render(humanInt(c.Total)) + sty.Subtle.Render(" traces")}
	for _, s := range []model.Status{model.StatusNone, model.StatusSuggested, model.StatusPending, model.StatusConfirmed} {
		if s == model.StatusPending && c.ByStatus[s] == 0 {
			continue // shown only where a suite brought gold without labels
		}
		word := " " + string(s) + " "
		if short {
			word = ""
		}
		parts = append(parts, statusStyle(sty, s)(statusGlyph(s)+word+humanInt(c.ByStatus[s])))
	}
	cls := []string{}
	for i, cl := range model.Classes {
		name := string(cl)
		if short {
			name = name[:3]
		}
		cls = append(cls, sty.Class[i].Render(name+" "+humanInt(c.ByClass[string(cl)])))
	}
	cls = append(cls, sty.Subtle.Render("none "+humanInt(c.ByClass["none"])))
	line := " " + strings.Join(parts, "  ") + sty.Faint.Render("  │  ") + strings.Join(cls, " ")
	if c.Disputed > 0 || q.filter.Disputed {
		// The adjudication queue's size (d shows it), next to the others.
		word := " disagree "
		if short {
			word = " "
		}
		line += sty.Faint.Render("  │  ") + sty.Warn.Render("≠"+word+humanInt(c.Disputed))
	}
	return cell(line+q.stepCountText(sty), w)
}

// filterLine shows the search input, the filter chips and the sort.
func (q *queueScreen) filterLine(sty *themes.Styles, w int) string {
	sortText := sty.Subtle.Render("sort " + string(q.sort))
	if q.desc {
		sortText += sty.Subtle.Render(" ↓")
	} else {
		sortText += sty.Subtle.Render(" ↑")
	}
	var left string
	if q.searching {
		q.search.SetWidth(max(10, w/2))
		left = " " + q.search.View()
	} else {
		chips := q.chips(sty)
		if len(chips) == 0 {
			left = sty.Subtle.Render(" no filter  (/ search  f filter  s sort)")
		} else {
			left = " " + strings.Join(chips, " ")
		}
	}
	return spread(left, sortText+" ", w)
}

func (q *queueScreen) chips(sty *themes.Styles) []string {
	var out []string
	add := func(name string, vals []string) {
		if len(vals) > 0 {
			out = append(out, sty.ChipKey.Render(name+":")+sty.Chip.Render(model.CleanLine(strings.Join(vals, ","))))
		}
	}
	f := q.filter
	if f.Search != "" {
		add("search", []string{strconv.Quote(f.Search)})
	}
	add("class", f.Classes)
	add("status", toStrings(f.Statuses))
	add("server", f.Servers)
	add("tool", f.Tools)
	add("role", f.Roles)
	add("outcome", toStrings(f.Outcomes))
	if f.QueuedOnly {
		add("sample", []string{"queued"})
	}
	if f.Disputed {
		add("raters", []string{"disagree"})
	}
	switch {
	case len(f.TraceIDs) > 0 && q.judgeIDs(f):
		add("judge", []string{"≠ scorer or unsure " + strconv.Itoa(len(f.TraceIDs))})
	case len(f.TraceIDs) > 0:
		add("traces", []string{strconv.Itoa(len(f.TraceIDs)) + " chosen"})
	}
	return out
}

func toStrings[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
