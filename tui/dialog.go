package tui

import (
	"fmt"
	"slices"
	"strings"
	"tracelab/app"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tracelab/model"
	"tracelab/themes"
)

// dialog is a modal over the current screen. It never acts on the store
// itself: it returns an action value and the root decides what it does.
type dialog interface {
	update(msg tea.Msg) (tea.Cmd, action)
	view(sty *themes.Styles, w, h int) string
	help(k keyMap) helpKeys
	title() string
}

// dialog is the top of the dialog stack, nil when none is open.
func (m *Model) dialog() dialog {
	if len(m.dialogs) == 0 {
		return nil
	}
	return m.dialogs[len(m.dialogs)-1]
}

func (m *Model) pushDialog(d dialog) { m.dialogs = append(m.dialogs, d) }

func (m *Model) popDialog() {
	if len(m.dialogs) > 0 {
		m.dialogs = m.dialogs[:len(m.dialogs)-1]
	}
}

// action is what a dialog asks of the root; nil keeps it open.
type action any

type (
	closeAction       struct{}
	applyFilterAction struct{ f app.Filter }
	saveGoldAction    struct{ edits []app.FieldEdit }
	askAction         struct{ ask *askDialog } // put a question over the dialog
	saveTermAction    struct{ term string }
)

// handleAction carries out what a dialog returned.
func (m *Model) handleAction(act action, cmd tea.Cmd) (tea.Model, tea.Cmd) {
	switch a := act.(type) {
	case nil:
		return m, cmd
	case closeAction:
		m.popDialog()
	case answeredAction:
		m.popDialog()
		return m.handleAction(a.yes, cmd)
	case confirmAnywayAction:
		return m, tea.Batch(cmd, m.enqueue(confirmLabel(a.id, true)))
	case discardAction:
		m.popDialog()
		m.setStatus("changes discarded", false)
	case applyFilterAction:
		m.popDialog()
		search := m.queue.filter.Search
		m.queue.filter = a.f
		m.queue.filter.Search = search
		m.goTo(screenQueue)
		return m, tea.Batch(cmd, m.reloadQueue())
	case saveGoldAction:
		m.popDialog()
		if len(a.edits) == 0 {
			m.setStatus("gold unchanged", false)
			return m, cmd
		}
		return m, tea.Batch(cmd, m.enqueue(editFields(m.trace.id, a.edits)))
	case askAction:
		m.pushDialog(a.ask)
	case saveTermAction:
		m.popDialog()
		return m, tea.Batch(cmd, m.saveGlossary(a.term))
	}
	return m, cmd
}

type glossaryMsg struct {
	term string
	err  error
}

func (m *Model) saveGlossary(term string) tea.Cmd {
	rec := m.trace.rec
	if rec == nil {
		return nil
	}
	g := rec.Case.Gold
	e := app.GlossaryEntry{Term: term, Definition: g.Definition,
		RequiredFields: slices.Clone(g.RequiredFields), ForbiddenFields: slices.Clone(g.ForbiddenFields)}
	if g.Window != nil {
		e.Calendar = g.Window.Calendar
	}
	eng, ctx, who := m.eng, m.ctx, m.opts.Labeler
	return func() tea.Msg {
		return glossaryMsg{term: term, err: eng.SaveGlossary(ctx, e, who)}
	}
}

// distinctMsg carries the values the filter menu offers.
type distinctMsg struct {
	values map[string][]string
	err    error
}

func (m *Model) loadDistinct() tea.Cmd {
	eng, ctx := m.eng, m.ctx
	return func() tea.Msg {
		out := map[string][]string{}
		for _, a := range []string{"server", "tool", "user_role", "outcome"} {
			vs, err := eng.Distinct(ctx, a)
			if err != nil {
				return distinctMsg{err: err}
			}
			out[a] = vs
		}
		return distinctMsg{values: out}
	}
}

// openFilter shows the filter menu, loading its values the first time.
func (m *Model) openFilter() tea.Cmd {
	fd := newFilterDialog(m.queue.filter, m.distinct)
	m.pushDialog(fd)
	if m.distinct == nil {
		return m.loadDistinct()
	}
	return nil
}

// filterDialog edits the queue filter: groups of values with checkboxes.
type filterDialog struct {
	keys     filterKeys
	groups   []filterGroup
	traceIDs []string // the drift screen's choice, kept while its box is ticked
	g, i     int      // current group and value
}

type filterGroup struct {
	name   string
	attr   string // Distinct attribute, "" for fixed values
	values []string
	on     map[string]bool
}

func newFilterDialog(f app.Filter, distinct map[string][]string) *filterDialog {
	classes := append(toStrings(model.Classes), "none")
	statuses := []string{"none", "suggested", "pending", "confirmed"}
	mk := func(name, attr string, values, on []string) filterGroup {
		g := filterGroup{name: name, attr: attr, values: values, on: map[string]bool{}}
		for _, v := range on {
			g.on[v] = true
		}
		return g
	}
	d := &filterDialog{keys: newKeyMap().Filter, groups: []filterGroup{
		mk("class", "", classes, f.Classes),
		mk("status", "", statuses, toStrings(f.Statuses)),
		mk("server", "server", nil, f.Servers),
		mk("tool", "tool", nil, f.Tools),
		mk("role", "user_role", nil, f.Roles),
		mk("outcome", "outcome", toStrings(model.Outcomes), toStrings(f.Outcomes)),
		mk("sample", "", []string{queuedValue}, queuedOn(f.QueuedOnly)),
	}}
	if len(f.TraceIDs) > 0 {
		// The traces the drift screen chose: listed so they can be seen
		// and unticked like any other filter.
		v := fmt.Sprintf("%d chosen from the drift screen", len(f.TraceIDs))
		d.groups = append(d.groups, mk("traces", "", []string{v}, []string{v}))
		d.traceIDs = f.TraceIDs
	}
	d.setDistinct(distinct)
	return d
}

func (d *filterDialog) setDistinct(v map[string][]string) {
	if v == nil {
		return
	}
	for gi := range d.groups {
		g := &d.groups[gi]
		if g.attr == "" {
			continue
		}
		vals := slices.Clone(v[g.attr])
		for s := range g.on { // keep values chosen before but no longer present
			if !slices.Contains(vals, s) {
				vals = append(vals, s)
			}
		}
		if g.attr == "outcome" {
			for _, o := range model.Outcomes {
				if !slices.Contains(vals, string(o)) {
					vals = append(vals, string(o))
				}
			}
		}
		slices.Sort(vals)
		g.values = vals
	}
}

func (d *filterDialog) filter() app.Filter {
	sel := func(g int) []string {
		var out []string
		for _, v := range d.groups[g].values {
			if d.groups[g].on[v] {
				out = append(out, v)
			}
		}
		return out
	}
	f := app.Filter{Classes: sel(0), Servers: sel(2), Tools: sel(3), Roles: sel(4)}
	for _, s := range sel(1) {
		f.Statuses = append(f.Statuses, model.Status(s))
	}
	for _, o := range sel(5) {
		f.Outcomes = append(f.Outcomes, model.Outcome(o))
	}
	f.QueuedOnly = len(sel(6)) > 0
	if len(d.groups) > 7 && len(sel(7)) > 0 {
		f.TraceIDs = d.traceIDs
	}
	return f
}

// queuedValue is the one value of the sample group: only the traces
// `tracelab sample` put in the labeling queue.
const queuedValue = "queued by tracelab sample"

func queuedOn(on bool) []string {
	if on {
		return []string{queuedValue}
	}
	return nil
}

func (d *filterDialog) title() string { return "filter" }

func (d *filterDialog) help(k keyMap) helpKeys { return k.filterHelp() }

func (d *filterDialog) update(msg tea.Msg) (tea.Cmd, action) {
	if dm, ok := msg.(distinctMsg); ok {
		d.setDistinct(dm.values)
		return nil, nil
	}
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	k := d.keys
	g := &d.groups[d.g]
	switch {
	case key.Matches(kp, k.Cancel):
		return nil, closeAction{}
	case key.Matches(kp, k.Apply):
		return nil, applyFilterAction{d.filter()}
	case key.Matches(kp, k.Down):
		d.i = clamp(d.i+1, 0, max(0, len(g.values)-1))
	case key.Matches(kp, k.Up):
		d.i = clamp(d.i-1, 0, max(0, len(g.values)-1))
	case key.Matches(kp, k.Right):
		d.g, d.i = (d.g+1)%len(d.groups), 0
	case key.Matches(kp, k.Left):
		d.g, d.i = (d.g+len(d.groups)-1)%len(d.groups), 0
	case key.Matches(kp, k.Toggle):
		if d.i < len(g.values) {
			v := g.values[d.i]
			g.on[v] = !g.on[v]
		}
	case key.Matches(kp, k.Clear):
		g.on = map[string]bool{}
	}
	return nil, nil
}

func (d *filterDialog) view(sty *themes.Styles, w, h int) string {
	boxW := min(w-4, 72)
	leftW := 12
	rightW := boxW - leftW - 5
	listH := max(3, min(h-8, 14))
	var left []string
	for gi, g := range d.groups {
		n := 0
		for _, on := range g.on {
			if on {
				n++
			}
		}
		label := g.name
		if n > 0 {
			label += " (" + itoa(n) + ")"
		}
		if gi == d.g {
			left = append(left, sty.Selected.Render(cell(label, leftW)))
		} else {
			left = append(left, sty.Text.Render(cell(label, leftW)))
		}
	}
	g := d.groups[d.g]
	var right []string
	if len(g.values) == 0 {
		right = append(right, sty.Subtle.Render("loading…"))
	}
	off := 0
	if d.i >= listH {
		off = d.i - listH + 1
	}
	for i := off; i < len(g.values) && len(right) < listH; i++ {
		v := g.values[i]
		box := "[ ] "
		if g.on[v] {
			box = "[x] "
		}
		text := cell(box+model.CleanLine(v), rightW)
		switch {
		case i == d.i:
			right = append(right, sty.Selected.Render(text))
		case g.on[v]:
			right = append(right, sty.OK.Render(text))
		default:
			right = append(right, sty.Text.Render(text))
		}
	}
	body := joinH(fitBlock(strings.Join(left, "\n"), leftW, listH), fitBlock("", 2, listH), fitBlock(strings.Join(right, "\n"), rightW, listH))
	hint := sty.Subtle.Render("space toggle · ←/→ group · c clear · enter apply · esc cancel")
	return sty.Dialog.Render(sty.Accent.Render("Filter the queue") + "\n\n" + body + "\n\n" + cell(hint, boxW-4))
}

// askDialog is a yes/no question over the screen (or over another
// dialog): enter (or y) does yes, esc (or n) closes it and nothing happens.
type askDialog struct {
	question string
	lines    []string
	hint     string
	yes      action
}

// confirmAnywayAction confirms a case whose label has gaps, after asking.
type confirmAnywayAction struct{ id string }

// discardAction closes the dialog under the prompt, dropping its changes.
type discardAction struct{}

func newAskDialog(question string, lines []string, hint string, yes action) *askDialog {
	return &askDialog{question: question, lines: lines, hint: hint, yes: yes}
}

func (d *askDialog) title() string { return "question" }

func (d *askDialog) help(keyMap) helpKeys {
	return helpKeys{short: []key.Binding{
		key.NewBinding(key.WithKeys("enter", "y"), key.WithHelp("enter", "yes")),
		key.NewBinding(key.WithKeys("esc", "n"), key.WithHelp("esc", "no")),
	}}
}

func (d *askDialog) update(msg tea.Msg) (tea.Cmd, action) {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch kp.String() {
	case "enter", "y":
		return nil, answeredAction{d.yes}
	case "esc", "n", "q":
		return nil, closeAction{}
	}
	return nil, nil
}

// answeredAction closes the prompt and then carries out yes.
type answeredAction struct{ yes action }

func (d *askDialog) view(sty *themes.Styles, w, h int) string {
	boxW := min(w-4, 72)
	out := []string{sty.Accent.Render(d.question), ""}
	for _, l := range d.lines {
		out = append(out, sty.Warn.Render("• ")+sty.Text.Render(cell(model.CleanLine(l), boxW-8)))
	}
	out = append(out, "", sty.Subtle.Render(cell(d.hint, boxW-4)))
	return sty.Dialog.Render(strings.Join(out, "\n"))
}
