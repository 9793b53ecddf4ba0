package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
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
		h.setStatus("saving the view: "+errText(msg.err), true)
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
type viewPrompt struct{ namePrompt }

func newViewPrompt(search string) *viewPrompt {
	p := &viewPrompt{newNamePrompt("name: ", 64, "save view", "a name is required",
		"Save the queue's filter and search as a view", "f lists it; tracelab ls --view NAME shows the same traces.",
		func(name string) action { return saveViewAction{name} })}
	p.input.SetValue(model.CleanLine(search))
	p.input.Focus()
	return p
}
