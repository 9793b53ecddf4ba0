package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tracelab/themes"
)

// screen is one of the workbench's screens. It owns its keys and the
// commands they start (update gets the root for the engine, the status
// line and the other screens, like gh-dash's program context); the root
// keeps routing, size, the status line and the dialog stack. Results of
// commands come back to their owner by type (results.go).
type screen interface {
	update(m *Model, msg tea.Msg) tea.Cmd
	view(sty *themes.Styles, w, h int) string
	help(k keyMap) helpKeys
	title() string
}

func (q *queueScreen) title() string              { return "Queue" }
func (ts *traceScreen) title() string             { return "Trace" }
func (r *reportScreen) title() string             { return "Report" }
func (d *toolDriftScreen) title() string          { return "Drift" }
func (ts *traceScreen) help(k keyMap) helpKeys    { return k.traceHelp() }
func (r *reportScreen) help(k keyMap) helpKeys    { return k.reportHelp() }
func (d *toolDriftScreen) help(k keyMap) helpKeys { return k.driftHelp() }

func (q *queueScreen) help(k keyMap) helpKeys {
	if q.searching {
		return k.searchHelp()
	}
	return k.queueHelp()
}

func (q *queueScreen) update(m *Model, msg tea.Msg) tea.Cmd {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		return q.key(m, kp)
	}
	return nil
}

func (ts *traceScreen) update(m *Model, msg tea.Msg) tea.Cmd {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		return ts.key(m, kp)
	}
	return nil
}

func (r *reportScreen) update(m *Model, msg tea.Msg) tea.Cmd {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		return r.key(m, kp)
	}
	return nil
}

func (d *toolDriftScreen) update(m *Model, msg tea.Msg) tea.Cmd {
	if kp, ok := msg.(tea.KeyPressMsg); ok && key.Matches(kp, m.keys.Global.Back) {
		m.back()
		return nil
	}
	return d.handle(msg)
}
