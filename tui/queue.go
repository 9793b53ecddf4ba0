package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
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
	width, height  int // the terminal's width; rows visible

	searching bool
	search    textinput.Model
	// inSteps is how many traces hold the search inStepsFor in their
	// steps (search.go).
	inSteps    int
	inStepsFor string

	values *filterValues // what the filter menu offers, loaded once

	// drawn rows by content, width and selection: moving the cursor
	// redraws two rows, not a screenful. Filled by update (cacheRows),
	// only read by view; dropped when the theme changes.
	rowCache map[rowKey]string

	cmds commands // the queue's keys as data (queue_keys.go)

	// The database's change mark at the last reread for it (live.go).
	mark     [3]int64
	markSeen bool
}

type rowKey struct {
	id, caseID, labelClass, suggested, reservedBy string
	status                                        model.Status
	changed                                       bool // the case has a review note
	edited                                        bool // a person's unconfirmed change
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
	defer func() {
		q.stepSearch = q.filter.Search
		q.cacheRows()
	}()
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
		q.width, q.height = msg.Width, queueListHeight(msg.Height-2)
		q.search.SetWidth(max(10, msg.Width/2))
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
		return tea.Batch(q.openTrace(q.rows[q.cursor].TraceID), q.maybeMore())
	default:
		if q.searching {
			var cmd tea.Cmd
			q.search, cmd = q.search.Update(msg)
			return cmd
		}
	}
	return nil
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
