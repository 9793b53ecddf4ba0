package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// Saved views: V in the queue saves its filter and search under a name;
// the filter menu (f) lists the saved views in its "views" group, where
// space on one shows it; `tracelab ls --view NAME` lists the same traces.

type (
	// saveViewAction is the name prompt's answer.
	saveViewAction struct{ name string }
	// viewSavedMsg says how saving a view went.
	viewSavedMsg struct {
		name string
		err  error
	}
	// applyViewAction is the filter menu's pick of a saved view.
	applyViewAction struct{ view app.SavedView }
)

func (viewSavedMsg) owner() screenID { return screenQueue }

// viewsGroup names the filter menu's group of saved views.
const viewsGroup = "views"

// saveView saves the queue's filter and search under name.
func (q *queueScreen) saveView(name string) tea.Cmd {
	eng, ctx, f, who := q.eng, q.ctx, q.filter, q.labeler
	return func() tea.Msg {
		return viewSavedMsg{name: name, err: eng.Traces.SaveView(ctx, name, f, who)}
	}
}

func (q *queueScreen) viewSaved(h host, msg viewSavedMsg) {
	if msg.err != nil {
		h.setStatus("saving the view: "+msg.err.Error(), true)
		return
	}
	q.values.values = nil // the filter menu reads the views again
	h.setStatus(fmt.Sprintf("view %q saved: f lists it, tracelab ls --view shows it", model.CleanLine(msg.name)), false)
}

// viewsOf lists the saved views' names, for the filter menu.
func viewsOf(vs []app.SavedView) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Name
	}
	return out
}

// pickView is space in the filter menu's views group: that view's
// filter and search, at once.
func (d *filterDialog) pickView(name string) action {
	for _, v := range d.values.views {
		if v.Name == name {
			return applyViewAction{v}
		}
	}
	return nil
}

// viewPrompt asks for the name a view is saved under.
type viewPrompt struct {
	input textinput.Model
	err   string
}

func newViewPrompt(search string) *viewPrompt {
	ti := textinput.New()
	ti.Prompt = "name: "
	ti.CharLimit = 64
	ti.SetValue(model.CleanLine(search))
	ti.Focus()
	return &viewPrompt{input: ti}
}

func (p *viewPrompt) title() string { return "save view" }
func (p *viewPrompt) help(k keyMap) helpKeys {
	return helpKeys{short: []key.Binding{
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "save")),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}}
}

func (p *viewPrompt) update(msg tea.Msg) (tea.Cmd, action) {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch kp.String() {
		case "esc":
			return nil, closeAction{}
		case "enter":
			name := strings.TrimSpace(p.input.Value())
			if name == "" {
				p.err = "a name is required"
				return nil, nil
			}
			return nil, saveViewAction{name}
		}
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return cmd, nil
}

func (p *viewPrompt) view(sty *themes.Styles, w, h int) string {
	boxW := min(w-4, 64)
	p.input.SetWidth(boxW - 12)
	lines := []string{sty.Accent.Render("Save the queue's filter and search as a view"),
		sty.Subtle.Render("f lists it; tracelab ls --view NAME shows the same traces."), "", p.input.View()}
	if p.err != "" {
		lines = append(lines, sty.InputError.Render("✗ "+p.err))
	}
	return sty.Dialog.Render(strings.Join(lines, "\n"))
}
