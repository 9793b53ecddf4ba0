package tui

import (
	"strconv"

	"charm.land/bubbles/v2/key"

	"github.com/tracelab-dev/tracelab/model"
)

// keyMap is every binding of the workbench, grouped by where it applies.
// Dispatch (key.Matches) and help (bubbles/help) read the same values, so
// the help screen can never disagree with what a key does.
type keyMap struct {
	Global globalKeys
	Queue  queueKeys
	Trace  traceKeys
	Report reportKeys
	Editor editorKeys
	Filter filterKeys
	Drift  driftKeys
	Adjud  adjudicateKeys
}

type globalKeys struct {
	Quit, ForceQuit, Help, Back, Queue, Trace, Report, Drift key.Binding
}

type queueKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Open, Search, Filter, Sort, Reverse, NextUnconfirmed, Clear key.Binding
	Disputed, SaveView, JudgeQueue                                                                       key.Binding
}

type traceKeys struct {
	Up, Down, PageUp, PageDown, Focus, PrevMarker, NextMarker, Left, Right key.Binding
	Correct, Grounded, Class, NoClass, Accept, Required, Forbidden         key.Binding
	Edit, Confirm, Undo, Redo, Glossary, Scroll, ScrollUp, Next            key.Binding
	Prev, Adjudicate                                                       key.Binding
	AcceptJudge, NextHit, PrevHit                                          key.Binding
	// ClassKeys are the class keys one by one (1 entity … 5 policy), for
	// dispatch and the full help; Class is all five, for the status bar.
	ClassKeys []key.Binding
}

type reportKeys struct {
	Up, Down, Open, Reload key.Binding
}

// driftKeys are the drift screen's bindings.
type driftKeys struct {
	Up, Down, Open, Reload, Scroll, ScrollUp key.Binding
}

// adjudicateKeys are the adjudication dialog's: pick a rater's label or
// write the final one.
type adjudicateKeys struct {
	Pick, Write, Cancel key.Binding
}

type editorKeys struct {
	Next, Prev, Save, Cancel key.Binding
}

type filterKeys struct {
	Up, Down, Left, Right, Toggle, Apply, Clear, Cancel key.Binding
}

func bind(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// newKeyMap builds the default bindings: vim keys with arrows too.
func newKeyMap() keyMap {
	return keyMap{
		Global: globalKeys{
			Quit:      bind("q", "quit", "q"),
			ForceQuit: bind("ctrl+c", "quit", "ctrl+c"),
			Help:      bind("?", "help", "?"),
			Back:      bind("esc", "back", "esc"),
			Queue:     bind("Q", "queue", "Q"),
			Trace:     bind("T", "open trace", "T"),
			Report:    bind("R", "report", "R"),
			Drift:     bind("D", "drift", "D"),
		},
		Queue: queueKeys{
			Up:              bind("↑/k", "up", "up", "k"),
			Down:            bind("↓/j", "down", "down", "j"),
			PageUp:          bind("pgup/ctrl+u", "page up", "pgup", "ctrl+u", "ctrl+b"),
			PageDown:        bind("pgdn/ctrl+d", "page down", "pgdown", "ctrl+d", "ctrl+f"),
			Top:             bind("g/home", "top", "g", "home"),
			Bottom:          bind("G/end", "bottom", "G", "end"),
			Open:            bind("enter", "open trace", "enter"),
			Search:          bind("/", "search", "/"),
			Filter:          bind("f", "filter", "f"),
			Sort:            bind("s", "sort by", "s"),
			Reverse:         bind("S", "reverse sort", "S"),
			NextUnconfirmed: bind("n", "next unconfirmed", "n"),
			Clear:           bind("esc", "clear filters", "esc"),
			Disputed:        bind("d", "disagreements", "d"),
			JudgeQueue:      bind("m", "judge ≠ scorer or unsure", "m"),
			SaveView:        bind("V", "save view", "V"),
		},
		Trace: traceKeys{
			Up:         bind("↑/k", "up", "up", "k"),
			Down:       bind("↓/j", "down", "down", "j"),
			PageUp:     bind("pgup", "scroll up", "pgup", "ctrl+u"),
			PageDown:   bind("pgdn", "scroll down", "pgdown", "ctrl+d"),
			Focus:      bind("tab", "next pane", "tab"),
			Left:       bind("h/←", "table left", "h", "left"),
			Right:      bind("l/→", "table right", "l", "right"),
			PrevMarker: bind("[", "prev marker", "["),
			NextMarker: bind("]", "next marker", "]"),
			Correct:    bind("c", "correct", "c"),
			Grounded:   bind("g", "grounded", "g"),
			Class:      bind("1-5", "failure class", "1", "2", "3", "4", "5"),
			NoClass:    bind("0", "no class", "0"),
			Accept:     bind("a", "accept suggestions", "a"),
			Required:   bind("r", "field required", "r"),
			Forbidden:  bind("x", "field forbidden", "x"),
			Edit:       bind("e", "edit gold", "e"),
			Confirm:    bind("enter", "confirm / jump", "enter"),
			Undo:       bind("u", "undo", "u"),
			Redo:       bind("U/ctrl+r", "redo", "U", "ctrl+r"),
			Glossary:   bind("G", "save to glossary", "G"),
			Scroll:     bind("J", "scroll detail", "J"),
			ScrollUp:   bind("K", "scroll detail up", "K"),
			Next:       bind("ctrl+n", "next trace", "ctrl+n"),
			Prev:       bind("ctrl+p", "prev trace", "ctrl+p"),
			Adjudicate: bind("A", "adjudicate", "A"),
			// m: the model judge's label, as a accepts the scorer's.
			AcceptJudge: bind("m", "accept judge's label", "m"),
			NextHit:     bind("n", "next search hit", "n"),
			PrevHit:     bind("N", "prev search hit", "N"),
			ClassKeys:   classKeys(),
		},
		Report: reportKeys{
			Up:     bind("↑/k", "up", "up", "k"),
			Down:   bind("↓/j", "down", "down", "j"),
			Open:   bind("enter", "queue of class", "enter"),
			Reload: bind("ctrl+r", "reload", "ctrl+r"),
		},
		Editor: editorKeys{
			Next:   bind("tab/↓", "next field", "tab", "down"),
			Prev:   bind("shift+tab/↑", "prev field", "shift+tab", "up"),
			Save:   bind("ctrl+s", "save", "ctrl+s"),
			Cancel: bind("esc", "cancel", "esc"),
		},
		Drift: driftKeys{
			Up:       bind("↑/k", "up", "up", "k"),
			Down:     bind("↓/j", "down", "down", "j"),
			Open:     bind("enter", "queue of affected cases", "enter"),
			Reload:   bind("ctrl+r", "reload", "ctrl+r"),
			Scroll:   bind("J/pgdn", "scroll details", "J", "pgdown"),
			ScrollUp: bind("K/pgup", "scroll details up", "K", "pgup"),
		},
		Adjud: adjudicateKeys{
			Pick:   bind("1-9", "pick that rater's label", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
			Write:  bind("e", "write the final label", "e"),
			Cancel: bind("esc", "cancel", "esc"),
		},
		Filter: filterKeys{
			Up:     bind("↑/k", "up", "up", "k"),
			Down:   bind("↓/j", "down", "down", "j"),
			Left:   bind("←/h", "prev group", "left", "h", "shift+tab"),
			Right:  bind("→/l", "next group", "right", "l", "tab"),
			Toggle: bind("space", "toggle", "space", "x"),
			Apply:  bind("enter", "apply", "enter"),
			Clear:  bind("c", "clear group", "c"),
			Cancel: bind("esc", "cancel", "esc"),
		},
	}
}

// helpKeys adapts a screen's bindings to bubbles/help.
type helpKeys struct {
	short []key.Binding
	full  [][]key.Binding
}

func (h helpKeys) ShortHelp() []key.Binding  { return h.short }
func (h helpKeys) FullHelp() [][]key.Binding { return h.full }

func (k keyMap) editorHelp() helpKeys {
	e := k.Editor
	return helpKeys{
		short: []key.Binding{e.Next, e.Prev, e.Save, e.Cancel},
		full:  [][]key.Binding{{e.Next, e.Prev, e.Save, e.Cancel}},
	}
}

func (k keyMap) adjudicateHelp() helpKeys {
	a := k.Adjud
	return helpKeys{
		short: []key.Binding{a.Pick, a.Write, a.Cancel},
		full:  [][]key.Binding{{a.Pick, a.Write, a.Cancel}},
	}
}

func (k keyMap) filterHelp() helpKeys {
	f := k.Filter
	return helpKeys{
		short: []key.Binding{f.Up, f.Down, f.Left, f.Right, f.Toggle, f.Apply, f.Clear, f.Cancel},
		full:  [][]key.Binding{{f.Up, f.Down, f.Left, f.Right}, {f.Toggle, f.Apply, f.Clear, f.Cancel}},
	}
}

// globals is every global key, listed in the help of every screen.
func (g globalKeys) all() []key.Binding {
	return []key.Binding{g.Queue, g.Trace, g.Report, g.Drift, g.Back, g.Help, g.Quit, g.ForceQuit}
}

func (k keyMap) driftHelp() helpKeys {
	d, g := k.Drift, k.Global
	return helpKeys{
		short: []key.Binding{g.Help, d.Open, d.Up, d.Down, d.Scroll, d.Reload, g.Back, g.Trace},
		full:  [][]key.Binding{{d.Up, d.Down, d.Scroll, d.ScrollUp, d.Open, d.Reload}, g.all()},
	}
}

func (k keyMap) searchHelp() helpKeys {
	return helpKeys{short: []key.Binding{
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep search")),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear search")),
	}, full: [][]key.Binding{k.Global.all()}}
}

// classKeys binds 1 to 5 to the failure classes in model.Classes' order,
// each with the class's name as its help.
func classKeys() []key.Binding {
	out := make([]key.Binding, len(model.Classes))
	for i, c := range model.Classes {
		k := strconv.Itoa(i + 1)
		out[i] = bind(k, string(c), k)
	}
	return out
}
