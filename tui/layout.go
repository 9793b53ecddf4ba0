package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// cell fits s (which may hold styles) into exactly w columns: cut with an
// ellipsis when too wide, padded with spaces when too narrow. Widths are
// measured in cells, so wide characters and emoji keep columns aligned.
func cell(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// rcell is cell aligned right.
func rcell(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw >= w {
		return cell(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// spread puts left and right on one line of width w.
func spread(left, right string, w int) string {
	rw := ansi.StringWidth(right)
	if rw >= w {
		return cell(right, w)
	}
	return cell(left, w-rw) + right
}

// fitBlock makes s exactly h lines of exactly w columns.
func fitBlock(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = cell(l, w)
	}
	blank := strings.Repeat(" ", w)
	for len(lines) < h {
		lines = append(lines, blank)
	}
	return strings.Join(lines, "\n")
}

// overlay draws box centered over bg (both w×h blocks of lines).
func overlay(bg, box string, w, h int) string {
	bl := strings.Split(bg, "\n")
	ol := strings.Split(box, "\n")
	bw := 0
	for _, l := range ol {
		bw = max(bw, ansi.StringWidth(l))
	}
	if bw > w {
		bw = w
	}
	if len(ol) > h {
		ol = ol[:h]
	}
	x := (w - bw) / 2
	y := (h - len(ol)) / 2
	for i, l := range ol {
		r := y + i
		if r < 0 || r >= len(bl) {
			continue
		}
		base := bl[r]
		left := ansi.Truncate(base, x, "")
		left += strings.Repeat(" ", max(0, x-ansi.StringWidth(left)))
		right := ansi.TruncateLeft(base, x+bw, "")
		bl[r] = left + cell(l, bw) + right
	}
	return strings.Join(bl, "\n")
}

// pane draws content in a bordered box of exactly w×h with a title in the
// top border.
func drawPane(st lipgloss.Style, title string, content string, w, h int) string {
	if w < 4 || h < 3 {
		return fitBlock("", w, h)
	}
	inner := fitBlock(content, w-2, h-2)
	box := st.Width(w).Height(h).Render(inner)
	if title == "" {
		return box
	}
	lines := strings.SplitN(box, "\n", 2)
	top := lines[0]
	t := " " + title + " "
	if ansi.StringWidth(t) > w-4 {
		t = ansi.Truncate(t, w-4, "…")
	}
	// Keep the corner, write the title, keep the rest of the border.
	top = ansi.Truncate(top, 2, "") + t + ansi.TruncateLeft(top, 2+ansi.StringWidth(t), "")
	if len(lines) == 2 {
		return top + "\n" + lines[1]
	}
	return top
}

// joinH puts blocks side by side (each already exactly sized).
func joinH(blocks ...string) string {
	return lipgloss.JoinHorizontal(lipgloss.Top, blocks...)
}

// bar is a horizontal bar of n of max cells out of w.
func bar(n, maxN, w int) (full, empty int) {
	if maxN <= 0 || w <= 0 {
		return 0, w
	}
	full = n * w / maxN
	if n > 0 && full == 0 {
		full = 1
	}
	return full, w - full
}

// humanInt writes n with thousands separators.
func humanInt(n int) string {
	s := itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
