package tui

import (
	"context"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// "◐ suggested" is the machine's suggestion only: a case a person changed
// and did not confirm reads "✎ edited" on the trace screen until they
// confirm it, or undo every change (then it is the machine's again).

// caseEdited asks the engine whether a person's edits to the trace's
// case stand; run inside a command. No case, or an error, reads as not
// edited: the label line then says what the store's status says.
func caseEdited(ctx context.Context, eng *app.Engine, rec *app.CaseRecord) bool {
	if rec == nil || rec.Status != model.StatusSuggested {
		return false
	}
	ok, err := eng.Labels.CaseEdited(ctx, rec.Case.CaseID)
	return err == nil && ok
}

// statusText is the label line's status: the store's, or "edited" for a
// suggestion a person changed.
func (ts *traceScreen) statusText(sty *themes.Styles, status model.Status, by string) string {
	if status == model.StatusSuggested && ts.edited {
		return sty.Warn.Render("✎ edited")
	}
	return statusStyle(sty, status)(statusGlyph(status) + " " + string(status) + by)
}
