package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

func (r *reportScreen) key(h host, msg tea.KeyPressMsg) tea.Cmd {
	cmd, _ := r.commands().dispatch(h, msg)
	return cmd
}

func (r *reportScreen) commands() commands {
	if r.cmds == nil {
		k := r.keys.Report
		r.cmds = commands{
			{key: k.Up, run: func(host, tea.KeyPressMsg) tea.Cmd { r.move(-1); return nil }},
			{key: k.Down, run: func(host, tea.KeyPressMsg) tea.Cmd { r.move(1); return nil }},
			{key: k.Open, run: func(host, tea.KeyPressMsg) tea.Cmd {
				c := string(model.Classes[r.cursor])
				return func() tea.Msg {
					return queueFilterMsg{f: app.Filter{Classes: []string{c}}, status: "queue filtered to " + c}
				}
			}},
			{key: k.Reload, run: func(host, tea.KeyPressMsg) tea.Cmd { return r.load() }},
			{key: r.keys.Global.Back, run: func(h host, _ tea.KeyPressMsg) tea.Cmd { return h.back() }},
		}
	}
	return r.cmds
}

func (r *reportScreen) help(k keyMap) helpKeys {
	rk, g := k.Report, k.Global
	short := []key.Binding{g.Help, rk.Open, rk.Up, rk.Down, rk.Reload, g.Back, g.Trace, g.Quit}
	return r.commands().help(short, g.all())
}
