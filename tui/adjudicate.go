package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// Several raters per trace: the trace screen shows each rater's label side
// by side (a column per rater, a row per aspect, the aspects the people
// disagree on marked ≠), and A opens the adjudication dialog: 1..n makes
// that rater's label the final one, e writes the final label with a note
// in the label editor. Both become app.Engine.Adjudicate, a labeling action
// queued like every other key: in the event log, undone with u.

// ratersMsg carries the raters of a trace (app.RaterService.Of).
type ratersMsg struct {
	id  string
	tr  app.TraceRaters
	err error
}

func (ratersMsg) owner() screenID { return screenTrace }

// What the adjudication dialog and the label editor return.
type (
	adjudicateAction struct {
		id  string
		req app.AdjudicateRequest
	}
	// writeLabelAction asks for the label editor (e in the dialog).
	writeLabelAction struct{ id string }
)

// loadRaters reads the raters of a trace.
func (ts *traceScreen) loadRaters(id string) tea.Cmd {
	eng, ctx := ts.eng, ts.ctx
	return func() tea.Msg {
		tr, err := eng.Raters.Of(ctx, id)
		return ratersMsg{id: id, tr: tr, err: err}
	}
}

// ratersShown says whether the raters block is drawn: when two raters
// besides tracelab labeled the trace, or it is disputed or adjudicated. A
// trace with one labeler keeps its room for the steps.
func (ts *traceScreen) ratersShown() bool {
	tr := ts.raters
	if tr == nil {
		return false
	}
	if tr.Final.Disputed || tr.Adjudication != nil {
		return true
	}
	return len(people(tr.Labels)) >= 2
}

// people are the raters that are not tracelab's own suggestion.
func people(ls []app.RaterLabel) []app.RaterLabel {
	var out []app.RaterLabel
	for _, l := range ls {
		if l.Kind != model.RaterMachine {
			out = append(out, l)
		}
	}
	return out
}

// raterWhen is when a rater last wrote, short or long by the room.
func raterWhen(l app.RaterLabel, wide bool) string {
	if l.Kind == model.RaterMachine {
		if wide {
			return "suggestion"
		}
		return ""
	}
	at, err := time.Parse(time.RFC3339Nano, l.UpdatedAt)
	if err != nil {
		return model.CleanLine(l.UpdatedAt)
	}
	if wide {
		return at.UTC().Format("2006-01-02 15:04")
	}
	return at.UTC().Format("01-02 15:04")
}

func ynMark(sty *themes.Styles, b *bool) string {
	switch {
	case b == nil:
		return sty.Subtle.Render("?")
	case *b:
		return sty.OK.Render("✓")
	}
	return sty.Error.Render("✗")
}

func classRating(sty *themes.Styles, l model.Label) string {
	c, ok := l.ClassRating()
	switch {
	case !ok:
		return sty.Subtle.Render("?")
	case c == "none":
		return sty.Subtle.Render("none")
	}
	return classStyle(sty, c)(c)
}

func fieldsRating(sty *themes.Styles, f *model.FieldSets) string {
	if f == nil {
		return sty.Subtle.Render("–")
	}
	return sty.Text.Render(fmt.Sprintf("%d req, %d forb", len(f.Required), len(f.Forbidden)))
}

// ratersLines is the raters block at width w: a header line with each
// rater's number, name and when, a line per aspect, the notes when tall is
// set, and a line saying what is open or how it was settled.
func (ts *traceScreen) ratersLines(sty *themes.Styles, w int, tall bool) []string {
	tr := ts.raters
	ls := tr.Labels
	const nameW = 11
	colW := 12
	if len(ls) > 0 {
		colW = max(12, (w-nameW-1)/len(ls))
	}
	shown := min(len(ls), max(1, (w-nameW-1)/colW))
	disputed := map[string]bool{}
	for _, a := range tr.Final.Aspects {
		disputed[a] = true
	}
	row := func(name, aspect string, val func(app.RaterLabel) string) string {
		label := name
		st := sty.Subtle
		if disputed[aspect] {
			label += " ≠"
			st = sty.Warn
		}
		s := " " + st.Render(cell(label, nameW-1))
		for _, l := range ls[:shown] {
			s += " " + cell(val(l), colW-1)
		}
		return cell(s, w)
	}
	head := " " + sty.Accent.Render(cell("Raters", nameW-1))
	for i, l := range ls[:shown] {
		mark := " "
		if l.Status == model.StatusConfirmed {
			mark = sty.Confirmed.Render("●")
		}
		who := fmt.Sprintf("%d %s", i+1, model.CleanLine(l.Rater))
		head += " " + cell(mark+sty.Bold.Render(who)+sty.Subtle.Render(" "+raterWhen(l, colW >= 30)), colW-1)
	}
	if shown < len(ls) {
		head += sty.Subtle.Render(fmt.Sprintf(" +%d", len(ls)-shown))
	}
	lines := []string{cell(head, w),
		row("correct", model.AspectCorrect, func(l app.RaterLabel) string { return ynMark(sty, l.Label.Correct) }),
		row("grounded", model.AspectGrounded, func(l app.RaterLabel) string { return ynMark(sty, l.Label.Grounded) }),
		row("class", model.AspectClass, func(l app.RaterLabel) string { return classRating(sty, l.Label) }),
		row("fields", model.AspectFields, func(l app.RaterLabel) string { return fieldsRating(sty, l.Fields) }),
	}
	if tall {
		lines = append(lines, row("note", "", func(l app.RaterLabel) string {
			note := l.Label.Note
			if note == "" {
				note = l.Rationale
			}
			return sty.Text.Render(model.CleanLine(note))
		}))
	}
	return append(lines, cell(" "+ts.settledLine(sty), w))
}

// settledLine says what is open on the case or how it was settled.
func (ts *traceScreen) settledLine(sty *themes.Styles) string {
	tr := ts.raters
	if a := tr.Adjudication; a != nil {
		how := "wrote the final label"
		if a.Picked != "" {
			how = "picked " + model.CleanLine(a.Picked)
		}
		s := sty.OK.Render("⚖ settled") + sty.Subtle.Render(" by "+model.CleanLine(a.By)+" "+
			raterWhen(app.RaterLabel{UpdatedAt: a.At}, true)+": ") + sty.Text.Render(how)
		if a.Note != "" {
			s += sty.Subtle.Render(" — " + model.CleanLine(a.Note))
		}
		return s + sty.Subtle.Render("  (A adjudicates again, u undoes)")
	}
	if tr.Final.Disputed {
		return sty.Warn.Render("≠ disagree on "+strings.Join(tr.Final.Aspects, ", ")) +
			sty.Subtle.Render(fmt.Sprintf(": A adjudicates (1-%d pick a label, e write your own)", len(tr.Labels)))
	}
	return sty.Subtle.Render("the people agree; A adjudicates anyway")
}

// adjudicateDialog offers the raters' labels of one trace to pick from,
// or the label editor to write the final one.
type adjudicateDialog struct {
	keys   adjudicateKeys
	id     string
	caseID string
	labels []app.RaterLabel
}

func newAdjudicateDialog(tr app.TraceRaters) *adjudicateDialog {
	return &adjudicateDialog{keys: newKeyMap().Adjud, id: tr.TraceID, caseID: tr.CaseID, labels: tr.Labels}
}

func (d *adjudicateDialog) title() string          { return "adjudicate" }
func (d *adjudicateDialog) help(k keyMap) helpKeys { return k.adjudicateHelp() }

func (d *adjudicateDialog) update(msg tea.Msg) (tea.Cmd, action) {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case key.Matches(kp, d.keys.Cancel):
		return nil, closeAction{}
	case key.Matches(kp, d.keys.Write):
		return nil, writeLabelAction{d.id}
	case key.Matches(kp, d.keys.Pick):
		if i := int(kp.Code - '1'); i >= 0 && i < len(d.labels) {
			return nil, adjudicateAction{id: d.id, req: app.AdjudicateRequest{Pick: d.labels[i].Rater}}
		}
	}
	return nil, nil
}

func (d *adjudicateDialog) view(sty *themes.Styles, w, h int) string {
	boxW := min(w-4, 96)
	out := []string{sty.Accent.Render("Adjudicate "+model.CleanLine(d.caseID)) +
		sty.Subtle.Render("  the label picked becomes the final one"), ""}
	for i, l := range d.labels {
		line := sty.HelpKey.Render(fmt.Sprintf("%d", i+1)) + "  " + sty.Bold.Render(cell(model.CleanLine(l.Rater), 14)) +
			" correct " + ynMark(sty, l.Label.Correct) + "  grounded " + ynMark(sty, l.Label.Grounded) +
			"  class " + classRating(sty, l.Label) + sty.Subtle.Render("  "+raterWhen(l, true))
		out = append(out, cell(line, boxW-4))
	}
	out = append(out, cell(sty.HelpKey.Render("e")+"  "+sty.Text.Render("write the final label with a note"), boxW-4), "",
		sty.Subtle.Render(cell(fmt.Sprintf("1-%d pick · e write your own · esc cancel", len(d.labels)), boxW-4)))
	return sty.Dialog.Render(strings.Join(out, "\n"))
}

// adjudicate is Engine.Adjudicate as a labeling action.
func adjudicate(id string, req app.AdjudicateRequest) labelAction {
	note := "adjudicated: the final label written"
	if req.Pick != "" {
		note = "adjudicated: " + model.CleanLine(req.Pick) + "'s label is final"
	}
	return labelAction{id: id, note: note, run: func(eng *app.Engine, ctx context.Context, id, who string) (app.ActionResult, error) {
		return eng.Raters.Adjudicate(ctx, id, who, req)
	}}
}

// judgeLine is the judge's label and reason in one line, with the key
// that takes it (m), when a judge labeled the trace: the judge is one more
// rater beside tracelab's suggestion, checked by a person.
func (ts *traceScreen) judgeLine(sty *themes.Styles, w int) (string, bool) {
	if ts.raters == nil {
		return "", false
	}
	j := ts.raters.FirstJudge()
	if j == nil {
		return "", false
	}
	s := " " + sty.Accent.Render("Judge") + " " + sty.Bold.Render(model.CleanLine(j.Rater))
	if app.JudgeUnsure(*j) && j.Label.FailureClass == nil {
		s += " " + sty.Warn.Render("unsure")
	}
	s += sty.Subtle.Render("  correct ") + ynMark(sty, j.Label.Correct) + sty.Subtle.Render(" grounded ") + ynMark(sty, j.Label.Grounded) +
		sty.Subtle.Render(" class ") + classRating(sty, j.Label)
	if j.Rationale != "" {
		s += sty.Subtle.Render(" — ") + sty.Text.Render(model.CleanLine(j.Rationale))
	}
	s += sty.Subtle.Render("  (m accepts)")
	return cell(s, w), true
}
