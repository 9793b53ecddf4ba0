package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"tracelab/app"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"tracelab/model"
	"tracelab/themes"
)

// goldEditor edits the gold record and the note of a case. It validates
// every field on save and returns only the fields that changed, so each
// becomes one edit and one event.
type goldEditor struct {
	keys   editorKeys
	inputs []textinput.Model
	errs   []string
	focus  int
	old    model.Case
	start  []string // the inputs as opened: esc asks before dropping changes
	top    string   // a message over the form (validation summary)
}

// changed reports whether any input differs from what the editor opened with.
func (e *goldEditor) changed() bool {
	for i := range e.inputs {
		if e.inputs[i].Value() != e.start[i] {
			return true
		}
	}
	return false
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
	e := &goldEditor{keys: newKeyMap().Editor, old: c, errs: make([]string, gCount), start: make([]string, gCount)}
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
		ti := textinput.New()
		ti.Prompt = ""
		ti.Placeholder = goldHints[i]
		ti.CharLimit = 2000
		ti.SetValue(model.CleanLine(vals[i]))
		st := ti.Styles()
		st.Focused.Text, st.Blurred.Text = sty.InputText, sty.Subtle
		st.Focused.Placeholder, st.Blurred.Placeholder = sty.Placeholder, sty.Placeholder
		st.Cursor.Blink = false
		ti.SetStyles(st)
		e.inputs = append(e.inputs, ti)
		e.start[i] = ti.Value()
	}
	return e
}

func (e *goldEditor) focusCmd() tea.Cmd { return e.inputs[e.focus].Focus() }

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
func (e *goldEditor) value(i int) string     { return strings.TrimSpace(e.inputs[i].Value()) }
func (e *goldEditor) setFocus(i int) tea.Cmd {
	e.inputs[e.focus].Blur()
	e.focus = (i + gCount) % gCount
	return e.inputs[e.focus].Focus()
}

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
		case key.Matches(kp, e.keys.Next), kp.String() == "enter":
			return e.setFocus(e.focus + 1), nil
		case key.Matches(kp, e.keys.Prev):
			return e.setFocus(e.focus - 1), nil
		}
	}
	var cmd tea.Cmd
	e.inputs[e.focus], cmd = e.inputs[e.focus].Update(msg)
	if e.top != "" {
		// After a refused save, check again as the labeler types: the
		// banner and the field's error go as soon as it is fixed.
		e.errs, _ = e.check()
		if n := countBad(e.errs); n == 0 {
			e.top = ""
		} else {
			e.top = fmt.Sprintf("%d field(s) need fixing", n)
		}
	} else {
		e.errs[e.focus] = ""
	}
	return cmd, nil
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
	e.errs = errs
	if bad := countBad(errs); bad > 0 {
		e.top = fmt.Sprintf("%d field(s) need fixing", bad)
		for i, s := range errs {
			if s != "" {
				e.setFocus(i)
				break
			}
		}
		return nil, false
	}
	e.top = ""
	return edits, true
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
	num := func(i int, positive bool) *float64 {
		v := e.value(i)
		if v == "" {
			return nil
		}
		f, err := strconv.ParseFloat(v, 64)
		switch {
		case err != nil:
			errs[i] = fmt.Sprintf("%q is not a number", v)
			return nil
		case f < 0 || (positive && f == 0):
			errs[i] = "must be greater than 0"
			if !positive {
				errs[i] = "must not be negative"
			}
			return nil
		}
		return &f
	}
	next.Gold.Tolerance = num(gTolerance, false)
	next.Gold.FreshnessBoundHours = num(gFreshness, true)
	fields := func(i int) []string {
		out := []string{}
		for _, f := range strings.Split(e.value(i), ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			if strings.ContainsAny(f, " \t") || !strings.Contains(f, ".") || strings.HasPrefix(f, ".") || strings.HasSuffix(f, ".") {
				errs[i] = fmt.Sprintf("%q should look like table.column or tool.argument", f)
			}
			out = append(out, f)
		}
		return sorted(out)
	}
	next.Gold.RequiredFields = fields(gRequired)
	next.Gold.ForbiddenFields = fields(gForbidden)
	for _, f := range next.Gold.RequiredFields {
		if slices.Contains(next.Gold.ForbiddenFields, f) && errs[gForbidden] == "" {
			errs[gForbidden] = fmt.Sprintf("%s is also required: a field cannot be both", f)
		}
	}
	next.Gold.Definition = e.value(gDefinition)
	next.Gold.PolicyScope = e.value(gScope)
	next.Label.Note = e.value(gNote)
	w := model.Window{Start: e.value(gStart), End: e.value(gEnd), Calendar: strings.ToLower(e.value(gCalendar))}
	if w == (model.Window{}) {
		next.Gold.Window = nil
	} else {
		if w.Calendar == "" {
			errs[gCalendar] = "say fiscal or calendar"
		}
		if msg := model.WindowProblem(w); msg != "" {
			switch {
			case strings.HasPrefix(msg, "start"):
				errs[gStart] = msg
			case strings.HasPrefix(msg, "end"):
				errs[gEnd] = msg
			case strings.HasPrefix(msg, "calendar"):
				errs[gCalendar] = msg
			default:
				errs[gEnd] = msg
			}
		}
		next.Gold.Window = &w
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
	// The form grows with the terminal: long definitions need the room.
	boxW := max(20, w-2)
	labelW := 17
	inW := max(8, boxW-labelW-6)
	var lines []string
	lines = append(lines, sty.Accent.Render("Gold record")+sty.Subtle.Render("  ctrl+s save · esc cancel · tab next"))
	if e.top != "" {
		lines = append(lines, sty.InputError.Render(e.top))
	} else {
		lines = append(lines, "")
	}
	// Each field takes one line, plus one when it has an error; when the
	// screen is short, errors share the line with the input.
	compact := h < 2*gCount+6
	for i := 0; i < gCount; i++ {
		lab := sty.Subtle.Render(cell(goldLabels[i], labelW))
		if i == e.focus {
			lab = sty.InputPrompt.Render(cell("▸ "+goldLabels[i], labelW))
		}
		// The width is set on the input itself (not a copy) so it scrolls
		// its text to keep the cursor in view.
		e.inputs[i].SetWidth(inW)
		in := e.inputs[i]
		line := lab + " " + in.View()
		if e.errs[i] != "" {
			if compact {
				line = lab + " " + sty.InputError.Render(cell("✗ "+e.errs[i], inW+1))
				if i == e.focus {
					line = lab + " " + in.View()
					lines = append(lines, line)
					line = cell("", labelW) + " " + sty.InputError.Render("✗ "+e.errs[i])
				}
			} else {
				lines = append(lines, line)
				line = cell("", labelW) + " " + sty.InputError.Render("✗ "+e.errs[i])
			}
		}
		lines = append(lines, cell(line, boxW-4))
	}
	return sty.Dialog.Render(strings.Join(lines, "\n"))
}

// termPrompt asks for the business term a confirmed definition is saved
// under in the glossary.
type termPrompt struct {
	input textinput.Model
	err   string
}

func newTermPrompt(definition string) *termPrompt {
	ti := textinput.New()
	ti.Prompt = "term: "
	ti.CharLimit = 100
	// "active = subscription_status in (…)" suggests the term "active".
	if i := strings.IndexAny(definition, "=:"); i > 0 {
		ti.SetValue(strings.TrimSpace(model.CleanLine(definition[:i])))
	}
	return &termPrompt{input: ti}
}

func (p *termPrompt) title() string { return "glossary" }
func (p *termPrompt) help(k keyMap) helpKeys {
	return helpKeys{short: []key.Binding{
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "save")),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}}
}

func (p *termPrompt) update(msg tea.Msg) (tea.Cmd, action) {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch kp.String() {
		case "esc":
			return nil, closeAction{}
		case "enter":
			t := strings.TrimSpace(p.input.Value())
			if t == "" {
				p.err = "a term is required"
				return nil, nil
			}
			return nil, saveTermAction{t}
		}
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return cmd, nil
}

func (p *termPrompt) view(sty *themes.Styles, w, h int) string {
	boxW := min(w-4, 64)
	p.input.SetWidth(boxW - 12)
	lines := []string{sty.Accent.Render("Save the definition to the glossary"),
		sty.Subtle.Render("Every trace whose question uses the term gets this gold."), "", p.input.View()}
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
