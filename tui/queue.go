package tui

import (
	"strconv"
	"strings"
	"time"
	"tracelab/app"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"tracelab/model"
	"tracelab/themes"
)

// queueScreen is the list of traces. Rows arrive page by page from keyset
// queries as the cursor nears the end of what is loaded, so opening a
// database of any size costs one page.
type queueScreen struct {
	pageSize int
	filter   app.Filter
	sort     app.SortKey
	desc     bool

	rows    []app.TraceSummary
	next    *app.Cursor // nil when every matching row is loaded
	loading bool
	loaded  bool // the first page of the current query arrived
	seq     int  // bumped on every new query; stale results are dropped
	err     error
	me      string // the labeler: rows another one holds are marked (team.go)

	counts       app.Counts
	countsLoaded bool

	cursor, offset int
	height         int // rows visible at the last draw

	searching bool
	search    textinput.Model

	// drawn rows by content, width and selection: moving the cursor
	// redraws two rows, not a screenful. Dropped when the theme changes.
	rowCache map[rowKey]string
}

type rowKey struct {
	id, caseID, labelClass, reservedBy string
	status                             model.Status
	selected                           bool
	width                              int
}

func itoa(n int) string { return strconv.Itoa(n) }

func newQueueScreen(pageSize int) *queueScreen {
	ti := textinput.New()
	ti.Prompt = "/"
	ti.Placeholder = "search question or id"
	ti.CharLimit = 200
	return &queueScreen{pageSize: pageSize, sort: app.SortImported, search: ti, height: 20}
}

func (q *queueScreen) query(after *app.Cursor) app.Query {
	return app.Query{Filter: q.filter, Sort: q.sort, Desc: q.desc, After: after, Limit: q.pageSize}
}

// pageMsg carries one or more pages of the queue.
type pageMsg struct {
	seq    int
	rows   []app.TraceSummary
	next   *app.Cursor
	append bool
	// selectIdx, when >= 0, moves the cursor to that row of the whole list;
	// open also opens it (confirm-and-next).
	selectIdx int
	open      bool
	err       error
}

type countsMsg struct {
	seq    int
	counts app.Counts
	err    error
}

// searchTickMsg fires when typing paused; seq says whether it is still current.
type searchTickMsg struct{ seq int }

// loadPage fetches one page of q.
func (m *Model) loadPage(q app.Query, seq int, appendRows bool, selectIdx int) tea.Cmd {
	eng, ctx := m.eng, m.ctx
	return func() tea.Msg {
		rows, next, err := eng.ListTraces(ctx, q)
		return pageMsg{seq: seq, rows: rows, next: next, append: appendRows, selectIdx: selectIdx, err: err}
	}
}

func (m *Model) loadCounts(f app.Filter, seq int) tea.Cmd {
	eng, ctx := m.eng, m.ctx
	return func() tea.Msg {
		c, err := eng.Counts(ctx, f)
		return countsMsg{seq: seq, counts: c, err: err}
	}
}

// pageUntil reads pages from q.After on until match accepts a row, or
// the rows run out, and returns every page it read (appended after base
// rows, or replacing them) so the list stays contiguous. The row found is
// selected (and opened with open); with none found, at the end the last
// row is selected when last is set, else the message carries notFound.
func (m *Model) pageUntil(q app.Query, seq, base int, appendRows, open, last bool, match func(app.TraceSummary) bool, notFound error) tea.Cmd {
	eng, ctx := m.eng, m.ctx
	return func() tea.Msg {
		var all []app.TraceSummary
		for {
			rows, next, err := eng.ListTraces(ctx, q)
			if err != nil {
				return pageMsg{seq: seq, append: appendRows, rows: all, next: q.After, selectIdx: -1, err: err}
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
			q.After = next
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

// reload starts a new query for the current filter and sort.
func (m *Model) reloadQueue() tea.Cmd {
	q := m.queue
	q.seq++
	q.loading, q.loaded = true, false
	q.countsLoaded = false
	return tea.Batch(m.loadPage(q.query(nil), q.seq, false, 0), m.loadCounts(q.filter, q.seq))
}

// reloadKeeping reloads the queue (a new sort, a cleared search or
// filter) and keeps the selected trace selected, reading pages until it
// is met; a trace the new query leaves out selects the first row.
func (m *Model) reloadKeeping() tea.Cmd {
	q := m.queue
	cur, ok := q.current()
	if !ok {
		return m.reloadQueue()
	}
	q.seq++
	q.loading, q.loaded, q.countsLoaded = true, false, false
	id := cur.TraceID
	return tea.Batch(m.pageUntil(q.query(nil), q.seq, 0, false, false, false,
		func(r app.TraceSummary) bool { return r.TraceID == id }, nil), m.loadCounts(q.filter, q.seq))
}

// queueMove moves the cursor, fetching the next page when it nears the end.
func (m *Model) queueMove(delta int) tea.Cmd {
	q := m.queue
	if len(q.rows) == 0 {
		return nil
	}
	q.cursor = clamp(q.cursor+delta, 0, len(q.rows)-1)
	q.scroll()
	return m.queueMaybeMore()
}

func (m *Model) queueMaybeMore() tea.Cmd {
	q := m.queue
	if q.next != nil && !q.loading && q.cursor >= len(q.rows)-q.height*2 {
		q.loading = true
		return m.loadPage(q.query(q.next), q.seq, true, -1)
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

func (q *queueScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys.Queue
	switch {
	case key.Matches(msg, k.Down):
		return m.queueMove(1)
	case key.Matches(msg, k.Up):
		return m.queueMove(-1)
	case key.Matches(msg, k.PageDown):
		return m.queueMove(max(1, q.height-1))
	case key.Matches(msg, k.PageUp):
		return m.queueMove(-max(1, q.height-1))
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
		m.setStatus("reading to the end of the queue…", false)
		return m.pageUntil(q.query(q.next), q.seq, len(q.rows), true, false, true, nil, nil)
	case key.Matches(msg, k.Open):
		if r, ok := q.current(); ok {
			return m.openTrace(r.TraceID)
		}
	case key.Matches(msg, k.Search):
		q.searching = true
		q.search.SetValue(q.filter.Search)
		q.search.CursorEnd()
		return q.search.Focus()
	case key.Matches(msg, k.Filter):
		return m.openFilter()
	case key.Matches(msg, k.Sort):
		q.sort = nextSort(q.sort)
		m.setStatus("sorted by "+string(q.sort), false)
		return m.reloadKeeping()
	case key.Matches(msg, k.Reverse):
		q.desc = !q.desc
		return m.reloadKeeping()
	case key.Matches(msg, k.NextUnconfirmed):
		return m.nextUnconfirmed(q.cursor, false)
	case key.Matches(msg, k.Clear):
		if filterActive(q.filter) {
			q.filter = app.Filter{}
			m.setStatus("filters cleared", false)
			return m.reloadKeeping()
		}
	}
	return nil
}

func nextSort(k app.SortKey) app.SortKey {
	for i, s := range app.SortKeys {
		if s == k {
			return app.SortKeys[(i+1)%len(app.SortKeys)]
		}
	}
	return app.SortImported
}

func (q *queueScreen) searchKey(m *Model, msg tea.KeyPressMsg) tea.Cmd {
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
			return m.reloadKeeping()
		}
		return nil
	case "down", "up":
		q.searching = false
		q.search.Blur()
		return q.key(m, msg)
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
	seq := q.seq
	return tea.Batch(cmd, tea.Tick(120*time.Millisecond, func(time.Time) tea.Msg { return searchTickMsg{seq} }))
}

func (q *queueScreen) current() (app.TraceSummary, bool) {
	if q.cursor < 0 || q.cursor >= len(q.rows) {
		return app.TraceSummary{}, false
	}
	return q.rows[q.cursor], true
}

// setRowCase updates a row after an edit so the list shows it at once.
func (q *queueScreen) setRowCase(traceID string, rec *app.CaseRecord) {
	for i := range q.rows {
		if q.rows[i].TraceID != traceID {
			continue
		}
		if rec == nil {
			q.rows[i].Status = model.StatusNone
			q.rows[i].LabelClass = ""
			return
		}
		q.rows[i].Status = rec.Status
		q.rows[i].CaseID = rec.Case.CaseID
		q.rows[i].LabelClass = ""
		if fc := rec.Case.Label.FailureClass; fc != nil {
			q.rows[i].LabelClass = string(*fc)
		}
		return
	}
}

// setRowScore updates a row's suggested class after a rescore, so the
// queue says what the trace's scoring panel says.
func (q *queueScreen) setRowScore(traceID string, sc *app.TraceScore) {
	for i := range q.rows {
		if q.rows[i].TraceID == traceID {
			q.rows[i].SuggestedClass = ""
			if sc.SuggestedClass != nil {
				q.rows[i].SuggestedClass = string(*sc.SuggestedClass)
			}
			q.rows[i].Markers = len(sc.Markers)
			return
		}
	}
}

func filterActive(f app.Filter) bool {
	return len(f.Classes)+len(f.Statuses)+len(f.Servers)+len(f.Tools)+len(f.Roles)+len(f.Outcomes)+len(f.TraceIDs) > 0 ||
		f.Search != "" || f.QueuedOnly
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
		k := rowKey{r.TraceID, r.CaseID, r.LabelClass, reservedByOther(r, q.me), r.Status, i == q.cursor, w}
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
	by := reservedByOther(r, q.me)
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
	cells[0] = statusStyle(sty, r.Status)(cells[0])
	if by != "" {
		cells[0] = sty.Warn.Render(cells[0])
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
	return cell(" "+strings.Join(parts, "  ")+sty.Faint.Render("  │  ")+strings.Join(cls, " "), w)
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
	if len(f.TraceIDs) > 0 {
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
