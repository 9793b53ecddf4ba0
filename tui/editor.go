package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/tracelab-dev/tracelab/app"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// goldEditor edits the gold record and the note of a case. It validates
// every field on save and returns only the fields that changed, so each
// becomes one edit and one event.
type goldEditor struct {
	form
	old model.Case
}

// form is what the gold and the label editors share: the inputs, each
// one's error, the focus, the values they opened with (esc asks before
// dropping changes) and a banner over the form (validation summary).
type form struct {
	keys   editorKeys
	inputs []textinput.Model
	errs   []string
	focus  int
	start  []string
	top    string
}

// add appends an input, remembering its first value.
func (f *form) add(in textinput.Model) {
	f.inputs = append(f.inputs, in)
	f.start = append(f.start, in.Value())
	f.errs = append(f.errs, "")
}

// changed reports whether any input differs from what the editor opened with.
func (f *form) changed() bool {
	for i := range f.inputs {
		if f.inputs[i].Value() != f.start[i] {
			return true
		}
	}
	return false
}

func (f *form) focusCmd() tea.Cmd { return f.inputs[f.focus].Focus() }

func (f *form) setFocus(i int) tea.Cmd {
	f.inputs[f.focus].Blur()
	f.focus = (i + len(f.inputs)) % len(f.inputs)
	return f.inputs[f.focus].Focus()
}

// refuse marks a refused save: the banner counts the bad fields and the
// focus goes to the first. It says whether there were any.
func (f *form) refuse(errs []string) bool {
	f.errs = errs
	n := countBad(errs)
	if n == 0 {
		f.top = ""
		return false
	}
	f.top = fmt.Sprintf("%d field(s) need fixing", n)
	for i, s := range errs {
		if s != "" {
			f.setFocus(i)
			break
		}
	}
	return true
}

// edit handles the keys that move between fields and feeds anything else
// to the focused input. After a refused save it checks again as the
// labeler types, so the banner and a field's error go once it is fixed.
func (f *form) edit(msg tea.Msg, check func() []string) tea.Cmd {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(kp, f.keys.Next), kp.String() == "enter":
			return f.setFocus(f.focus + 1)
		case key.Matches(kp, f.keys.Prev):
			return f.setFocus(f.focus - 1)
		}
	}
	var cmd tea.Cmd
	f.inputs[f.focus], cmd = f.inputs[f.focus].Update(msg)
	if f.top == "" {
		f.errs[f.focus] = ""
		return cmd
	}
	f.errs = check()
	if n := countBad(f.errs); n == 0 {
		f.top = ""
	} else {
		f.top = fmt.Sprintf("%d field(s) need fixing", n)
	}
	return cmd
}

// editor field order; the index is the input's position.
const (
	gAnswer = iota
	gTolerance
	gRequired
	gForbidden
	gDefinition
	gStart
	gEnd
	gCalendar
	gFreshness
	gScope
	gNote
	gCount
)

var goldLabels = [gCount]string{"answer", "tolerance", "required fields", "forbidden fields", "definition",
	"window start", "window end", "calendar", "freshness (h)", "policy scope", "note"}

// goldHints are the placeholders: examples, each starting "e.g." so that
// no one mistakes one for a value, with or without colour.
var goldHints = [gCount]string{"e.g. 1284, some text or a JSON array", "e.g. 0.5 (absolute)",
	"e.g. customers.sales_region, subscriptions.period_start", "e.g. customers.region_code",
	"e.g. active = status in (ACTIVE, PAUSED)", "e.g. 2026-04-01", "e.g. 2026-06-30",
	"e.g. fiscal (or calendar)", "e.g. 24 (hours)", "e.g. all_regions", "e.g. why this label"}

func newGoldEditor(rec *app.CaseRecord, sty *themes.Styles) *goldEditor {
	var c model.Case
	if rec != nil {
		c = rec.Case
	}
	e := &goldEditor{form: form{keys: newKeyMap().Editor}, old: c}
	g := c.Gold
	vals := [gCount]string{
		gAnswer: answerText(g.Answer), gTolerance: floatText(g.Tolerance),
		gRequired: strings.Join(g.RequiredFields, ", "), gForbidden: strings.Join(g.ForbiddenFields, ", "),
		gDefinition: g.Definition, gFreshness: floatText(g.FreshnessBoundHours), gScope: g.PolicyScope,
		gNote: c.Label.Note,
	}
	if g.Window != nil {
		vals[gStart], vals[gEnd], vals[gCalendar] = g.Window.Start, g.Window.End, g.Window.Calendar
	}
	for i := 0; i < gCount; i++ {
		e.add(newInput(sty, goldHints[i], vals[i]))
	}
	return e
}

func answerText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.String()
	}
	return string(raw)
}

func floatText(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}

func (e *goldEditor) title() string          { return "gold editor" }
func (e *goldEditor) help(k keyMap) helpKeys { return k.editorHelp() }
func (f *form) value(i int) string           { return strings.TrimSpace(f.inputs[i].Value()) }

func (e *goldEditor) update(msg tea.Msg) (tea.Cmd, action) {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(kp, e.keys.Cancel):
			if e.changed() {
				return nil, askAction{newAskDialog("Discard your changes to the gold?", e.changedFields(),
					"enter discards them · esc goes back to the editor", discardAction{})}
			}
			return nil, closeAction{}
		case key.Matches(kp, e.keys.Save):
			edits, ok := e.validate()
			if !ok {
				return nil, nil
			}
			return nil, saveGoldAction{edits}
		}
	}
	return e.edit(msg, func() []string { errs, _ := e.check(); return errs }), nil
}

func (e *goldEditor) changedFields() []string {
	var out []string
	for i := range e.inputs {
		if e.inputs[i].Value() != e.start[i] {
			out = append(out, goldLabels[i]+" changed")
		}
	}
	return out
}

func countBad(errs []string) int {
	n := 0
	for _, s := range errs {
		if s != "" {
			n++
		}
	}
	return n
}

// validate checks every field and builds the edits of the changed ones;
// with errors it shows them and moves to the first.
func (e *goldEditor) validate() ([]app.FieldEdit, bool) {
	errs, edits := e.check()
	if e.refuse(errs) {
		return nil, false
	}
	return edits, true
}

// goldInputOf is the input a gold problem is shown under.
var goldInputOf = map[string]int{
	"gold.tolerance": gTolerance, "gold.freshness_bound_hours": gFreshness,
	"gold.required_fields": gRequired, "gold.forbidden_fields": gForbidden,
	"gold.window.start": gStart, "gold.window.end": gEnd, "gold.window.calendar": gCalendar,
	"gold.window": gEnd, // the end is before the start
}

// check validates every field: the error of each ("" when fine) and the
// edits of the changed fields.
func (e *goldEditor) check() ([]string, []app.FieldEdit) {
	errs := make([]string, gCount)
	var c model.Case = e.old
	next := c
	// answer: empty is null; a number or JSON array stays JSON; else text.
	ans := e.value(gAnswer)
	switch {
	case ans == "":
		next.Gold.Answer = nil
	case json.Valid([]byte(ans)) && (ans[0] == '[' || ans[0] == '"' || ans[0] == '-' || (ans[0] >= '0' && ans[0] <= '9')):
		next.Gold.Answer = json.RawMessage(ans)
	case ans[0] == '[' || ans[0] == '{':
		errs[gAnswer] = "not valid JSON; write a number, plain text or a JSON array"
	default:
		next.Gold.Answer = jsonValue(ans)
	}
	// Here only what text cannot be parsed into a gold is checked; what a
	// valid gold is, model.Gold.Problems says, for the importer and the
	// engine too.
	num := func(i int) *float64 {
		v := e.value(i)
		if v == "" {
			return nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			errs[i] = fmt.Sprintf("%q is not a number", v)
			return nil
		}
		return &f
	}
	next.Gold.Tolerance = num(gTolerance)
	next.Gold.FreshnessBoundHours = num(gFreshness)
	fields := func(i int) []string {
		out := []string{}
		for _, f := range strings.Split(e.value(i), ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
		return sorted(out)
	}
	next.Gold.RequiredFields = fields(gRequired)
	next.Gold.ForbiddenFields = fields(gForbidden)
	next.Gold.Definition = e.value(gDefinition)
	next.Gold.PolicyScope = e.value(gScope)
	next.Label.Note = e.value(gNote)
	w := model.Window{Start: e.value(gStart), End: e.value(gEnd), Calendar: strings.ToLower(e.value(gCalendar))}
	next.Gold.Window = &w
	if w == (model.Window{}) {
		next.Gold.Window = nil
	}
	for _, p := range next.Gold.Problems() {
		if i, ok := goldInputOf[p.Field]; ok && errs[i] == "" {
			errs[i] = p.Msg
		}
	}
	if countBad(errs) > 0 {
		return errs, nil
	}
	var edits []app.FieldEdit
	for _, f := range []string{"gold.answer", "gold.tolerance", "gold.required_fields", "gold.forbidden_fields",
		"gold.definition", "gold.window", "gold.freshness_bound_hours", "gold.policy_scope", "label.note"} {
		a, _ := c.Field(f)
		b, _ := next.Field(f)
		if emptyJSON(a) && emptyJSON(b) {
			continue // null and [] both mean "none"
		}
		if !bytes.Equal(a, b) {
			edits = append(edits, app.FieldEdit{Field: f, Value: b})
		}
	}
	return errs, edits
}

func (e *goldEditor) view(sty *themes.Styles, w, h int) string {
	return e.draw(sty, "Gold record", goldLabels[:], w, h)
}

// draw draws a form over the screen: a title with its keys, the banner
// (or a blank line), and a line per input with its label and, when it has
// one, its error under it (beside the label when the screen is short).
// The form grows with the terminal: long definitions need the room.
func (f *form) draw(sty *themes.Styles, title string, labels []string, w, h int) string {
	inputs, errs, focus, top := f.inputs, f.errs, f.focus, f.top
	boxW := max(20, w-2)
	labelW := 17
	inW := max(8, boxW-labelW-6)
	var lines []string
	lines = append(lines, sty.Accent.Render(title)+sty.Subtle.Render("  ctrl+s save · esc cancel · tab next"))
	if top != "" {
		lines = append(lines, sty.InputError.Render(top))
	} else {
		lines = append(lines, "")
	}
	// Each field takes one line, plus one when it has an error; when the
	// screen is short, errors share the line with the input.
	compact := h < 2*len(inputs)+6
	for i := range inputs {
		lab := sty.Subtle.Render(cell(labels[i], labelW))
		if i == focus {
			lab = sty.InputPrompt.Render(cell("▸ "+labels[i], labelW))
		}
		// The width is set on the input itself (not a copy) so it scrolls
		// its text to keep the cursor in view.
		inputs[i].SetWidth(inW)
		in := inputs[i]
		line := lab + " " + in.View()
		if errs[i] != "" {
			if compact {
				line = lab + " " + sty.InputError.Render(cell("✗ "+errs[i], inW+1))
				if i == focus {
					line = lab + " " + in.View()
					lines = append(lines, line)
					line = cell("", labelW) + " " + sty.InputError.Render("✗ "+errs[i])
				}
			} else {
				lines = append(lines, line)
				line = cell("", labelW) + " " + sty.InputError.Render("✗ "+errs[i])
			}
		}
		lines = append(lines, cell(line, boxW-4))
	}
	return sty.Dialog.Render(strings.Join(lines, "\n"))
}

// newInput is one input of a form, with its placeholder and first value.
func newInput(sty *themes.Styles, hint, value string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = ""
	ti.Placeholder = hint
	ti.CharLimit = 2000
	ti.SetValue(model.CleanLine(value))
	st := ti.Styles()
	st.Focused.Text, st.Blurred.Text = sty.InputText, sty.Subtle
	st.Focused.Placeholder, st.Blurred.Placeholder = sty.Placeholder, sty.Placeholder
	st.Cursor.Blink = false
	ti.SetStyles(st)
	return ti
}

// labelEditor writes a case's final label by hand when adjudicating:
// correct, grounded, the class and a note saying why (required: it is the
// record of why the raters were overruled). Its save is one
// Engine.Adjudicate, in the event log like every edit.
type labelEditor struct {
	form
	id string
}

const (
	lCorrect = iota
	lGrounded
	lClass
	lNote
	lCount
)

var labelLabels = [lCount]string{"correct", "grounded", "failure class", "note (why)"}

func newLabelEditor(id string, l model.Label, sty *themes.Styles) *labelEditor {
	yn := func(b *bool) string {
		switch {
		case b == nil:
			return ""
		case *b:
			return "yes"
		}
		return "no"
	}
	class := ""
	if c, ok := l.ClassRating(); ok {
		class = c
	}
	hints := [lCount]string{"e.g. yes (or no; empty: unknown)", "e.g. no (or yes; empty: unknown)",
		"e.g. semantic (or none; empty: not rated)", "e.g. the SQL filters on is_active, not the definition"}
	vals := [lCount]string{yn(l.Correct), yn(l.Grounded), class, ""}
	e := &labelEditor{form: form{keys: newKeyMap().Editor}, id: id}
	for i := range lCount {
		e.add(newInput(sty, hints[i], vals[i]))
	}
	return e
}

func (e *labelEditor) title() string          { return "label editor" }
func (e *labelEditor) help(k keyMap) helpKeys { return k.editorHelp() }

func (e *labelEditor) update(msg tea.Msg) (tea.Cmd, action) {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(kp, e.keys.Cancel):
			if e.changed() {
				return nil, askAction{newAskDialog("Discard the final label you wrote?", nil,
					"enter discards it · esc goes back to the editor", discardAction{})}
			}
			return nil, closeAction{}
		case key.Matches(kp, e.keys.Save):
			l, errs := e.check()
			if e.refuse(errs) {
				return e.focusCmd(), nil
			}
			return nil, adjudicateAction{id: e.id, req: app.AdjudicateRequest{Label: &l, Note: l.Note}}
		}
	}
	return e.edit(msg, func() []string { _, errs := e.check(); return errs }), nil
}

// check reads the label the editor holds and the error of each field.
func (e *labelEditor) check() (model.Label, []string) {
	errs := make([]string, lCount)
	var l model.Label
	yn := func(i int) *bool {
		v := strings.ToLower(e.value(i))
		switch v {
		case "":
			return nil
		case "yes", "y", "true", "✓":
			t := true
			return &t
		case "no", "n", "false", "✗":
			f := false
			return &f
		}
		errs[i] = fmt.Sprintf("%q: write yes or no (empty: unknown)", v)
		return nil
	}
	l.Correct, l.Grounded = yn(lCorrect), yn(lGrounded)
	switch c := strings.ToLower(e.value(lClass)); c {
	case "":
	case "none", "0":
		if l.Grounded == nil {
			errs[lClass] = "no class needs grounded set (a class of none says grounded was judged)"
		}
	default:
		found := false
		for _, fc := range model.Classes {
			if string(fc) == c {
				fc := fc
				l.FailureClass, found = &fc, true
			}
		}
		if !found {
			errs[lClass] = fmt.Sprintf("%q is not a class: %s or none", c, strings.Join(toStrings(model.Classes), ", "))
		}
	}
	if l.Note = e.value(lNote); l.Note == "" {
		errs[lNote] = "say why this is the final label: the note is the record of the decision"
	}
	return l, errs
}

func (e *labelEditor) view(sty *themes.Styles, w, h int) string {
	return e.draw(sty, "Final label", labelLabels[:], w, h)
}

// termPrompt asks for the business term a confirmed definition is saved
// under in the glossary.
type termPrompt struct{ namePrompt }

func newTermPrompt(definition string) *termPrompt {
	p := &termPrompt{newNamePrompt("term: ", 100, "glossary", "a term is required",
		"Save the definition to the glossary", "Every trace whose question uses the term gets this gold.",
		func(term string) action { return saveTermAction{term} })}
	// "active = subscription_status in (…)" suggests the term "active".
	if i := strings.IndexAny(definition, "=:"); i > 0 {
		p.input.SetValue(strings.TrimSpace(model.CleanLine(definition[:i])))
	}
	return p
}

// namePrompt is a dialog asking for one name (a glossary term, a view's
// name): enter answers with it, esc closes.
type namePrompt struct {
	input                textinput.Model
	err                  string
	what, missing        string // the dialog's title; said when the name is empty
	heading, explanation string
	answer               func(name string) action
}

func newNamePrompt(prompt string, limit int, what, missing, heading, explanation string, answer func(string) action) namePrompt {
	ti := textinput.New()
	ti.Prompt = prompt
	ti.CharLimit = limit
	return namePrompt{input: ti, what: what, missing: missing, heading: heading, explanation: explanation, answer: answer}
}

func (p *namePrompt) title() string { return p.what }
func (p *namePrompt) help(k keyMap) helpKeys {
	return helpKeys{short: []key.Binding{
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "save")),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}}
}

func (p *namePrompt) update(msg tea.Msg) (tea.Cmd, action) {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch kp.String() {
		case "esc":
			return nil, closeAction{}
		case "enter":
			name := strings.TrimSpace(p.input.Value())
			if name == "" {
				p.err = p.missing
				return nil, nil
			}
			return nil, p.answer(name)
		}
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return cmd, nil
}

func (p *namePrompt) view(sty *themes.Styles, w, h int) string {
	boxW := min(w-4, 64)
	p.input.SetWidth(boxW - 12)
	lines := []string{sty.Accent.Render(p.heading), sty.Subtle.Render(p.explanation), "", p.input.View()}
	if p.err != "" {
		lines = append(lines, sty.InputError.Render("✗ "+p.err))
	}
	return sty.Dialog.Render(strings.Join(lines, "\n"))
}

func emptyJSON(b []byte) bool {
	s := string(b)
	return s == "null" || s == "[]" || s == `""`
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return slices.Compact(c)
}
