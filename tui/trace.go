package tui

import (
	"encoding/json"
	"github.com/tracelab-dev/tracelab/app"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

type pane int

const (
	paneSteps pane = iota
	paneDetail
	paneScore
)

// traceScreen shows one trace: steps, the selected step in full, and the
// scoring panel; the labeling keys act on its case.
type traceScreen struct {
	*env
	width, height int // the terminal's, for the panes' widths and paging

	id      string
	pending string // the trace being loaded; older loads are dropped
	t       *model.Trace
	rec     *app.CaseRecord
	score   *app.TraceScore
	raters  *app.TraceRaters // every rater's label (adjudicate.go)
	loading bool
	err     error

	step, stepOff int
	marker        int // the guess marker ] / [ went to (index into score.Markers), -1 none
	// hits are the steps holding the queue's search hitsFor, hit the one
	// n / N went to (-1 none; search.go).
	hits          []int
	hitsFor       string
	hit           int
	focus         pane
	detailOff     int
	hoff          int // first column of a result table drawn (h / l)
	item, itemOff int // scoring panel cursor
	items         []panelItem
	// scoreFree: the scoring pane was scrolled past its cursor (scorepane.go);
	// scoreSel, scoreMax: the cursor's row and the last first row, as drawn.
	scoreFree          bool
	scoreSel, scoreMax int

	// cache of drawn detail lines per step and width; a map so that the
	// copies View works on share it. Replaced (never cleared) on change.
	cache map[detailKey][]string
	// the scoring panel as last drawn, by what it depends on.
	scoreCache map[scoreKey]scoreDrawn

	// actions are the labeling keys not saved yet, in the order pressed;
	// the first one is running (actions.go).
	actions []labelAction
	// held is the keys pressed while a trace loads, run on it once it
	// has (trace_keys.go); cmds is the screen's keys as data.
	held []tea.KeyPressMsg
	cmds commands

	watch watchState // the open trace the poll for others' edits watches (team.go)

	edited bool // a person's unconfirmed edits stand on the case (edited.go)
}

type scoreKey struct {
	item, itemOff, w, h int
	focused, free, side bool
	rec                 *app.CaseRecord
	score               *app.TraceScore
}

type detailKey struct{ step, width, marker, hoff int }

// panelItem is a selectable row of the scoring panel.
type panelItem struct {
	field  string // a field (r / x act on it)
	step   int    // evidence: the step it points at (enter jumps), -1 for fields
	status string // required | forbidden | neutral | missing
	roles  []app.Role
	reason string
	class  string
}

func newTraceScreen(e *env) *traceScreen {
	return &traceScreen{env: e, width: 80, height: 24, cache: map[detailKey][]string{}, scoreCache: map[scoreKey]scoreDrawn{}}
}

func (ts *traceScreen) invalidate() {
	ts.cache = map[detailKey][]string{}
	ts.scoreCache = map[scoreKey]scoreDrawn{}
}

// The messages the trace screen owns.
type (
	// openTraceMsg asks the trace screen to load and show a trace; with
	// no id, the query enter waited for selected none.
	openTraceMsg struct{ id string }
	// traceMsg carries a loaded trace with its case and score.
	traceMsg struct {
		id     string
		t      *model.Trace
		rec    *app.CaseRecord
		score  *app.TraceScore
		raters *app.TraceRaters
		err    error
		// held is who holds the trace after opening it reserved it for
		// this labeler (someone else when they hold it); reserveErr does
		// not stop the trace from opening.
		held       app.Reservation
		reserveErr error
		// since is the newest event of the case before it was read: the
		// poll for others' edits starts there, so none made while it
		// loads is missed.
		since int64
		// hits are the steps holding the queue's search hitsFor.
		hits    []int
		hitsFor string
		edited  bool // edited.go
	}
	// What the trace screen's dialogs return.
	saveGoldAction      struct{ edits []app.FieldEdit } // the gold editor's save
	confirmAnywayAction struct{ id string }             // confirm a label with gaps, after asking
	saveTermAction      struct{ term string }           // save the definition under a term
	glossaryMsg         struct {
		term string
		err  error
	}
)

func (openTraceMsg) owner() screenID { return screenTrace }
func (traceMsg) owner() screenID     { return screenTrace }
func (actionMsg) owner() screenID    { return screenTrace }
func (glossaryMsg) owner() screenID  { return screenTrace }

// openTrace asks the trace screen to open a trace (any screen may).
// Until it has loaded, the keys pressed are held for it (trace_keys.go).
func (e *env) openTrace(id string) tea.Cmd {
	e.opening = true
	return func() tea.Msg { return openTraceMsg{id} }
}

func (ts *traceScreen) unavailable() string {
	if ts.t == nil && !ts.loading {
		return "no trace open yet: enter on a queue row opens one"
	}
	return ""
}

func (ts *traceScreen) unsaved() int { return len(ts.actions) }

func (ts *traceScreen) update(h host, msg tea.Msg) tea.Cmd {
	defer ts.syncScroll()
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		ts.width, ts.height = msg.Width, msg.Height
		ts.invalidate()
	case themeMsg:
		ts.invalidate()
	case tea.KeyPressMsg:
		if ts.t != nil && ts.scoreScrollKey(msg) {
			return nil
		}
		return ts.key(h, msg)
	case tea.MouseWheelMsg:
		// The wheel scrolls the pane under the pointer.
		up := msg.Button == tea.MouseWheelUp
		_, _, scoreW := ts.widths(ts.width)
		switch {
		case scoreW > 0 && msg.X >= ts.width-scoreW && up:
			ts.scrollScore(-3)
		case scoreW > 0 && msg.X >= ts.width-scoreW:
			ts.scrollScore(3)
		case msg.X < ts.stepsWidth(ts.width) && up:
			ts.moveStep(-1)
		case msg.X < ts.stepsWidth(ts.width):
			ts.moveStep(1)
		case up:
			ts.scrollDetail(-3)
		default:
			ts.scrollDetail(3)
		}
	case openTraceMsg:
		if !ts.opening {
			return nil // esc gave up opening it
		}
		if msg.id == "" {
			ts.opening = false
			return ts.replayHeld(h, false)
		}
		return ts.load(msg.id)
	case traceMsg:
		if msg.id != ts.pending {
			return nil
		}
		ts.setLoaded(msg)
		ts.opening = false
		if msg.err != nil {
			h.setStatus(msg.err.Error(), true)
		}
		return tea.Sequence(tea.Batch(h.show(screenTrace), ts.opened(h, msg)), ts.replayHeld(h, msg.err == nil))
	case pollTickMsg:
		return ts.pollTick(h, msg)
	case changesMsg:
		return ts.changesDone(h, msg)
	case actionMsg:
		return ts.actionDone(h, msg)
	case actionWaitMsg:
		return ts.actionWaiting(msg)
	case dropEditsAction:
		return ts.dropWaiting()
	case saveGoldAction:
		if len(msg.edits) == 0 {
			h.setStatus("gold unchanged", false)
			return nil
		}
		return ts.enqueue(h, editFields(ts.id, msg.edits))
	case confirmAnywayAction:
		return ts.enqueue(h, confirmLabel(msg.id, true))
	case saveTermAction:
		return ts.saveGlossary(msg.term)
	case ratersMsg:
		if msg.id != ts.id {
			return nil
		}
		if msg.err != nil {
			h.setStatus("raters: "+msg.err.Error(), true)
			return nil
		}
		ts.raters = &msg.tr
	case adjudicateAction:
		return ts.enqueue(h, adjudicate(msg.id, msg.req))
	case writeLabelAction:
		if msg.id != ts.id {
			return nil
		}
		ed := newLabelEditor(ts.id, ts.label(), ts.sty)
		h.pushDialog(screenTrace, ed)
		return ed.focusCmd()
	case glossaryMsg:
		if msg.err != nil {
			h.setStatus(errText(msg.err), true)
		} else {
			h.setStatus("glossary: saved "+model.CleanLine(msg.term), false)
		}
	}
	return nil
}

// load reads a trace with its case, score and raters, and reserves it
// for this labeler (team.go).
func (ts *traceScreen) load(id string) tea.Cmd {
	ts.pending, ts.loading = id, true
	eng, ctx, who, search := ts.eng, ts.ctx, ts.labeler, ts.stepSearch
	return func() tea.Msg {
		_, since, err := eng.Queue.ChangesSince(ctx, id, who, -1)
		if err != nil {
			return traceMsg{id: id, err: err}
		}
		t, err := eng.Traces.Trace(ctx, id)
		if err != nil {
			return traceMsg{id: id, err: err}
		}
		rec, err := eng.Traces.CaseForTrace(ctx, id)
		if err != nil {
			return traceMsg{id: id, err: err}
		}
		sv, err := eng.Scores.Of(ctx, id)
		if err != nil {
			return traceMsg{id: id, err: err}
		}
		tr, err := eng.Raters.Of(ctx, id)
		if err != nil {
			return traceMsg{id: id, err: err}
		}
		var hits []int
		if search != "" {
			if hits, err = eng.Traces.SearchSteps(ctx, id, search); err != nil {
				return traceMsg{id: id, err: err}
			}
		}
		held, herr := eng.Queue.Reserve(ctx, id, who)
		return traceMsg{id: id, t: t, rec: rec, score: sv, raters: &tr, held: held, reserveErr: herr, since: since,
			hits: hits, hitsFor: search, edited: caseEdited(ctx, eng, rec)}
	}
}

// saveGlossary stores the confirmed gold's definition under term.
func (ts *traceScreen) saveGlossary(term string) tea.Cmd {
	rec := ts.rec
	if rec == nil {
		return nil
	}
	g := rec.Case.Gold
	e := app.GlossaryEntry{Term: term, Definition: g.Definition,
		RequiredFields: slices.Clone(g.RequiredFields), ForbiddenFields: slices.Clone(g.ForbiddenFields)}
	if g.Window != nil {
		e.Calendar = g.Window.Calendar
	}
	eng, ctx, who := ts.eng, ts.ctx, ts.labeler
	return func() tea.Msg {
		return glossaryMsg{term: term, err: eng.Labels.SaveGlossary(ctx, e, who)}
	}
}

func jsonValue(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// setLoaded installs a loaded trace and resets the cursors.
func (ts *traceScreen) setLoaded(msg traceMsg) {
	ts.loading, ts.err = false, msg.err
	if msg.err != nil {
		return
	}
	ts.id, ts.t, ts.rec, ts.score, ts.raters = msg.id, msg.t, msg.rec, msg.score, msg.raters
	ts.edited = msg.edited
	ts.step, ts.stepOff, ts.detailOff, ts.item, ts.itemOff = 0, 0, 0, 0, 0
	ts.marker = -1
	ts.searchHits(msg)
	ts.focus = paneSteps
	ts.invalidate()
	ts.buildItems()
}

// gold returns the current gold (empty when there is no case yet).
func (ts *traceScreen) gold() model.Gold {
	if ts.rec == nil {
		return model.Gold{}
	}
	return ts.rec.Case.Gold
}

// fieldStatus is what the current gold says of a field; it wins over the
// status stored with the score, which may predate the latest edit.
func (ts *traceScreen) fieldStatus(f app.FieldStatus) string {
	g := ts.gold()
	switch {
	case slices.Contains(g.RequiredFields, f.Field):
		return "required"
	case slices.Contains(g.ForbiddenFields, f.Field):
		return "forbidden"
	case ts.rec != nil && (len(g.RequiredFields) > 0 || len(g.ForbiddenFields) > 0):
		return "neutral"
	}
	if f.Status == "" {
		return "neutral"
	}
	return f.Status
}

// buildItems lists the scoring panel's selectable rows: every field used,
// required fields the trace never used, then the evidence of each class.
func (ts *traceScreen) buildItems() {
	ts.items = ts.items[:0]
	used := map[string]bool{}
	if ts.score != nil {
		for _, f := range ts.score.FieldsUsed {
			used[f.Field] = true
			ts.items = append(ts.items, panelItem{field: f.Field, step: -1, status: ts.fieldStatus(f), roles: f.Roles})
		}
	}
	for _, f := range ts.gold().RequiredFields {
		if !used[f] {
			ts.items = append(ts.items, panelItem{field: f, step: -1, status: "missing"})
		}
	}
	if ts.score != nil {
		for _, c := range ts.score.Classes {
			for _, e := range c.Evidence {
				ts.items = append(ts.items, panelItem{step: e.Step, reason: e.Reason, class: string(c.Class)})
			}
		}
	}
	ts.item = clamp(ts.item, 0, max(0, len(ts.items)-1))
}

func (ts *traceScreen) moveStep(d int) {
	if ts.t == nil || len(ts.t.Steps) == 0 {
		return
	}
	n := clamp(ts.step+d, 0, len(ts.t.Steps)-1)
	if n != ts.step {
		ts.step, ts.detailOff, ts.hoff = n, 0, 0
	}
}

func (ts *traceScreen) scrollDetail(d int) {
	ts.detailOff = max(0, ts.detailOff+d)
}

// jumpMarker moves to the next (dir 1) or previous (dir -1) guess marker
// across steps and scrolls the detail to its line.
func (ts *traceScreen) jumpMarker(dir int, detailW int, sty *themes.Styles) bool {
	if ts.score == nil || len(ts.score.Markers) == 0 || ts.t == nil {
		return false
	}
	ms := ts.score.Markers
	// Position of the current view: (step, line).
	curLine := ts.detailOff
	target := -1
	if dir > 0 {
		for i, mk := range ms {
			if mk.Step > ts.step || (mk.Step == ts.step && ts.markerLine(mk, detailW, sty) > curLine) {
				target = i
				break
			}
		}
		if target < 0 {
			target = 0 // wrap around
		}
	} else {
		for i := len(ms) - 1; i >= 0; i-- {
			mk := ms[i]
			if mk.Step < ts.step || (mk.Step == ts.step && ts.markerLine(mk, detailW, sty) < curLine) {
				target = i
				break
			}
		}
		if target < 0 {
			target = len(ms) - 1
		}
	}
	mk := ms[target]
	if mk.Step < 0 || mk.Step >= len(ts.t.Steps) {
		return false
	}
	ts.step, ts.marker = mk.Step, target
	ts.detailOff = ts.markerLine(mk, detailW, sty)
	ts.focus = paneDetail
	return true
}

// evidenceAbout is the evidence text the scorer gave about step i.
func (ts *traceScreen) evidenceAbout(i int) []string {
	if ts.score == nil {
		return nil
	}
	var out []string
	for _, c := range ts.score.Classes {
		for _, e := range c.Evidence {
			if e.Step == i {
				out = append(out, e.Reason)
			}
		}
	}
	return out
}

// markerInStep is the position of the current marker among step i's
// markers, -1 when it is in another step.
func (ts *traceScreen) markerInStep(i int) int {
	if ts.score == nil || ts.marker < 0 || ts.marker >= len(ts.score.Markers) || ts.score.Markers[ts.marker].Step != i {
		return -1
	}
	n := 0
	for _, mk := range ts.score.Markers[:ts.marker] {
		if mk.Step == i {
			n++
		}
	}
	return n
}

// markerLine is the detail line a marker falls on at width w.
func (ts *traceScreen) markerLine(mk app.Marker, w int, sty *themes.Styles) int {
	s := ts.t.Steps[mk.Step]
	if mk.Start > len(s.Text) {
		return 0
	}
	prefix := model.CleanText(s.Text[:mk.Start]) + "x"
	lines := wrapLines(strings.Split(prefix, "\n"), w)
	return len(ts.stepHeader(sty, mk.Step, w)) + len(lines) - 1
}

func (ts *traceScreen) moveIn(d int) {
	switch ts.focus {
	case paneSteps:
		ts.moveStep(d)
	case paneDetail:
		ts.scrollDetail(d)
	case paneScore:
		ts.item = clamp(ts.item+d, 0, max(0, len(ts.items)-1))
	}
}

func (ts *traceScreen) label() model.Label {
	if ts.rec == nil {
		return model.Label{}
	}
	return ts.rec.Case.Label
}

func (ts *traceScreen) currentItem() (panelItem, bool) {
	if ts.item < 0 || ts.item >= len(ts.items) {
		return panelItem{}, false
	}
	return ts.items[ts.item], true
}

// widths splits the screen: steps, detail and (wide screens) score columns.
func (ts *traceScreen) widths(w int) (steps, detail, score int) {
	steps = 26
	if w < 80 {
		steps = max(12, w/3)
	}
	if w >= 100 {
		steps = 32
	}
	if w >= 120 {
		// From 120 columns the scoring pane sits beside the detail, so a
		// SQL step and its evidence show together.
		score = min(56, w/3)
		if w < 140 {
			steps, score = 24, w*2/5
		}
	}
	detail = w - steps - score
	// inner widths: minus borders
	return steps, detail - 2, score
}

func (ts *traceScreen) stepsWidth(w int) int {
	s, _, _ := ts.widths(w)
	return s
}

// stepIcon is a one-cell glyph per step kind.
func stepIcon(k model.StepKind) string {
	switch k {
	case model.KindUser:
		return "❯"
	case model.KindReasoning:
		return "≈"
	case model.KindAssistant:
		return "✎"
	case model.KindToolCall:
		return "→"
	case model.KindToolResult:
		return "←"
	case model.KindClarification:
		return "?"
	case model.KindAnswer:
		return "✓"
	}
	return "·"
}

// toolOf is the tool of a step: its own, or for a result the tool of the
// call it answers.
func (ts *traceScreen) toolOf(s model.Step) string {
	if s.Tool != "" || s.CallID == "" {
		return s.Tool
	}
	for _, c := range ts.t.Steps {
		if c.Kind == model.KindToolCall && c.ID == s.CallID {
			return c.Tool
		}
	}
	return ""
}

// stepSummary is the one-line summary of a step in the list.
func stepSummary(s model.Step, tool string) string {
	switch s.Kind {
	case model.KindToolCall:
		if sql := sqlOf(s.Args); sql != "" {
			return model.CleanLine(s.Tool) + " " + model.CleanLine(sql)
		}
		return model.CleanLine(s.Tool) + " " + model.CleanLine(string(s.Args))
	case model.KindToolResult:
		prefix := ""
		if s.IsError {
			prefix = "error "
		}
		if tool != "" {
			prefix += model.CleanLine(tool) + " "
		}
		return prefix + model.CleanLine(string(s.Result))
	}
	return model.CleanLine(s.Text)
}

// sqlOf finds a SQL statement in a call's arguments ("sql", "query",
// "statement"), or "".
func sqlOf(args json.RawMessage) string {
	if len(args) == 0 || args[0] != '{' {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	for _, k := range []string{"sql", "query", "statement"} {
		var s string
		if raw, ok := m[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// onlySQL reports whether a call's arguments are a SQL statement and
// nothing else (the SQL section then says it all).
func onlySQL(args json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || len(m) != 1 {
		return false
	}
	return sqlOf(args) != ""
}
