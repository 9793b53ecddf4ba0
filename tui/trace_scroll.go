package tui

// The trace screen's scroll offsets are kept in update, the way
// bubbles/viewport keeps its own: view draws from them and changes
// nothing (it may be called any number of times, from any copy).

// scrollInto is the first row to show so that row sel is among the h
// shown, moving as little as possible from off.
func scrollInto(off, sel, h int) int {
	if sel < off {
		off = sel
	}
	if sel >= off+h {
		off = sel - h + 1
	}
	return max(0, off)
}

func (ts *traceScreen) scoreKey(w, h int) scoreKey {
	return scoreKey{ts.item, ts.itemOff, w, h, ts.focus == paneScore, ts.scoreFree, ts.sideBySide(), ts.rec, ts.score}
}

// paneHeight is the height of the panes under the trace's header lines
// in a body of h lines (as view lays it out).
func (ts *traceScreen) paneHeight(w, h int) int {
	head := len(ts.headerLines(ts.sty, w))
	if ts.ratersShown() && h >= 20 {
		head += len(ts.ratersLines(ts.sty, w, h >= 40))
	}
	if _, ok := ts.judgeLine(ts.sty, w); ok && h >= 16 {
		head++
	}
	return max(3, h-head)
}

// syncScroll runs after every update: the selected step stays in the
// step list, the detail does not scroll past its last line, and the
// scoring pane's cursor stays in view (drawing the pane here, for view
// to read).
func (ts *traceScreen) syncScroll() {
	if ts.t == nil || ts.sty == nil || ts.width <= 0 {
		return
	}
	w, bodyH := ts.width, ts.height-2 // the root's title and status bars
	paneH := ts.paneHeight(w, bodyH)
	ts.stepOff = scrollInto(ts.stepOff, ts.step, max(1, paneH-2))
	_, detailW, scoreW := ts.widths(w)
	if ts.step >= 0 && ts.step < len(ts.t.Steps) {
		lines := ts.detailLines(ts.sty, ts.step, detailW)
		ts.detailOff = min(ts.detailOff, max(0, len(lines)-(paneH-2)))
	}
	switch {
	case scoreW > 0:
		ts.syncScorePane(scoreW, paneH)
	case ts.focus == paneScore:
		ts.syncScorePane(detailW+2, paneH)
	}
}

func (ts *traceScreen) syncScorePane(w, h int) {
	if d, ok := ts.scoreCache[ts.scoreKey(w, h)]; ok {
		ts.scoreSel, ts.scoreMax = d.sel, d.max
		return // drawn at this offset, which keeps the cursor in view
	}
	d := ts.drawScorePane(ts.sty, w, h)
	ts.itemOff, ts.scoreSel, ts.scoreMax = d.off, d.sel, d.max
	if ts.scoreCache == nil || len(ts.scoreCache) > 256 {
		ts.scoreCache = map[scoreKey]scoreDrawn{}
	}
	// Kept under the offset it settled on, which is what view asks for.
	ts.scoreCache[ts.scoreKey(w, h)] = d
}
