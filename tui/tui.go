// Package tui is tracelab's workbench: one root Bubble Tea v2 model that
// owns the size, the theme, the status line and a stack of dialogs, and
// routes messages to screens (queue, trace, report, drift) that own their
// keys and commands. All store
// work runs in tea.Cmds; Update and View never touch the database.
// See README.md in this directory for the patterns.
package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
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
	// WatchStore is how often the queue looks for traces another process
	// (tracelab serve, an import) wrote (live.go); 0 does not look.
	WatchStore time.Duration
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

// Model is the root model: the only tea.Model of the workbench. It keeps
// the size, the theme, the status line, the dialog stack and the list of
// screens, and routes messages; the screens do the rest (screens.go).
type Model struct {
	env  *env
	opts Options

	sty        themes.Styles
	themeFixed bool
	help       help.Model

	width, height int
	screen        screenID
	prev          screenID // where esc goes back to
	// tabs is every screen by screenID with the key that shows it.
	tabs []tab

	// The screens by type, for tests and for New's wiring; the root
	// reaches them through tabs and host only.
	queue  *queueScreen
	trace  *traceScreen
	report *reportScreen
	drift  *toolDriftScreen

	// dialogs is the stack of open dialogs, the top one on screen and
	// given the keys (a confirm prompt sits over the gold editor).
	dialogs  []openDialog
	showHelp bool
	// quitRequested: q was pressed while edits were being saved; the
	// program ends when the last one lands.
	quitRequested bool

	status    string
	statusErr bool
	statusSeq int // which message a clearStatusMsg is for
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
	e := &env{eng: eng, ctx: context.Background(), labeler: opts.Labeler, keys: newKeyMap(), strict: opts.Strict,
		poll: opts.PollChanges, watch: opts.WatchStore}
	m := &Model{env: e, opts: opts, help: help.New(), width: 80, height: 24}
	e.sty = &m.sty
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
	if eng.ReadOnly() {
		// Said before the first key, not after the first refused write.
		m.setStatus(readOnlyWhy, true)
	}
	m.queue = newQueueScreen(e, opts.PageSize)
	m.queue.filter.QueuedOnly = opts.QueuedOnly
	m.trace = newTraceScreen(e)
	m.report = &reportScreen{env: e}
	m.drift = newToolDriftScreen(e.ctx, eng.Drift.AcrossRuns)
	g := e.keys.Global
	m.tabs = []tab{screenQueue: {m.queue, g.Queue}, screenTrace: {m.trace, g.Trace},
		screenReport: {m.report, g.Report}, screenDrift: {m.drift, g.Drift}}
	return m
}

// Run runs the workbench on the alt screen until the user quits or ctx ends.
func Run(ctx context.Context, eng *app.Engine, opts Options) error {
	m := New(eng, opts)
	m.env.ctx = ctx
	m.drift.ctx = ctx
	// Before the first screen, not in a command beside it: the screen's
	// reads would take a second, cold connection from the pool. Its n
	// runs in the queue as it opens.
	_ = eng.Labels.Warm(ctx, m.queue.query(nil))
	_, err := tea.NewProgram(m, tea.WithContext(ctx)).Run()
	// The session is over: the trace it held goes back to the queue now,
	// not when its reservation runs out. A failure here loses no label.
	_ = eng.Queue.Release(context.WithoutCancel(ctx), "", m.env.labeler)
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
}

func (m *Model) setStatus(s string, isErr bool) {
	// An error may carry a team database's URL: never its password.
	s = model.CleanLine(app.RedactSecrets(s))
	if e := m.env.editErr; e != "" && !strings.HasPrefix(s, e) {
		// An edit's error stays in front of what comes after it (a
		// background reload's error, a note) until it fades.
		s, isErr = e+" · "+s, true
	}
	m.status, m.statusErr = s, isErr
}

// The rest of host.

func (m *Model) current() screenID { return m.screen }
func (m *Model) quitting() bool    { return m.quitRequested }

// show switches screens, remembering where esc goes back to; the screen
// shown gets a shownMsg.
func (m *Model) show(s screenID) tea.Cmd {
	if s == m.screen {
		return nil
	}
	m.prev, m.screen = m.screen, s
	return m.tabs[s].update(m, shownMsg{})
}

// back is esc on a screen: to the screen it was opened from (the queue
// when that is the screen itself or cannot be shown).
func (m *Model) back() tea.Cmd {
	to := m.prev
	if g, ok := m.tabs[to].screen.(gate); to == m.screen || (ok && g.unavailable() != "") {
		to = screenQueue
	}
	cmd := m.show(to)
	m.prev = screenQueue
	return cmd
}

// Init asks for the terminal background (theme detection) and shows the
// queue (its first page and counts).
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.tabs[m.screen].update(m, shownMsg{})}
	if m.env.watch > 0 {
		cmds = append(cmds, func() tea.Msg { return storeTickMsg{} })
	}
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
			m.env.editErr = ""
		}
		return m, nil
	}
	before := m.status
	cmd := m.route(msg)
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

func (m *Model) route(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		return m.broadcast(msg)
	case tea.BackgroundColorMsg:
		if m.themeFixed {
			return nil
		}
		if msg.IsDark() {
			m.applyTheme(themes.Dark())
		} else {
			m.applyTheme(themes.Light())
		}
		return m.broadcast(themeMsg{})
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.MouseWheelMsg:
		if m.dialog() != nil || m.showHelp {
			return nil
		}
		return m.tabs[m.screen].update(m, msg)
	case owned:
		return m.tabs[msg.owner()].update(m, msg)
	}
	// Everything else (pastes, cursor blinks, a dialog's own loads) goes
	// to the dialog on top, else to the screen on.
	if m.dialog() != nil {
		return m.dialogUpdate(msg)
	}
	return m.tabs[m.screen].update(m, msg)
}

// broadcast gives msg to every screen.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	cmds := make([]tea.Cmd, len(m.tabs))
	for i, t := range m.tabs {
		cmds[i] = t.update(m, msg)
	}
	return tea.Batch(cmds...)
}

// quit ends the program once every edit a screen holds is saved; with
// edits waiting for the database it asks first whether to drop them.
func (m *Model) quit() tea.Cmd {
	if w := m.env.eng.Labels.EditsWaiting(); w.N > 0 {
		if d, ok := m.dialog().(*askDialog); ok && d.yes == (dropEditsAction{}) {
			return nil // the question is on screen
		}
		// No quitRequested: esc on the question goes on labeling, and the
		// program must not end when the edits land.
		m.pushDialog(screenTrace, newAskDialog(fmt.Sprintf("Quit and drop %s waiting for the database?", plural(w.N, "edit")),
			[]string{app.RedactSecrets(w.Err.Error()), "they are tried again until the server answers while the workbench stays open"},
			"enter drops them and quits · esc goes back (they keep waiting)", dropEditsAction{}))
		return nil
	}
	n := 0
	for _, t := range m.tabs {
		if s, ok := t.screen.(saver); ok {
			n += s.unsaved()
		}
	}
	if n == 0 {
		return tea.Quit
	}
	m.quitRequested = true
	m.setStatus(fmt.Sprintf("saving %d key(s) before quitting…", n), false)
	return nil
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	g := m.env.keys.Global
	if key.Matches(msg, g.ForceQuit) {
		return m.quit()
	}
	if m.showHelp {
		// Any key closes help; q still quits.
		m.showHelp = false
		if key.Matches(msg, g.Quit) {
			return m.quit()
		}
		return nil
	}
	if m.dialog() != nil {
		return m.dialogUpdate(msg)
	}
	cur := m.tabs[m.screen]
	if t, ok := cur.screen.(typist); ok && t.typing() {
		return cur.update(m, msg)
	}
	switch {
	case key.Matches(msg, g.Quit):
		return m.quit()
	case key.Matches(msg, g.Help):
		m.showHelp = true
		return nil
	case m.env.opening || m.trace.loading:
		// A trace is opening: the keys are for it, whichever screen is
		// still on (the queue, until it lands). It holds them and runs
		// them once loaded; esc gives up opening it.
		return m.tabs[screenTrace].update(m, msg)
	}
	for id, t := range m.tabs {
		if screenID(id) == m.screen || !key.Matches(msg, t.key) {
			continue
		}
		if g, ok := t.screen.(gate); ok {
			if why := g.unavailable(); why != "" {
				m.setStatus(why, false)
				return nil
			}
		}
		return m.show(screenID(id))
	}
	return cur.update(m, msg)
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
	body := m.tabs[m.screen].view(&m.sty, w, bodyH)
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
	v := tea.NewView(safeScreen(s))
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "tracelab"
	return v
}

func (m *Model) titleBar(w int) string {
	var b strings.Builder
	b.WriteString(" tracelab ")
	for id, sc := range m.tabs {
		if screenID(id) == m.screen {
			b.WriteString("[" + sc.title() + "]")
		} else {
			b.WriteString(" " + sc.title() + " ")
		}
	}
	left := b.String()
	right := "labeler " + model.CleanLine(m.env.labeler) + " "
	if m.env.eng.ReadOnly() {
		right = "read-only · " + right
	}
	where := m.opts.Where
	if where == "" {
		where = filepath.Base(m.env.eng.Path())
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
		return m.dialog().help(m.env.keys)
	}
	return m.tabs[m.screen].help(m.env.keys)
}

func (m *Model) statusBar(w int) string {
	right := ""
	if m.status != "" {
		right = " " + m.status + " "
	}
	statusErr := m.statusErr
	if wait := m.env.eng.Labels.EditsWaiting(); wait.N > 0 {
		// Nothing hides edits that are not written yet.
		right = " " + waitingLine(wait) + " "
		statusErr = true
	}
	hm := m.help
	short, quit := m.currentHelp().short, ""
	if n := len(short); n > 1 && slices.Equal(short[n-1].Keys(), m.env.keys.Global.Quit.Keys()) {
		// q quit stays on a narrow bar: the keys before it give way.
		quit = hm.Styles.ShortSeparator.Inline(true).Render(hm.ShortSeparator) + hm.ShortHelpView(short[n-1:])
		short = short[:n-1]
	}
	room := max(10, w-lipgloss.Width(right)-2-lipgloss.Width(quit))
	hm.SetWidth(room)
	left := " " + ansi.Truncate(hm.ShortHelpView(short), room, "…") + quit
	gap := w - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		left = ansi.Truncate(left, max(0, w-lipgloss.Width(right)-1), "…")
		gap = w - lipgloss.Width(left) - lipgloss.Width(right)
	}
	rs := m.sty.StatusMsg
	if statusErr {
		rs = m.sty.StatusErr
	}
	return left + strings.Repeat(" ", max(0, gap)) + rs.Render(right)
}

// helpView is the full help over the screen, laid out in the room there
// is (help.go): at 80x24 every key of the trace screen shows, the five
// classes and q quit among them.
func (m *Model) helpView(w, h int) string {
	title := m.sty.Accent.Render("Keys: " + m.screenName())
	// Border and padding take 4 columns and 2 lines; the title, the
	// footer and the blank lines between 4 more, given up when cramped.
	room, chrome := w-6, 4
	if h-2-chrome < 8 {
		chrome = 1
	}
	lines, hidden := helpColumns(&m.sty, m.currentHelp().full, room, h-2-chrome)
	foot := "any key closes"
	if hidden > 0 {
		foot = fmt.Sprintf("%d more in a larger window · any key closes", hidden)
	}
	body := title + "\n"
	if chrome > 1 {
		body += "\n" + strings.Join(lines, "\n") + "\n\n" + m.sty.Subtle.Render(foot)
	} else {
		body += strings.Join(lines, "\n")
	}
	return m.sty.Dialog.Render(body)
}

func (m *Model) screenName() string {
	if m.dialog() != nil {
		return m.dialog().title()
	}
	return strings.ToLower(m.tabs[m.screen].title())
}

// ownStyle matches the SGR sequences the themes draw with (colors,
// bold, underline…): the only escape sequences a screen may send.
var ownStyle = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// safeScreen is the one sanitizer every screen passes before it reaches
// the terminal: between the workbench's own styles, nothing that came
// from a trace can move the cursor, change the title, open a hyperlink
// (OSC 8), send a DCS, or reorder text with a bidi control, whichever
// view forgot to clean a field (the step list printed tool names raw).
func safeScreen(s string) string {
	locs := ownStyle.FindAllStringIndex(s, -1)
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, l := range locs {
		b.WriteString(model.StripControls(s[at:l[0]]))
		b.WriteString(s[l[0]:l[1]])
		at = l[1]
	}
	b.WriteString(model.StripControls(s[at:]))
	return b.String()
}
