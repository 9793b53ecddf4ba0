package tui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/themes"
)

// screen is one of the workbench's screens. It owns its keys, the
// commands they start and the results of those commands: update gets
// every message meant for it (its keys while it is on screen, resizes and
// theme changes, the messages that name it as their owner, and what the
// dialogs it opened return). It reaches the root only through host.
type screen interface {
	update(h host, msg tea.Msg) tea.Cmd
	view(sty *themes.Styles, w, h int) string
	help(k keyMap) helpKeys
	title() string
}

// host is what a screen may ask of the root: the status line, which
// screen is on, the dialog stack and whether the program is quitting. The
// root keeps nothing else; the engine is in env.
type host interface {
	setStatus(s string, isErr bool)
	current() screenID
	// show puts a screen on (it gets a shownMsg); back goes where the
	// current one was opened from.
	show(id screenID) tea.Cmd
	back() tea.Cmd
	// pushDialog opens a dialog for owner, which gets what it returns.
	pushDialog(owner screenID, d dialog)
	quitting() bool
}

// env is what the screens and their commands share: the engine, the
// context commands run under, who labels, the key bindings and the styles
// (the root's, rebuilt in place when the theme changes). One value, by
// pointer, so Run's context reaches every screen.
type env struct {
	eng     *app.Engine
	ctx     context.Context
	labeler string
	keys    keyMap
	sty     *themes.Styles
	strict  bool
	// poll is how often the open trace is checked for other labelers'
	// edits (Options.PollChanges; team.go).
	poll time.Duration
	// watch is how often the queue looks for traces other processes
	// wrote (Options.WatchStore; live.go).
	watch time.Duration
	// stepSearch is the queue's search: the trace screen's n / N jump
	// between the steps that hold it (search.go).
	stepSearch string
	// opening: a trace was asked to open and has not loaded yet; the
	// keys pressed meanwhile are for it (trace_keys.go).
	opening bool
	// editErr is the last labeling action's error: the status line keeps
	// it in front until it fades (actions.go).
	editErr string
}

// tab is one entry of the list of screens: the screen and the global key
// that shows it. Adding a screen touches its file, the screenID list and
// this list (in New).
type tab struct {
	screen
	key key.Binding
}

// owned is a message for one screen: the result of a command it started,
// or a request another screen sends it (open this trace, filter the
// queue). The root routes it by owner, whichever screen is on.
type owned interface{ owner() screenID }

// shownMsg tells a screen it has just been put on screen: the queue reads
// its rows again, the report reloads, the drift screen loads once.
type shownMsg struct{}

// themeMsg tells every screen the styles changed (caches go).
type themeMsg struct{}

// Optional parts of a screen, asked for by the root.
type (
	// gate: a screen that cannot be shown yet says why ("" when it can).
	gate interface{ unavailable() string }
	// typist: a screen taking text gets every key but ctrl+c first.
	typist interface{ typing() bool }
	// saver: a screen with edits not saved yet; q waits for them.
	saver interface{ unsaved() int }
)

func (q *queueScreen) title() string              { return "Queue" }
func (ts *traceScreen) title() string             { return "Trace" }
func (r *reportScreen) title() string             { return "Report" }
func (d *toolDriftScreen) title() string          { return "Drift" }
func (d *toolDriftScreen) help(k keyMap) helpKeys { return k.driftHelp() }
