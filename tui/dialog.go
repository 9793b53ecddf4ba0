package tui

import (
	"fmt"
	"github.com/tracelab-dev/tracelab/app"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// dialog is a modal over the current screen. It never acts on the store
// itself: it returns an action value; the root carries out the ones about
// the stack (close, ask, discard) and gives any other to the screen that
// opened the dialog.
type dialog interface {
	update(msg tea.Msg) (tea.Cmd, action)
	view(sty *themes.Styles, w, h int) string
	help(k keyMap) helpKeys
	title() string
}

// openDialog is a dialog on the stack with the screen that opened it,
// which gets what it returns.
type openDialog struct {
	dialog
	owner screenID
}

// dialog is the top of the dialog stack, nil when none is open.
func (m *Model) dialog() dialog {
	if len(m.dialogs) == 0 {
		return nil
	}
	return m.dialogs[len(m.dialogs)-1].dialog
}

func (m *Model) pushDialog(owner screenID, d dialog) {
	m.dialogs = append(m.dialogs, openDialog{d, owner})
}

// popDialog closes the top dialog and says who opened it.
func (m *Model) popDialog() screenID {
	if len(m.dialogs) == 0 {
		return m.screen
	}
	top := m.dialogs[len(m.dialogs)-1]
	m.dialogs = m.dialogs[:len(m.dialogs)-1]
	return top.owner
}

// action is what a dialog asks of the root; nil keeps it open.
type action any

// The actions the root carries out itself, on the stack; any other action
// closes the dialog and goes to the screen that opened it.
type (
	closeAction struct{}
	askAction   struct{ ask *askDialog } // put a question over the dialog
	// answeredAction closes the question and then carries out yes.
	answeredAction struct{ yes action }
	// discardAction closes the dialog under the question, dropping its changes.
	discardAction struct{}
)

// dialogUpdate gives msg to the top dialog and carries out what it returns.
func (m *Model) dialogUpdate(msg tea.Msg) tea.Cmd {
	cmd, act := m.dialog().update(msg)
	return tea.Batch(cmd, m.handleAction(act))
}

// handleAction carries out what a dialog returned.
func (m *Model) handleAction(act action) tea.Cmd {
	switch a := act.(type) {
	case nil:
		return nil
	case closeAction:
		m.popDialog()
	case askAction:
		owner := m.screen
		if len(m.dialogs) > 0 {
			owner = m.dialogs[len(m.dialogs)-1].owner
		}
		m.pushDialog(owner, a.ask)
	case answeredAction:
		owner := m.popDialog()
		if _, ok := a.yes.(discardAction); ok {
			return m.handleAction(a.yes)
		}
		return m.tabs[owner].update(m, a.yes)
	case discardAction:
		m.popDialog()
		m.setStatus("changes discarded", false)
	default:
		return m.tabs[m.popDialog()].update(m, act)
	}
	return nil
}

// distinctMsg carries the values the filter menu offers; it goes to the
// dialog on top (the filter menu that asked for them).
type distinctMsg struct {
	values map[string][]string
	views  []app.SavedView
	err    error
}

// filterDialog edits the queue filter: groups of values with checkboxes.
type filterDialog struct {
	keys     filterKeys
	values   *filterValues // the queue's, loaded once
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

// filterValues are the values the filter menu offers per attribute,
// loaded the first time it opens and kept by the queue.
type filterValues struct {
	values map[string][]string
	views  []app.SavedView // views.go
	err    error
}

// newFilterDialog opens the menu on filter f; disputed is how many traces
// under it await adjudication (the disagreements group's count).
func newFilterDialog(f app.Filter, values *filterValues, disputed int) *filterDialog {
	classes := append(toStrings(model.Classes), "none")
	statuses := []string{"none", "suggested", "pending", "confirmed"}
	mk := func(name, attr string, values, on []string) filterGroup {
		g := filterGroup{name: name, attr: attr, values: values, on: map[string]bool{}}
		for _, v := range on {
			g.on[v] = true
		}
		return g
	}
	d := &filterDialog{keys: newKeyMap().Filter, values: values, groups: []filterGroup{
		mk("class", "", classes, f.Classes),
		mk("status", "", statuses, toStrings(f.Statuses)),
		mk("server", "server", nil, f.Servers),
		mk("tool", "tool", nil, f.Tools),
		mk("role", "user_role", nil, f.Roles),
		mk("outcome", "outcome", toStrings(model.Outcomes), toStrings(f.Outcomes)),
		mk("sample", "", []string{queuedValue}, queuedOn(f.QueuedOnly)),
		mk("disagree", "", []string{disputedValue(disputed)}, disputedOn(f.Disputed, disputed)),
		mk(viewsGroup, "", viewsOf(values.views), nil),
	}}
	if len(f.TraceIDs) > 0 {
		// The traces the drift screen chose: listed so they can be seen
		// and unticked like any other filter.
		v := fmt.Sprintf("%d chosen from the drift screen", len(f.TraceIDs))
		d.groups = append(d.groups, mk("traces", "", []string{v}, []string{v}))
		d.traceIDs = f.TraceIDs
	}
	d.setDistinct(values.values)
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
	f.Disputed = len(sel(7)) > 0
	if len(d.groups) > 9 && len(sel(9)) > 0 {
		f.TraceIDs = d.traceIDs
	}
	return f
}

// disputedValue is the one value of the disagreements group, with how
// many traces it holds: raters disagree and nobody adjudicated yet.
func disputedValue(n int) string { return fmt.Sprintf("raters disagree, not adjudicated (%d)", n) }

func disputedOn(on bool, n int) []string {
	if on {
		return []string{disputedValue(n)}
	}
	return nil
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
		d.values.values, d.values.views, d.values.err = dm.values, dm.views, dm.err
		d.setDistinct(dm.values)
		d.groups[8].values = viewsOf(dm.views)
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
	case key.Matches(kp, k.Toggle) && g.name == viewsGroup:
		if d.i < len(g.values) {
			return nil, d.pickView(g.values[d.i])
		}
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
	switch {
	case len(g.values) == 0 && d.values.err != nil:
		right = append(right, sty.Error.Render(cell("cannot list the values: "+model.CleanLine(d.values.err.Error()), rightW)))
	case len(g.values) == 0:
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

func (d *askDialog) view(sty *themes.Styles, w, h int) string {
	boxW := min(w-4, 72)
	out := []string{sty.Accent.Render(d.question), ""}
	for _, l := range d.lines {
		out = append(out, sty.Warn.Render("• ")+sty.Text.Render(cell(model.CleanLine(l), boxW-8)))
	}
	out = append(out, "", sty.Subtle.Render(cell(d.hint, boxW-4)))
	return sty.Dialog.Render(strings.Join(out, "\n"))
}
