package tui

// reportPinned is the report's lines that never scroll: the table header
// and the cases row, which every other number is out of.
const reportPinned = 2

// syncScroll keeps the class under the report's cursor in view, after
// every update (view draws from the offset and changes nothing).
func (r *reportScreen) syncScroll() {
	if r.sty == nil || r.width <= 0 {
		return
	}
	h := r.height - 2 // the root's title and status bars
	lines, cursorLine := r.lines(r.sty, r.width)
	if cursorLine < 0 || len(lines) <= h || h <= reportPinned {
		return
	}
	// The class's rows, one per server, end on the cursor's line.
	bodyH, last := h-reportPinned, cursorLine-reportPinned
	first := last - len(r.reports) + 1
	if last >= r.offset+bodyH {
		r.offset = last - bodyH + 1
	}
	if first < r.offset {
		r.offset = first
	}
	r.offset = clamp(r.offset, 0, len(lines)-reportPinned-bodyH)
}
