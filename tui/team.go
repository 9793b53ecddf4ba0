package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// Labeling as a team (app/reserve.go has the rules): `n` asks the engine
// for the next trace, which picks and reserves it in one step, so two
// labelers never get the same one; opening a trace reserves it; the queue
// marks a trace another labeler holds; and while a trace is open a poll
// says when someone else changed its case, showing their value.

// nextMsg is the trace NextInQueue handed out for `n` (or after a
// confirm); the queue owns it.
type nextMsg struct {
	seq  int    // the queue query it was asked under
	from string // the trace the search started after
	open bool
	next app.Next
	err  error
}

// nextUnconfirmed asks the engine for the first trace after the trace
// after ("": from the top), in the queue's filter and order and wrapping,
// that is unconfirmed and that no other labeler holds, reserved for this
// labeler; nextDone moves there.
func (q *queueScreen) nextUnconfirmed(after string, open bool) tea.Cmd {
	eng, ctx, who, query, seq := q.eng, q.ctx, q.labeler, q.query(nil), q.seq
	return func() tea.Msg {
		n, err := eng.Queue.Next(ctx, who, query, after)
		return nextMsg{seq: seq, from: after, open: open, next: n, err: err}
	}
}

func (q *queueScreen) nextDone(h host, msg nextMsg) tea.Cmd {
	if msg.seq != q.seq {
		return nil // the queue was reloaded meanwhile: that n is moot
	}
	switch {
	case errors.Is(msg.err, app.ErrQueueDone):
		h.setStatus(q.queueDone(), false)
		return nil
	case msg.err != nil:
		h.setStatus(errText(msg.err), true)
		return nil
	}
	id := msg.next.TraceID
	if msg.next.Wrapped {
		if id == msg.from && !msg.open {
			h.setStatus("this is the only unconfirmed trace left in the queue", false)
		} else {
			h.setStatus("wrapped to the top: the traces after this one are all confirmed or reserved", false)
		}
	}
	if i := indexOf(q.rows, id); i >= 0 {
		q.cursor = i
		q.scroll()
		if msg.open {
			return tea.Batch(q.openTrace(id), q.maybeMore())
		}
		return q.maybeMore()
	}
	if q.next == nil { // not among the rows: the queue changed since it loaded
		if msg.open {
			return q.openTrace(id)
		}
		return nil
	}
	q.loading = true
	return q.pageUntil(q.query(q.next), len(q.rows), true, msg.open, false,
		func(r app.TraceSummary) bool { return r.TraceID == id }, nil)
}

// queueDone says why no trace is left to open: none at all, all
// confirmed, or the rest held by others.
func (q *queueScreen) queueDone() string {
	if len(q.rows) == 0 {
		return q.emptyQueue()
	}
	for _, r := range q.rows {
		if q.next != nil || r.Status != model.StatusConfirmed && reservedByOther(r, q.labeler) != "" {
			return "every trace in this queue is confirmed or reserved by another labeler"
		}
	}
	return "every trace in this queue is confirmed"
}

// reservedByOther is who holds a queue row's trace when that is not me.
func reservedByOther(r app.TraceSummary, me string) string {
	if r.ReservedBy == me {
		return ""
	}
	return r.ReservedBy
}

// reservedCell is the status cell of a row another labeler holds: the
// marker, and their name where the column has room for words.
func reservedCell(by string, words bool) string {
	if words {
		return "⊘ " + model.CleanLine(by)
	}
	return "⊘"
}

// opened says when the trace just opened is someone else's, and starts
// watching it for their edits.
func (ts *traceScreen) opened(h host, msg traceMsg) tea.Cmd {
	switch {
	case msg.reserveErr != nil:
		h.setStatus("could not reserve this trace: "+msg.reserveErr.Error(), true)
	case msg.held.Held() && msg.held.Labeler != ts.labeler:
		h.setStatus(fmt.Sprintf("reserved by %s until %s: your edits still save, and n skips it",
			model.CleanLine(msg.held.Labeler), msg.held.Expires.Local().Format("15:04")), false)
	case msg.rec != nil && msg.rec.Review != "":
		// New spans changed a trace a person had confirmed (tracelab
		// serve): the machine never relabels it, so the person is told.
		h.setStatus(model.CleanLine(msg.rec.Review)+"; confirming again (enter) clears this", false)
	}
	if msg.err != nil || ts.poll <= 0 {
		return nil
	}
	ts.watch = watchState{id: msg.id, gen: ts.watch.gen + 1, since: msg.since}
	return ts.pollAfter(ts.watch)
}

// watchState is the open trace whose case the poll watches.
type watchState struct {
	id    string
	gen   int   // which poll chain is current: reopening starts a new one
	since int64 // newest event id seen
}

// The poll's messages, owned by the trace screen.
type (
	pollTickMsg struct{ w watchState }
	// changesMsg is a poll's answer: other labelers' events since the
	// last poll, and when there were any the case, the raters (their
	// label is in their own row) and, after a gold edit, the score as
	// they are now.
	changesMsg struct {
		w      watchState
		events []app.Event
		last   int64
		rec    *app.CaseRecord
		raters *app.TraceRaters
		score  *app.TraceScore
		err    error
	}
)

func (pollTickMsg) owner() screenID { return screenTrace }
func (changesMsg) owner() screenID  { return screenTrace }

func (ts *traceScreen) pollAfter(w watchState) tea.Cmd {
	return tea.Tick(ts.poll, func(time.Time) tea.Msg { return pollTickMsg{w} })
}

// pollTick asks for changes while the same trace is open; a chain whose
// trace was closed or reopened ends here.
func (ts *traceScreen) pollTick(h host, msg pollTickMsg) tea.Cmd {
	if msg.w.gen != ts.watch.gen || ts.id != msg.w.id {
		return nil
	}
	if h.current() != screenTrace {
		return ts.pollAfter(ts.watch) // keep the place; ask when the trace is shown again
	}
	eng, ctx, who, w := ts.eng, ts.ctx, ts.labeler, ts.watch
	return func() tea.Msg {
		evs, last, err := eng.Queue.ChangesSince(ctx, w.id, who, w.since)
		out := changesMsg{w: w, events: evs, last: last, err: err}
		if err != nil || len(evs) == 0 {
			return out
		}
		if out.rec, out.err = eng.Traces.CaseForTrace(ctx, w.id); out.err != nil {
			return out
		}
		tr, err := eng.Raters.Of(ctx, w.id)
		if out.err = err; err != nil {
			return out
		}
		out.raters = &tr
		if slices.ContainsFunc(evs, func(e app.Event) bool { return strings.HasPrefix(e.Field, "gold.") }) {
			out.score, out.err = eng.Scores.Of(ctx, w.id)
		}
		return out
	}
}

// changesDone shows another labeler's edits: their values on the screen
// (in the raters block; the case's final label as the rule settles it)
// and "FIELD changed by NAME just now" on the status line.
func (ts *traceScreen) changesDone(h host, msg changesMsg) tea.Cmd {
	if msg.w.gen != ts.watch.gen {
		return nil
	}
	if msg.err != nil {
		h.setStatus("watching for changes: "+msg.err.Error(), true)
		return ts.pollAfter(ts.watch) // a locked database passes; try again
	}
	ts.watch.since = msg.last
	if len(msg.events) > 0 && ts.showCase(msg.w.id, msg.rec, msg.score) {
		ts.raters = msg.raters
		h.setStatus(changedLine(msg.events), false)
	}
	return ts.pollAfter(ts.watch)
}

// changedLine says which fields who changed: "label.correct, label.note
// changed by ana just now".
func changedLine(evs []app.Event) string {
	var fields, who []string
	for _, e := range evs {
		if !slices.Contains(fields, e.Field) {
			fields = append(fields, e.Field)
		}
		if !slices.Contains(who, e.Who) {
			who = append(who, e.Who)
		}
	}
	return strings.Join(fields, ", ") + " changed by " + strings.Join(who, " and ") + " just now"
}
