// Package tui is tracelab's workbench: one root Bubble Tea v2 model that
// owns the size, the theme, the current screen and one dialog, and routes
// messages to plain screen structs (queue, trace, report, drift). All store
// work runs in tea.Cmds; Update and View never touch the database.
// See README.md in this directory for the patterns.
package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"tracelab/app"
	"tracelab/model"
	"tracelab/themes"
)

// Options configure the workbench.
type Options struct {
	// Labeler is the name written with every edit and event.
	Labeler string
	// Theme is "dark", "light", "high-contrast", or "" to detect it from
	// the terminal's background.
	Theme string
	// NoColor draws with attributes only (set from NO_COLOR by runTUI; New
	// also reads NO_COLOR).
	NoColor bool
	// QueuedOnly opens the queue limited to the traces `tracelab sample`
	// queued for labeling.
	QueuedOnly bool
	// PageSize is how many queue rows one store query fetches (default 200).
	PageSize int
	// Where is what the title bar says of the database (the demo: where it
	// keeps its labels); "" shows the database file's name.
	Where string
	// Strict refuses to confirm a label with gaps (correct unknown, not
	// grounded without a class) instead of asking.
	Strict bool
	// StatusTTL is how long a status message stays (default 5s; negative:
	// until the next one, which tests use).
	StatusTTL time.Duration
	// PollChanges is how often the open trace is checked for other
	// labelers' edits (team.go); 0 does not check.
	PollChanges time.Duration
}

// The smallest terminal drawn; the layout is made for 80x24 and up.
const minWidth, minHeight = 40, 10

type screenID int

const (
	screenQueue screenID = iota
	screenTrace
	screenReport
	screenDrift
)

// Model is the root model: the only tea.Model of the workbench.
type Model struct {
	eng  *app.Engine
	opts Options
	ctx  context.Context

	keys       keyMap
	sty        themes.Styles
	themeFixed bool
	help       help.Model

	width, height int
	screen        screenID
	prev          screenID // where esc goes back to
	// screens is every screen by screenID: adding one touches its file,
	// the screenID list and this list in New.
	screens []screen

	// Screens are pointers: View keeps scroll offsets in them, and the
	// copies Bubble Tea makes of the root share one state.
	queue  *queueScreen
	trace  *traceScreen
	report *reportScreen
	drift  *toolDriftScreen

	// dialogs is the stack of open dialogs, the top one on screen and
	// given the keys (a confirm prompt sits over the gold editor).
	dialogs  []dialog
	showHelp bool

	// actions are the labeling keys not saved yet, in the order pressed;
	// the first one is running. quitting waits for them.
	actions  []labelAction
	quitting bool

	watch watchState // the open trace the poll for others' edits watches (team.go)

	status    string
	statusErr bool
	statusSeq int                 // which message a clearStatusMsg is for
	distinct  map[string][]string // filter menu values, loaded once
}

// New builds the root model on an engine.
func New(eng *app.Engine, opts Options) *Model {
	if opts.Labeler == "" {
		opts.Labeler = app.DefaultLabeler()
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 200
	}
	if opts.StatusTTL == 0 {
		opts.StatusTTL = 5 * time.Second
	}
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	m := &Model{eng: eng, opts: opts, ctx: context.Background(), keys: newKeyMap(), help: help.New(),
		width: 80, height: 24}
	pal := themes.Dark()
	switch {
	case opts.NoColor:
		pal, m.themeFixed = themes.NoColor(), true
	case opts.Theme != "":
		if p, err := themes.ByName(opts.Theme); err == nil {
			pal, m.themeFixed = p, true
		} else {
			m.setStatus(err.Error(), true)
		}
	}
	m.applyTheme(pal)
	m.queue = newQueueScreen(opts.PageSize)
	m.queue.filter.QueuedOnly = opts.QueuedOnly
	m.queue.me = opts.Labeler
	m.trace = newTraceScreen()
	m.report = &reportScreen{}
	m.drift = newToolDriftScreen(m.ctx, eng.DriftAcrossRuns)
	m.screens = []screen{screenQueue: m.queue, screenTrace: m.trace, screenReport: m.report, screenDrift: m.drift}
	return m
}

// Run runs the workbench on the alt screen until the user quits or ctx ends.
func Run(ctx context.Context, eng *app.Engine, opts Options) error {
	m := New(eng, opts)
	m.ctx = ctx
	m.drift.ctx = ctx
	_, err := tea.NewProgram(m, tea.WithContext(ctx)).Run()
	// The session is over: the trace it held goes back to the queue now,
	// not when its reservation runs out. A failure here loses no label.
	_ = eng.Release(context.WithoutCancel(ctx), "", m.opts.Labeler)
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // the caller cancelled: every edit is already saved
	}
	return err
}

func (m *Model) applyTheme(p themes.Palette) {
	m.sty = themes.Build(p)
	hs := help.Styles{
		ShortKey: m.sty.HelpKey, ShortDesc: m.sty.HelpDesc, ShortSeparator: m.sty.HelpSep,
		FullKey: m.sty.HelpKey, FullDesc: m.sty.HelpDesc, FullSeparator: m.sty.HelpSep,
		Ellipsis: m.sty.HelpSep,
	}
	m.help.Styles = hs
	if m.trace != nil {
		m.trace.invalidate()
	}
	if m.queue != nil {
		m.queue.rowCache = nil
	}
}

func (m *Model) setStatus(s string, isErr bool) {
	m.status, m.statusErr = model.CleanLine(s), isErr
}

// Init asks for the terminal background (theme detection) and the first page.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.loadPage(m.queue.query(nil), m.queue.seq, false, -1), m.loadCounts(m.queue.filter, m.queue.seq)}
	if !m.themeFixed {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

// Update routes: sizes to every screen, keys to the dialog or global
// bindings then the focused screen, results to their owner by type.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if c, ok := msg.(clearStatusMsg); ok {
		if c.seq == m.statusSeq {
			m.status, m.statusErr = "", false
		}
		return m, nil
	}
	before := m.status
	_, cmd := m.update(msg)
	if m.status != before && m.status != "" && m.opts.StatusTTL > 0 {
		// A new message fades after a while, like lazygit's toasts.
		m.statusSeq++
		seq := m.statusSeq
		cmd = tea.Batch(cmd, tea.Tick(m.opts.StatusTTL, func(time.Time) tea.Msg { return clearStatusMsg{seq} }))
	}
	return m, cmd
}

// clearStatusMsg clears the status line if no newer message replaced it.
type clearStatusMsg struct{ seq int }

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.queue.height = queueListHeight(msg.Height - 2)
		m.queue.scroll()
		m.trace.invalidate()
		return m, nil
	case tea.BackgroundColorMsg:
		if !m.themeFixed {
			if msg.IsDark() {
				m.applyTheme(themes.Dark())
			} else {
				m.applyTheme(themes.Light())
			}
		}
		return m, nil
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.PasteMsg:
		if m.dialog() != nil {
			cmd, act := m.dialog().update(msg)
			return m.handleAction(act, cmd)
		}
		if m.screen == screenQueue && m.queue.searching {
			return m, m.queue.updateSearch(msg)
		}
		return m, nil
	case tea.MouseWheelMsg:
		return m.handleWheel(msg)
	}
	return m.handleResult(msg)
}

func (m *Model) handleWheel(msg tea.MouseWheelMsg) (tea.Model, tea.Cmd) {
	if m.dialog() != nil || m.showHelp {
		return m, nil
	}
	up := msg.Button == tea.MouseWheelUp
	switch m.screen {
	case screenQueue:
		delta := 3
		if up {
			delta = -3
		}
		return m, m.queueMove(delta)
	case screenTrace:
		// The wheel scrolls the pane under the pointer.
		if msg.X < m.trace.stepsWidth(m.width) {
			if up {
				m.trace.moveStep(-1)
			} else {
				m.trace.moveStep(1)
			}
		} else if up {
			m.trace.scrollDetail(-3)
		} else {
			m.trace.scrollDetail(3)
		}
	case screenReport:
		if up {
			m.report.move(-1)
		} else {
			m.report.move(1)
		}
	}
	return m, nil
}

func (m *Model) handleKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	g := m.keys.Global
	if key.Matches(msg, g.ForceQuit) {
		return m, m.quit()
	}
	if m.showHelp {
		// Any key closes help; q still quits.
		m.showHelp = false
		if key.Matches(msg, g.Quit) {
			return m, m.quit()
		}
		return m, nil
	}
	if m.dialog() != nil {
		cmd, act := m.dialog().update(msg)
		return m.handleAction(act, cmd)
	}
	if m.screen == screenQueue && m.queue.searching {
		return m, m.queue.searchKey(m, msg)
	}
	switch {
	case key.Matches(msg, g.Quit):
		return m, m.quit()
	case key.Matches(msg, g.Help):
		m.showHelp = true
		return m, nil
	case key.Matches(msg, g.Report) && m.screen != screenReport:
		m.goTo(screenReport)
		return m, m.loadReport()
	case key.Matches(msg, g.Drift) && m.screen != screenDrift:
		m.goTo(screenDrift)
		if !m.drift.loaded && !m.drift.loading {
			return m, m.drift.refresh()
		}
		return m, nil
	case key.Matches(msg, g.Queue) && m.screen != screenQueue:
		m.goTo(screenQueue)
		return m, m.loadCounts(m.queue.filter, m.queue.seq)
	case key.Matches(msg, g.Trace) && m.screen != screenTrace:
		if m.trace.t == nil && !m.trace.loading {
			m.setStatus("no trace open yet: enter on a queue row opens one", false)
			return m, nil
		}
		m.goTo(screenTrace)
		return m, nil
	}
	return m, m.screens[m.screen].update(m, msg)
}

// goTo switches screens, remembering where esc goes back to.
func (m *Model) goTo(s screenID) {
	if s != m.screen {
		m.prev, m.screen = m.screen, s
	}
}

// back is esc on a screen: to the screen it was opened from (the queue
// when that is the screen itself).
func (m *Model) back() {
	to := m.prev
	if to == m.screen || (to == screenTrace && m.trace.t == nil) {
		to = screenQueue
	}
	m.prev, m.screen = screenQueue, to
}

// View draws a title bar, the current screen and the status bar; a dialog
// or the help sits centered over the screen.
func (m *Model) View() tea.View {
	w, h := m.width, m.height
	if w < minWidth || h < minHeight {
		v := tea.NewView(fmt.Sprintf("tracelab: window too small (%dx%d, needs %dx%d)", w, h, minWidth, minHeight))
		v.AltScreen = true
		return v
	}
	bodyH := h - 2
	body := m.screens[m.screen].view(&m.sty, w, bodyH)
	body = fitBlock(body, w, bodyH)
	switch {
	case m.showHelp:
		body = overlay(body, m.helpView(w, bodyH), w, bodyH)
	default:
		// Every open dialog, bottom first: a question shows over the
		// editor it is about.
		for _, d := range m.dialogs {
			body = overlay(body, d.view(&m.sty, w, bodyH), w, bodyH)
		}
	}
	s := m.titleBar(w) + "\n" + body + "\n" + m.statusBar(w)
	v := tea.NewView(s)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "tracelab"
	return v
}

func (m *Model) titleBar(w int) string {
	var b strings.Builder
	b.WriteString(" tracelab ")
	for id, sc := range m.screens {
		if screenID(id) == m.screen {
			b.WriteString("[" + sc.title() + "]")
		} else {
			b.WriteString(" " + sc.title() + " ")
		}
	}
	left := b.String()
	right := "labeler " + model.CleanLine(m.opts.Labeler) + " "
	where := m.opts.Where
	if where == "" {
		where = filepath.Base(m.eng.Path())
	}
	if where != "" && where != "." && w >= 100 {
		// The left part (name and tabs) always fits; the path gets the rest.
		room := w - lipgloss.Width(left) - lipgloss.Width(right) - 4
		if room > 8 {
			right = ansi.TruncateLeft(model.CleanLine(where), max(0, lipgloss.Width(model.CleanLine(where))-room), "…") + " · " + right
		}
	}
	return m.sty.Title.Render(spread(left, right, w))
}

func (m *Model) currentHelp() helpKeys {
	if m.dialog() != nil {
		return m.dialog().help(m.keys)
	}
	return m.screens[m.screen].help(m.keys)
}

func (m *Model) statusBar(w int) string {
	right := ""
	if m.status != "" {
		right = " " + m.status + " "
	}
	hm := m.help
	hm.SetWidth(max(10, w-lipgloss.Width(right)-2))
	left := " " + hm.ShortHelpView(m.currentHelp().short)
	gap := w - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		left = ansi.Truncate(left, max(0, w-lipgloss.Width(right)-1), "…")
		gap = w - lipgloss.Width(left) - lipgloss.Width(right)
	}
	rs := m.sty.StatusMsg
	if m.statusErr {
		rs = m.sty.StatusErr
	}
	return left + strings.Repeat(" ", max(0, gap)) + rs.Render(right)
}

func (m *Model) helpView(w, h int) string {
	hm := m.help
	hm.SetWidth(0) // measure the natural width first
	groups := m.currentHelp().full
	full := hm.FullHelpView(groups)
	if lipgloss.Width(full) > w-6 && len(groups) > 2 {
		// Too wide: fold the groups into two columns.
		merged := [][]key.Binding{groups[0], {}}
		for _, g := range groups[1:] {
			merged[1] = append(merged[1], g...)
		}
		full = hm.FullHelpView(merged)
	}
	title := m.sty.Accent.Render("Keys: " + m.screenName())
	body := title + "\n\n" + full + "\n\n" + m.sty.Subtle.Render("any key closes")
	return m.sty.Dialog.Render(body)
}

func (m *Model) screenName() string {
	if m.dialog() != nil {
		return m.dialog().title()
	}
	return strings.ToLower(m.screens[m.screen].title())
}
