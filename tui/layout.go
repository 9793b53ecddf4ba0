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
	w, h = max(0, w), max(0, h)
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

// drawPane draws content in a rounded box of exactly w×h, the title in
// the top border; bs colors the border. Drawn by hand: lipgloss's border
// rendering measures every line again and costs milliseconds per frame.
func drawPane(bs lipgloss.Style, title string, content string, w, h int) string {
	if w < 4 || h < 3 {
		return fitBlock("", w, h)
	}
	t := ""
	if title != "" {
		t = " " + title + " "
		if ansi.StringWidth(t) > w-4 {
			t = ansi.Truncate(t, w-4, "…")
		}
	}
	var b strings.Builder
	b.WriteString(bs.Render("╭─") + t + bs.Render(strings.Repeat("─", max(0, w-3-ansi.StringWidth(t)))+"╮"))
	side := bs.Render("│")
	for _, l := range strings.Split(fitBlock(content, w-2, h-2), "\n") {
		b.WriteString("\n" + side + l + side)
	}
	b.WriteString("\n" + bs.Render("╰"+strings.Repeat("─", w-2)+"╯"))
	return b.String()
}

// joinH puts blocks side by side; each must be exactly sized (same
// number of lines, every line of its block the same width).
func joinH(blocks ...string) string {
	if len(blocks) == 0 {
		return ""
	}
	split := make([][]string, len(blocks))
	n := 0
	for i, bl := range blocks {
		split[i] = strings.Split(bl, "\n")
		n = max(n, len(split[i]))
	}
	var b strings.Builder
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteByte('\n')
		}
		for _, lines := range split {
			if r < len(lines) {
				b.WriteString(lines[r])
			}
		}
	}
	return b.String()
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
