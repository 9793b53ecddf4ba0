package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// panelRow is one line of the scoring panel; item is the selectable item
// it shows, -1 for plain lines.
type panelRow struct {
	text string
	item int
}

func (ts *traceScreen) view(sty *themes.Styles, w, h int) string {
	switch {
	case ts.err != nil:
		return sty.Error.Render(" cannot open trace: "+model.CleanLine(ts.err.Error())) + "\n" +
			sty.Subtle.Render(" esc goes back to the queue")
	case ts.t == nil:
		return sty.Subtle.Render(" loading trace…")
	}
	head := ts.headerLines(sty, w)
	if ts.ratersShown() && h >= 20 {
		// Under 20 lines the steps keep the room; A still lists the raters.
		head = append(head, ts.ratersLines(sty, w, h >= 40)...)
	}
	if l, ok := ts.judgeLine(sty, w); ok && h >= 16 {
		head = append(head, l)
	}
	bodyH := max(3, h-len(head))
	stepsW, detailW, scoreW := ts.widths(w)
	left := drawPane(ts.paneStyle(sty, paneSteps), sty.Accent.Render(fmt.Sprintf("Steps %d", len(ts.t.Steps))),
		ts.stepsView(sty, stepsW-2, bodyH-2), stepsW, bodyH)
	var right string
	if scoreW > 0 {
		right = joinH(ts.detailPane(sty, detailW+2, bodyH, ""), ts.scorePane(sty, scoreW, bodyH))
	} else if ts.focus == paneScore {
		right = ts.scorePane(sty, detailW+2, bodyH)
	} else {
		// The scoring pane is off screen: what a sets is said under the
		// detail.
		right = ts.detailPane(sty, detailW+2, bodyH, ts.acceptSummary(detailW-4))
	}
	return strings.Join(head, "\n") + "\n" + joinH(left, right)
}

func (ts *traceScreen) paneStyle(sty *themes.Styles, p pane) lipgloss.Style {
	if ts.focus == p {
		return sty.PaneFocused
	}
	return sty.Pane
}

// headerLines: who and where, the question, the label.
func (ts *traceScreen) headerLines(sty *themes.Styles, w int) []string {
	t := ts.t
	caseID := t.TraceID
	if ts.rec != nil {
		caseID = ts.rec.Case.CaseID
	}
	who := model.CleanLine(t.UserRole)
	if t.AsUser != "" {
		who += " as " + model.CleanLine(t.AsUser)
	}
	l1 := " " + sty.Bold.Render(model.CleanLine(caseID)) + sty.Subtle.Render("  "+model.CleanLine(t.Server)+"  "+who+"  ") +
		outcomeStyle(sty, t.Outcome)(string(t.Outcome))
	if t.StartedAt != "" {
		l1 += sty.Subtle.Render("  " + model.CleanLine(t.StartedAt))
	}
	if t.Model != "" {
		cost := ""
		if t.Usage.Estimated {
			cost = fmt.Sprintf(" $%.4f estimated", t.Usage.USD)
		}
		l1 += sty.Subtle.Render("  " + model.CleanLine(t.Model) + cost)
	}
	l2 := " " + sty.Accent.Render("Q ") + sty.Text.Render(model.CleanLine(t.Question))
	// The answer next to the gold one: what "correct" is judged on.
	ans := model.CleanLine(t.FinalAnswer())
	if ans == "" {
		ans = "(no answer)"
	}
	gold := sty.Subtle.Render("gold answer not set (e)")
	if g := ts.gold(); len(g.Answer) > 0 && string(g.Answer) != "null" {
		gold = sty.Subtle.Render("gold ") + sty.Bold.Render(model.CleanLine(answerText(g.Answer)))
		if g.Tolerance != nil && *g.Tolerance != 0 {
			gold += sty.Subtle.Render(" ±" + floatText(g.Tolerance))
		}
	}
	goldW := ansiWidth(gold)
	l3 := " " + sty.Accent.Render("A ") + sty.Text.Render(ansiTruncate(ans, max(10, w-goldW-8))) + "   " + gold
	return []string{cell(l1, w), cell(l2, w), cell(l3, w), cell(ts.labelLine(sty), w)}
}

func (ts *traceScreen) labelLine(sty *themes.Styles) string {
	lab := ts.label()
	yn := func(name string, b *bool) string {
		switch {
		case b == nil:
			return sty.Subtle.Render(name + " ?")
		case *b:
			return sty.OK.Render(name + " ✓")
		}
		return sty.Error.Render(name + " ✗")
	}
	class := sty.Subtle.Render("class -")
	if lab.FailureClass != nil {
		class = classStyle(sty, string(*lab.FailureClass))("class " + string(*lab.FailureClass))
	} else if ts.score != nil && ts.score.SuggestedClass != nil {
		class = sty.Subtle.Render("class - (suggested " + string(*ts.score.SuggestedClass) + ")")
	}
	status := model.StatusNone
	by := ""
	if ts.rec != nil {
		status = model.QueueStatus(ts.rec.Status, ts.rec.Case.Label, ts.rec.ConfirmedBy)
		if status == model.StatusConfirmed && ts.rec.ConfirmedBy != "" {
			by = " by " + model.CleanLine(ts.rec.ConfirmedBy)
		}
	}
	changed := ""
	if ts.rec != nil && ts.rec.Review != "" {
		changed = sty.Warn.Render(" ⚑ changed since")
	}
	g := ts.gold()
	gold := sty.Subtle.Render(fmt.Sprintf("gold: %d required, %d forbidden", len(g.RequiredFields), len(g.ForbiddenFields)))
	return " " + sty.Accent.Render("Label ") + yn("correct", lab.Correct) + "  " + yn("grounded", lab.Grounded) + "  " +
		class + "  " + ts.statusText(sty, status, by) + changed + "  " + gold
}

func (ts *traceScreen) stepsView(sty *themes.Styles, w, h int) string {
	n := len(ts.t.Steps)
	marked := map[int]bool{}
	if ts.score != nil {
		for _, mk := range ts.score.Markers {
			marked[mk.Step] = true
		}
	}
	numW := len(strconv.Itoa(max(0, n-1)))
	var lines []string
	for i := ts.stepOff; i < n && len(lines) < h; i++ {
		s := ts.t.Steps[i]
		flag := " "
		if marked[i] {
			flag = "◆"
		}
		num := fmt.Sprintf("%*d", numW, i)
		text := cell(flag+num+" "+stepIcon(s.Kind)+" "+stepSummary(s, ts.toolOf(s)), w)
		switch {
		case i == ts.step:
			lines = append(lines, sty.Selected.Render(text))
		case marked[i]:
			lines = append(lines, sty.Warn.Render(text))
		case s.IsError:
			lines = append(lines, sty.Error.Render(text))
		default:
			lines = append(lines, sty.Text.Render(text))
		}
	}
	return strings.Join(lines, "\n")
}

func (ts *traceScreen) detailPane(sty *themes.Styles, w, h int, foot string) string {
	inner := w - 2
	lines := ts.detailLines(sty, ts.step, inner)
	viewH := h - 2
	off := min(ts.detailOff, max(0, len(lines)-viewH)) // update keeps it there (trace_scroll.go)
	end := min(len(lines), off+viewH)
	body := strings.Join(lines[off:end], "\n")
	title := fmt.Sprintf("Step %d", ts.step)
	if len(lines) > viewH {
		title += fmt.Sprintf(" · %d-%d/%d", off+1, end, len(lines))
	}
	if ts.score != nil && len(ts.score.Markers) > 0 {
		title += " · [ ] markers"
	}
	return drawPaneFoot(ts.paneStyle(sty, paneDetail), sty, sty.Accent.Render(title), foot, body, w, h)
}

// stepHeader is the first lines of a step's detail: kind and metadata.
func (ts *traceScreen) stepHeader(sty *themes.Styles, i, w int) []string {
	s := ts.t.Steps[i]
	head := sty.Accent.Render(stepIcon(s.Kind)+" "+string(s.Kind)) + " "
	var meta []string
	if s.Tool != "" {
		meta = append(meta, sty.Bold.Render(model.CleanLine(s.Tool)))
	}
	if s.ID != "" {
		meta = append(meta, sty.Subtle.Render("id "+model.CleanLine(s.ID)))
	}
	if s.CallID != "" {
		meta = append(meta, sty.Subtle.Render("answers "+model.CleanLine(s.CallID)))
	}
	if s.Credential != "" {
		meta = append(meta, sty.Subtle.Render("as ")+credStyle(sty, s.Credential, ts.t.AsUser)(model.CleanLine(s.Credential)))
	}
	if s.Kind == model.KindToolResult {
		if s.AsOf != "" {
			meta = append(meta, sty.Subtle.Render("as_of "+model.CleanLine(s.AsOf)))
		} else {
			meta = append(meta, sty.Warn.Render("no as_of"))
		}
	}
	if s.IsError {
		meta = append(meta, sty.Error.Render("error"))
	}
	if s.HasMore || s.NextCursor != "" {
		meta = append(meta, sty.Warn.Render("has more (next_cursor "+model.CleanLine(s.NextCursor)+")"))
	}
	out := wrapLines([]string{head + strings.Join(meta, "  ")}, w)
	return append(out, "")
}

func credStyle(sty *themes.Styles, cred, user string) func(...string) string {
	if user != "" && cred != user {
		return sty.Warn.Render
	}
	return sty.Text.Render
}

// detailLines draws step i at width w (cached).
func (ts *traceScreen) detailLines(sty *themes.Styles, i, w int) []string {
	if i < 0 || i >= len(ts.t.Steps) {
		return nil
	}
	k := detailKey{i, w, ts.markerInStep(i), ts.hoff}
	if l, ok := ts.cache[k]; ok {
		return l
	}
	s := ts.t.Steps[i]
	lines := ts.stepHeader(sty, i, w)
	add := func(ls []string) { lines = append(lines, wrapLines(ls, w)...) }
	section := func(name string) {
		lines = append(lines, sty.Subtle.Render("── "+name+" "+strings.Repeat("─", max(0, w-len(name)-4))))
	}
	if s.Text != "" {
		text, cut := capText(s.Text)
		add(strings.Split(markedText(sty, text, ts.score.MarkersIn(i), k.marker), "\n"))
		if cut > 0 {
			lines = append(lines, sty.Subtle.Render(fmt.Sprintf("… %d more bytes not shown", cut)))
		}
	}
	if sql := sqlOf(s.Args); sql != "" {
		section("SQL")
		text, _ := capText(layoutSQL(sql))
		add(highlight(sty, "sql", text))
	}
	if len(s.Args) > 0 && !onlySQL(s.Args) {
		section("arguments")
		text, cut := capText(prettyJSON(s.Args))
		add(highlight(sty, "json", text))
		if cut > 0 {
			lines = append(lines, sty.Subtle.Render(fmt.Sprintf("… %d more bytes not shown", cut)))
		}
	}
	if tbl := resultTable(sty, s.Result, w, ts.hoff, evidenceColumns(s.Result, ts.evidenceAbout(i))); tbl != nil {
		section("result")
		lines = append(lines, tbl...)
	} else if len(s.Result) > 0 {
		section("result")
		text, cut := capText(prettyJSON(s.Result))
		add(highlight(sty, "json", text))
		if cut > 0 {
			lines = append(lines, sty.Subtle.Render(fmt.Sprintf("… %d more bytes not shown", cut)))
		}
	}
	ts.cache[k] = lines
	return lines
}

// scorePane is the scoring panel: fields used with their gold status,
// the metrics of this trace and the suggested class with its evidence.
// It is drawn by update (trace_scroll.go), which keeps the selected row
// in view; view only reads it.
func (ts *traceScreen) scorePane(sty *themes.Styles, w, h int) string {
	if d, ok := ts.scoreCache[ts.scoreKey(w, h)]; ok {
		return d.s
	}
	s := ts.drawScorePane(sty, w, h).s
	return s
}

// drawScorePane draws the pane and says the scroll state it drew at
// (update keeps it: trace_scroll.go); it changes nothing.
func (ts *traceScreen) drawScorePane(sty *themes.Styles, w, h int) scoreDrawn {
	inner := w - 2
	viewH := h - 2
	type row = panelRow
	var rows []row
	add := func(s string) { rows = append(rows, row{s, -1}) }
	if ts.score == nil {
		add(sty.Subtle.Render("not scored yet"))
		add(sty.Subtle.Render("run: tracelab score"))
	}
	evidenceHead := false
	for idx, it := range ts.items {
		if it.field != "" {
			if idx == 0 {
				add(sty.Bold.Render("Fields used"))
			}
			var mark, text string
			switch it.status {
			case "required":
				mark, text = sty.Required.Render("✓"), sty.Required.Render(it.field)
			case "forbidden":
				mark, text = sty.Forbidden.Render("✗"), sty.Forbidden.Render(it.field)
			case "missing":
				mark, text = sty.Warn.Render("○"), sty.Warn.Render(it.field)+sty.Subtle.Render(" required, unused")
			default:
				mark, text = sty.Neutral.Render("·"), sty.Text.Render(it.field)
			}
			if len(it.roles) > 0 {
				text += sty.Subtle.Render(" " + strings.Join(toStrings(it.roles), ","))
			}
			rows = append(rows, row{" " + mark + " " + text, idx})
			continue
		}
		if !evidenceHead {
			evidenceHead = true
			rows = append(rows, ts.metricRows(sty)...)
		}
		// Evidence wraps: the reason is the point of the line.
		lead := fmt.Sprintf("→ #%d ", it.step)
		text := it.class + " " + model.CleanLine(it.reason)
		wrapped := strings.Split(ansi.Wrap(text, max(8, inner-1-len([]rune(lead))), ""), "\n")
		for wi, wl := range wrapped {
			if wi == 0 {
				cls := it.class
				rest := strings.TrimPrefix(wl, cls)
				rows = append(rows, row{" " + sty.Accent.Render(lead) + classStyle(sty, cls)(cls) + sty.Text.Render(rest), idx})
				continue
			}
			rows = append(rows, row{" " + strings.Repeat(" ", len([]rune(lead))) + sty.Text.Render(wl), idx})
		}
	}
	if !evidenceHead && ts.score != nil {
		rows = append(rows, ts.metricRows(sty)...)
	}
	// The suggestion is the engine's, recomputed on every load and kept
	// apart from the gold being edited: it stays after edits and undos.
	sugFrom, sugTo := -1, -1
	if sv := ts.score; sv != nil && sv.SuggestedGold != nil && len(sv.GoldSources) > 0 {
		add("")
		sugFrom = len(rows)
		add(sty.Bold.Render("Suggested gold") + sty.Subtle.Render(" (a accepts)"))
		for _, src := range sv.GoldSources {
			field, why, _ := strings.Cut(src, ": ")
			mark := sty.Required.Render("✓ ")
			if slices.Contains(sv.SuggestedGold.ForbiddenFields, field) {
				mark = sty.Forbidden.Render("✗ ")
			}
			for i, l := range strings.Split(ansi.Wrap(model.CleanLine(field)+" "+model.CleanLine(why), max(8, inner-3), ""), "\n") {
				if i == 0 {
					add(" " + mark + sty.Text.Render(l))
				} else {
					add("   " + sty.Subtle.Render(l))
				}
			}
		}
		for _, l := range ts.suggestionRows(sty, inner) {
			add(l)
		}
		sugTo = len(rows)
	}
	if ts.score != nil && ts.score.NeedsHumanReview {
		add("")
		add(sty.Warn.Render("needs human review"))
		// Wrapped, not cut: the reason is what the reviewer must read.
		for _, r := range ts.score.ReviewReasons {
			for i, l := range strings.Split(ansi.Wrap(model.CleanLine(r), max(8, inner-3), ""), "\n") {
				lead := "   "
				if i == 0 {
					lead = " · "
				}
				add(sty.Subtle.Render(lead + l))
			}
		}
	}
	var sd scoreDrawn
	sd.off, sd.sel, sd.max = ts.placeScoreRows(rows, viewH)
	foot := ""
	if sugFrom >= 0 && (sugFrom < sd.off || sugTo > sd.off+viewH) {
		// The suggestion is cut: its summary stays in the border.
		foot = ts.acceptSummary(inner - 4)
	}
	off := sd.off
	title := "Scoring"
	if len(rows) > viewH {
		title += fmt.Sprintf(" · %d-%d/%d", off+1, min(len(rows), off+viewH), len(rows))
	}
	var out []string
	for i := off; i < len(rows) && len(out) < viewH; i++ {
		r := rows[i]
		text := cell(r.text, inner)
		if r.item >= 0 && r.item == ts.item {
			// The cursor shows without the focus too: r and x act on it
			// once the pane is focused, and the labeler sees where.
			st := sty.SelectedIdle
			if ts.focus == paneScore {
				st = sty.Selected
			}
			text = st.Render(cell(stripStyles(r.text), inner))
		}
		out = append(out, text)
	}
	sd.s = drawPaneFoot(ts.paneStyle(sty, paneScore), sty, sty.Accent.Render(title), foot, strings.Join(out, "\n"), w, h)
	return sd
}

func (ts *traceScreen) metricRows(sty *themes.Styles) []panelRow {
	sv := ts.score
	type row = panelRow
	num := func(p *float64) string {
		if p == nil {
			return sty.Subtle.Render("n/a")
		}
		v := *p
		st := sty.OK
		if v < 0.5 {
			st = sty.Error
		} else if v < 1 {
			st = sty.Warn
		}
		return st.Render(strconv.FormatFloat(v, 'f', 2, 64))
	}
	pass := func(b *bool, yes, no string) string {
		switch {
		case b == nil:
			return sty.Subtle.Render("undecided")
		case *b:
			return sty.OK.Render("✓ " + yes)
		}
		return sty.Error.Render("✗ " + no)
	}
	policy := sty.Subtle.Render("not checked")
	if sv.PolicyViolations != nil {
		if *sv.PolicyViolations == 0 {
			policy = sty.OK.Render("✓ no violation")
		} else {
			policy = sty.Error.Render(fmt.Sprintf("✗ %d call(s) violate", *sv.PolicyViolations))
		}
	}
	k := func(s string) string { return sty.Subtle.Render(cell(s, 11)) }
	rows := []row{
		{"", -1},
		{k("precision") + num(sv.GroundingPrecision) + "  " + sty.Subtle.Render("recall ") + num(sv.GroundingRecall), -1},
	}
	// Task precision is the mean over the field-using calls: with more
	// than one, each call's own figure says which one lowered it.
	if len(sv.CallGrounding) > 1 {
		for _, c := range sv.CallGrounding {
			rows = append(rows, row{sty.Subtle.Render(fmt.Sprintf("  #%d %s ", c.Step, model.CleanLine(c.Tool))) +
				num(&c.Precision) + sty.Subtle.Render(fmt.Sprintf(" (%d of %d required)", c.Required, c.Used)), -1})
		}
	}
	rows = append(rows, []row{
		{k("definition") + pass(sv.DefinitionMatch, "matches", "no match"), -1},
		{k("freshness") + pass(sv.FreshnessPass, "fresh", "stale or no as_of"), -1},
		{k("policy") + policy, -1},
	}...)
	sug := sty.Subtle.Render("none")
	if sv.SuggestedClass != nil {
		sug = classStyle(sty, string(*sv.SuggestedClass))(string(*sv.SuggestedClass))
		for _, c := range sv.Classes {
			if c.Class == *sv.SuggestedClass {
				sug += sty.Subtle.Render(fmt.Sprintf(" (%.2f)", c.Confidence))
			}
		}
	}
	rows = append(rows, row{k("suggested") + sug, -1})
	if len(sv.Classes) > 0 {
		hint := "evidence (enter jumps)"
		if ts.sideBySide() {
			hint = "evidence (j/k shows its step)"
		}
		rows = append(rows, row{sty.Subtle.Render(hint), -1})
	}
	return rows
}

func stripStyles(s string) string { return ansi.Strip(s) }

func ansiWidth(s string) int              { return ansi.StringWidth(s) }
func ansiTruncate(s string, w int) string { return ansi.Truncate(s, w, "…") }
