package tui

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
	"github.com/tracelab-dev/tracelab/themes"
)

// TestLabelingFlow drives the root model the way a labeler does: filter to
// a class, open a trace, jump to a marker, label, confirm, undo. Every
// step is checked against the store, not only the screen.
func TestLabelingFlow(t *testing.T) {
	st, _ := openUnlabeledStore(t)
	ctx := context.Background()
	d := newDriver(t, st, 100, 30)
	d.mustSee("33 traces")

	// f opens the filter; the class group is first; semantic is its 2nd value.
	d.keys("f", "j", "space", "enter")
	if got := d.m.queue.filter.Classes; len(got) != 1 || got[0] != "semantic" {
		t.Fatalf("filter classes = %v, want [semantic]", got)
	}
	d.mustSee("class:semantic")
	if n := len(d.m.queue.rows); n != 2 || d.m.queue.rows[0].TraceID != "trace_9f31c2" || d.m.queue.rows[1].TraceID != "trace_5c0d91" {
		t.Fatalf("filtered rows = %d (%v), want trace_9f31c2 and trace_5c0d91", n, d.m.queue.rows)
	}

	d.key("enter")
	if d.m.screen != screenTrace || d.m.trace.id != "trace_9f31c2" {
		t.Fatalf("enter did not open the trace: screen %d id %q", d.m.screen, d.m.trace.id)
	}
	d.key("]")
	if d.m.trace.step != 5 {
		t.Fatalf("] went to step %d, want 5 (the reasoning step holding the markers)", d.m.trace.step)
	}
	d.mustSee("sounds like")

	d.keys("c", "2")
	rec, err := st.Traces.CaseForTrace(ctx, "trace_9f31c2")
	if err != nil || rec == nil {
		t.Fatalf("case after labeling: %v %v", rec, err)
	}
	if rec.Case.Label.Correct == nil || !*rec.Case.Label.Correct {
		t.Errorf("label.correct = %v, want true", rec.Case.Label.Correct)
	}
	if fc := rec.Case.Label.FailureClass; fc == nil || *fc != model.ClassSemantic {
		t.Errorf("label.failure_class = %v, want semantic", fc)
	}
	d.mustSee("class semantic")

	// The field under the scoring cursor becomes required, then forbidden.
	d.keys("tab", "tab") // steps -> detail -> score (] moved focus to detail)
	if d.m.trace.focus != paneSteps && d.m.trace.focus != paneScore {
		t.Fatalf("focus = %d", d.m.trace.focus)
	}
	for d.m.trace.focus != paneScore {
		d.key("tab")
	}
	field := d.m.trace.items[d.m.trace.item].field
	if field == "" {
		t.Fatalf("the scoring cursor is not on a field: %+v", d.m.trace.items)
	}
	// The suggestion's own fields (the task-specific trace of the question
	// teaches them through its tools' contracts) stay beside the one marked.
	rec, _ = st.Traces.CaseForTrace(ctx, "trace_9f31c2")
	base := slices.DeleteFunc(slices.Clone(rec.Case.Gold.RequiredFields), func(f string) bool { return f == field })
	d.key("r")
	rec, _ = st.Traces.CaseForTrace(ctx, "trace_9f31c2")
	if got, want := rec.Case.Gold.RequiredFields, slices.Sorted(slices.Values(append(slices.Clone(base), field))); !slices.Equal(got, want) {
		t.Fatalf("required fields = %v, want %v", got, want)
	}
	d.key("x")
	rec, _ = st.Traces.CaseForTrace(ctx, "trace_9f31c2")
	if !slices.Equal(rec.Case.Gold.RequiredFields, base) || !slices.Contains(rec.Case.Gold.ForbiddenFields, field) {
		t.Fatalf("after x: required %v forbidden %v, want required %v and %s forbidden", rec.Case.Gold.RequiredFields, rec.Case.Gold.ForbiddenFields, base, field)
	}

	// enter (focus on a field, not evidence) confirms and moves on; the
	// filter holds one trace, so the status says none is left.
	d.key("esc") // back to the queue to clear the filter: enter then moves to the next trace
	d.key("esc")
	if filterActive(d.m.queue.filter) {
		t.Fatalf("esc did not clear the filter: %+v", d.m.queue.filter)
	}
	d.key("enter")
	if d.m.trace.id != "trace_9f31c2" {
		t.Fatalf("reopened %q", d.m.trace.id)
	}
	d.key("enter")
	rec, _ = st.Traces.CaseForTrace(ctx, "trace_9f31c2")
	if rec.Status != model.StatusConfirmed || rec.ConfirmedBy != "tester" {
		t.Fatalf("status %s by %q, want confirmed by tester", rec.Status, rec.ConfirmedBy)
	}
	if d.m.trace.id != "trace_5c0d91" {
		t.Fatalf("after confirm the screen shows %q, want the next unconfirmed trace_5c0d91", d.m.trace.id)
	}

	// Undo on the confirmed trace: back to it, u reverts the confirmation.
	d.key("ctrl+p")
	if d.m.trace.id != "trace_9f31c2" {
		t.Fatalf("ctrl+p opened %q", d.m.trace.id)
	}
	d.key("u")
	rec, _ = st.Traces.CaseForTrace(ctx, "trace_9f31c2")
	if rec.Status != model.StatusSuggested {
		t.Fatalf("after undo status = %s, want suggested", rec.Status)
	}
	evs, err := st.Traces.Events(ctx, rec.Case.CaseID)
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, e := range evs {
		if e.Who != "tester" {
			t.Errorf("event %d by %q, want tester", e.ID, e.Who)
		}
		fields = append(fields, e.Field)
	}
	// 2 wrote nothing: the machine's suggested case already said semantic,
	// and a key that changes nothing leaves no event. The field was a
	// suggested look-alike (forbidden): r takes it out of the forbidden
	// list before it requires it.
	want := "label.correct gold.forbidden_fields gold.required_fields gold.required_fields gold.forbidden_fields status status"
	if got := strings.Join(fields, " "); got != want {
		t.Errorf("events = %s\nwant      %s", got, want)
	}
	if last := evs[len(evs)-1]; last.Undoes == 0 {
		t.Errorf("the undo event does not point at what it undoes: %+v", last)
	}
}

func TestAcceptSuggestions(t *testing.T) {
	st, _ := openUnlabeledStore(t)
	d := newDriver(t, st, 80, 24)
	d.keys("enter")
	sv := d.m.trace.score
	if sv == nil || sv.SuggestedClass == nil || sv.SuggestedGold == nil {
		t.Fatalf("trace_9f31c2 has no suggestion to accept: %+v", sv)
	}
	d.key("a")
	rec, err := st.Traces.CaseForTrace(context.Background(), "trace_9f31c2")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	c := rec.Case
	if !sameSet(c.Gold.ForbiddenFields, sv.SuggestedGold.ForbiddenFields) || !sameSet(c.Gold.RequiredFields, sv.SuggestedGold.RequiredFields) {
		t.Errorf("gold after a: required %v forbidden %v, want the suggestion %v %v", c.Gold.RequiredFields,
			c.Gold.ForbiddenFields, sv.SuggestedGold.RequiredFields, sv.SuggestedGold.ForbiddenFields)
	}
	// The label agrees with the score on the gold just accepted: the one
	// the scoring panel now shows.
	now := d.m.trace.score
	if got, want := classText(c.Label.FailureClass), classText(now.SuggestedClass); got != want {
		t.Errorf("class after a: %s, the panel suggests %s", got, want)
	}
	if got, want := boolText(c.Label.Grounded), boolText(now.Grounded); got != want {
		t.Errorf("grounded after a: %s, the panel says %s", got, want)
	}
	evs, _ := st.Traces.Events(context.Background(), c.CaseID)
	for _, e := range evs {
		if e.Group != evs[0].Group {
			t.Errorf("event %s in group %d, the accept's is %d: one key, one undo", e.Field, e.Group, evs[0].Group)
		}
	}
	// A second a has nothing left to do.
	d.key("a")
	d.mustSee("nothing to accept")
}

func sameSet(a, b []string) bool { return slices.Equal(sorted(a), sorted(b)) }

func classText(c *model.FailureClass) string {
	if c == nil {
		return "none"
	}
	return string(*c)
}

func boolText(b *bool) string {
	if b == nil {
		return "?"
	}
	return map[bool]string{true: "yes", false: "no"}[*b]
}

func TestSearchAndSort(t *testing.T) {
	st, _ := openUnlabeledStore(t)
	d := newDriver(t, st, 120, 40)
	d.key("/")
	d.typeText("revenue")
	// The search runs after a pause: the driver ran the tick already.
	if n := len(d.m.queue.rows); n != 5 {
		t.Fatalf("search found %d rows, want the 5 questions about revenue", n)
	}
	for _, r := range d.m.queue.rows {
		if !strings.Contains(r.Question, "revenue") {
			t.Errorf("search kept %q", r.Question)
		}
	}
	d.key("enter")
	d.mustSee(`search:"revenue"`)
	d.key("esc")
	if len(d.m.queue.rows) != 33 {
		t.Fatalf("esc left %d rows", len(d.m.queue.rows))
	}
	d.key("s") // imported -> server
	if d.m.queue.sort != store.SortServer || d.m.queue.rows[0].Server != "generic-warehouse" {
		t.Fatalf("sort %s first %s", d.m.queue.sort, d.m.queue.rows[0].Server)
	}
	d.key("S")
	if d.m.queue.rows[0].Server != "task-specific" {
		t.Fatalf("reverse sort first %s", d.m.queue.rows[0].Server)
	}
}

func TestNextUnconfirmedPagesThroughTheStore(t *testing.T) {
	st, _ := openUnlabeledStore(t)
	ctx := context.Background()
	first, _, err := st.Traces.ListTraces(ctx, store.Query{Limit: 6})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range first[1:5] {
		if _, err := st.Labels.ConfirmLabel(ctx, r.TraceID, "someone", true); err != nil {
			t.Fatal(err)
		}
	}
	m := New(st, Options{Labeler: "tester", Theme: "dark", PageSize: 2, StatusTTL: -1})
	d := &driver{t: t, m: m}
	// One visible row: the queue prefetches two screens ahead, so the
	// first two pages are loaded and the unconfirmed row is on the third.
	d.send(tea.WindowSizeMsg{Width: 80, Height: 6})
	d.run(m.Init())
	if len(d.m.queue.rows) != 4 {
		t.Fatalf("%d rows loaded, want 4 (two pages)", len(d.m.queue.rows))
	}
	// From row 1, the rows up to 4 are confirmed: n opens row 5.
	d.keys("j", "n")
	if r, _ := d.m.queue.current(); r.TraceID != first[5].TraceID || d.m.trace.id != first[5].TraceID {
		t.Fatalf("n stopped at %q and opened %q, want %s (page 3 is read on demand)", r.TraceID, d.m.trace.id, first[5].TraceID)
	}
}

func TestGoldEditorValidates(t *testing.T) {
	tol := 0.0
	base := &store.CaseRecord{Case: model.Case{CaseID: "c1", Gold: model.Gold{Tolerance: &tol}}}
	cases := []struct {
		name   string
		set    map[int]string
		errAt  int // -1: valid
		errHas string
		fields string // edited fields when valid
	}{
		{"unchanged", nil, -1, "", ""},
		{"number answer", map[int]string{gAnswer: "1284"}, -1, "", "gold.answer"},
		{"text answer", map[int]string{gAnswer: "about twelve"}, -1, "", "gold.answer"},
		{"broken array", map[int]string{gAnswer: "[1, 2"}, gAnswer, "not valid JSON", ""},
		{"tolerance not a number", map[int]string{gTolerance: "abc"}, gTolerance, `"abc" is not a number`, ""},
		{"negative tolerance", map[int]string{gTolerance: "-1"}, gTolerance, "must not be negative", ""},
		{"freshness zero", map[int]string{gFreshness: "0"}, gFreshness, "greater than 0", ""},
		{"bad field", map[int]string{gRequired: "customers.status, is_active"}, gRequired, "table.column", ""},
		{"both lists", map[int]string{gRequired: "a.b", gForbidden: "a.b"}, gForbidden, "cannot be both", ""},
		{"bad date", map[int]string{gStart: "2026-13-01", gEnd: "2026-06-30", gCalendar: "fiscal"}, gStart, "not a date", ""},
		{"no calendar", map[int]string{gStart: "2026-04-01", gEnd: "2026-06-30"}, gCalendar, "fiscal or calendar", ""},
		{"window", map[int]string{gStart: "2026-04-01", gEnd: "2026-06-30", gCalendar: "Fiscal"}, -1, "", "gold.window"},
		{"fields and note", map[int]string{gRequired: "b.c, a.b", gNote: "why"}, -1, "", "gold.required_fields label.note"},
	}
	sty := themes.Build(themes.Dark())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newGoldEditor(base, &sty)
			for i, v := range tc.set {
				e.inputs[i].SetValue(v)
			}
			edits, ok := e.validate()
			if tc.errAt >= 0 {
				if ok {
					t.Fatalf("valid, want an error on %s", goldLabels[tc.errAt])
				}
				if !strings.Contains(e.errs[tc.errAt], tc.errHas) {
					t.Fatalf("error on %s = %q, want it to contain %q (all: %q)", goldLabels[tc.errAt], e.errs[tc.errAt], tc.errHas, e.errs)
				}
				if e.focus != tc.errAt {
					t.Errorf("focus %d, want the first bad field %d", e.focus, tc.errAt)
				}
				return
			}
			if !ok {
				t.Fatalf("invalid: %q", e.errs)
			}
			var names []string
			for _, ed := range edits {
				names = append(names, ed.Field)
				if !json.Valid(ed.Value) {
					t.Errorf("%s: invalid JSON %s", ed.Field, ed.Value)
				}
			}
			if got := strings.Join(names, " "); got != tc.fields {
				t.Fatalf("edits %q, want %q", got, tc.fields)
			}
		})
	}
}

func TestGoldEditorSavesThroughTheStore(t *testing.T) {
	st, _ := openUnlabeledStore(t)
	d := newDriver(t, st, 100, 40)
	d.keys("enter", "e")
	if _, ok := d.m.dialog().(*goldEditor); !ok {
		t.Fatalf("e did not open the gold editor")
	}
	d.typeText("1284")
	d.keys("tab", "tab", "ctrl+u") // the suggested fields cleared first
	d.typeText("customers.subscription_status, customers.sales_region")
	d.key("ctrl+s")
	if d.m.dialog() != nil {
		t.Fatalf("dialog still open: %v", d.m.dialog().(*goldEditor).errs)
	}
	rec, _ := st.Traces.CaseForTrace(context.Background(), "trace_9f31c2")
	if string(rec.Case.Gold.Answer) != "1284" || len(rec.Case.Gold.RequiredFields) != 2 {
		t.Fatalf("gold = %s %v", rec.Case.Gold.Answer, rec.Case.Gold.RequiredFields)
	}
	// A bad value keeps the editor open with the message on screen.
	d.key("e")
	d.key("tab")
	d.typeText("lots")
	d.key("ctrl+s")
	if d.m.dialog() == nil {
		t.Fatal("invalid tolerance was saved")
	}
	d.mustSee(`"lots" is not a number`)
	d.mustSee("1 field(s) need fixing")
	// Fixing the field clears the banner at once, before any save.
	d.keys("backspace", "backspace", "backspace", "backspace")
	if strings.Contains(d.plain(), "need fixing") || strings.Contains(d.plain(), "is not a number") {
		t.Fatalf("the banner stayed after the fix:\n%s", d.plain())
	}
	// esc with changes asks first (a prompt over the editor: two dialogs);
	// esc there goes back to the editor, enter discards.
	d.typeText("0.5")
	d.key("esc")
	d.mustSee("Discard your changes to the gold?")
	if len(d.m.dialogs) != 2 {
		t.Fatalf("%d dialogs open, want the prompt over the editor", len(d.m.dialogs))
	}
	d.key("esc")
	if _, ok := d.m.dialog().(*goldEditor); !ok {
		t.Fatalf("esc on the prompt left %T on top", d.m.dialog())
	}
	d.key("esc")
	d.key("enter")
	if d.m.dialog() != nil {
		t.Fatal("discarding did not close the editor")
	}
	if rec, _ := st.Traces.CaseForTrace(context.Background(), "trace_9f31c2"); rec.Case.Gold.Tolerance != nil {
		t.Errorf("discarded tolerance saved: %v", *rec.Case.Gold.Tolerance)
	}
	// Without changes esc closes at once.
	d.key("e")
	d.key("esc")
	if d.m.dialog() != nil {
		t.Fatal("esc did not close an unchanged editor")
	}
}

func TestGlossaryNeedsAConfirmedDefinition(t *testing.T) {
	st, _ := openUnlabeledStore(t)
	ctx := context.Background()
	d := newDriver(t, st, 100, 30)
	d.keys("enter", "G")
	d.mustSee("confirm the case")
	if _, err := st.Labels.EditFields(ctx, "trace_9f31c2", "tester", app.FieldEdit{Field: "gold.definition",
		Value: json.RawMessage(`"active = subscription_status in (ACTIVE, PAUSED_BILLING)"`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Labels.ConfirmLabel(ctx, "trace_9f31c2", "tester", true); err != nil {
		t.Fatal(err)
	}
	d.key("esc")
	d.key("enter")
	d.key("G")
	if _, ok := d.m.dialog().(*termPrompt); !ok {
		t.Fatalf("G did not ask for a term: %s", d.plain())
	}
	d.key("enter") // the term "active" is pre-filled from the definition
	g, err := st.Labels.Glossary(ctx)
	if err != nil || len(g) != 1 || g[0].Term != "active" || g[0].UpdatedBy != "tester" {
		t.Fatalf("glossary = %+v, %v", g, err)
	}
}

var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// TestEscapeSequencesAreStripped opens the trace whose question and
// reasoning carry an OSC title change, a clear-screen and colors: the
// screen must hold none of them, only the styles the workbench draws.
func TestEscapeSequencesAreStripped(t *testing.T) {
	st, _ := openUnlabeledStore(t)
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		d := newDriver(t, st, size[0], size[1])
		d.keys("/")
		d.typeText("Kunden")
		d.keys("enter")
		screens := map[string]string{"queue": d.view()}
		d.key("enter")
		d.keys("j") // the reasoning step with "\x1b[2J" and colors
		screens["trace"] = d.view()
		d.keys("]")
		screens["marker"] = d.view()
		for name, v := range screens {
			if rest := sgr.ReplaceAllString(v, ""); strings.ContainsAny(rest, "\x1b\x07\u009b\u009d") {
				i := strings.IndexAny(rest, "\x1b\x07\u009b\u009d")
				t.Errorf("%dx%d %s: control character left at %d: %q", size[0], size[1], name, i, rest[max(0, i-20):min(len(rest), i+20)])
			}
			if strings.Contains(v, "]0;owned") || strings.Contains(v, "[2J") {
				t.Errorf("%s: escape sequence text left on screen", name)
			}
			// Bidi controls are runes too: shown escaped, never raw.
			if i := strings.IndexFunc(v, model.IsBidiControl); i >= 0 {
				t.Errorf("%dx%d %s: bidi control left raw at %d: %q", size[0], size[1], name, i, v[max(0, i-20):min(len(v), i+20)])
			}
		}
		if !strings.Contains(screens["trace"], `\u202eEMEA\u202c`) {
			t.Errorf("the question's bidi override is not shown escaped:\n%s", screens["trace"])
		}
		plain := d.plain()
		if !strings.Contains(plain, "probably") || !strings.Contains(plain, "Kunden 顧客 📊") {
			t.Errorf("the text around the sequences is gone:\n%s", plain)
		}
		// Wide characters do not break the frame: every line is the width.
		for i, l := range strings.Split(screens["trace"], "\n") {
			if w := ansi.StringWidth(l); w != size[0] {
				t.Errorf("%dx%d line %d is %d columns wide", size[0], size[1], i, w)
			}
		}
	}
}
