package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracelab-dev/tracelab/themes"
)

// helpEntry is one line of the full help: a key and what it does.
type helpEntry struct{ key, desc string }

// helpColumns lays the full help out in the room of a w x h box. Each
// group is a column where they all fit; else the entries flow column by
// column, in the order the groups list them (the screen's own keys first,
// so the labeling keys and the five classes are the last to go), and the
// descriptions shorten before any entry is left out. It returns the lines
// and how many entries did not fit.
func helpColumns(sty *themes.Styles, groups [][]key.Binding, w, rows int) ([]string, int) {
	rows = max(1, rows)
	var cols [][]helpEntry
	var all []helpEntry
	for _, g := range groups {
		var es []helpEntry
		for _, b := range g {
			if b.Enabled() && b.Help().Key != "" {
				es = append(es, helpEntry{b.Help().Key, b.Help().Desc})
			}
		}
		all = append(all, es...)
		cols = append(cols, chunk(es, rows)...)
	}
	const gap = 2
	if naturalWidth(cols, gap) > w {
		cols = chunk(all, rows)
	}
	hidden := 0
	keyW, descW := make([]int, len(cols)), make([]int, len(cols))
	for i, c := range cols {
		for _, e := range c {
			keyW[i] = max(keyW[i], ansi.StringWidth(e.key))
			descW[i] = max(descW[i], ansi.StringWidth(e.desc))
		}
	}
	// Shorten the widest description until the columns fit, down to a
	// few letters; then leave out the last columns.
	total := func() int {
		n := gap * max(0, len(cols)-1)
		for i := range cols {
			n += keyW[i] + 1 + descW[i]
		}
		return n
	}
	for total() > w {
		widest := 0
		for i := range cols {
			if descW[i] > descW[widest] {
				widest = i
			}
		}
		if descW[widest] > 10 { // a class name (structural) stays whole
			descW[widest]--
			continue
		}
		last := len(cols) - 1
		if last == 0 {
			break
		}
		hidden += len(cols[last])
		cols, keyW, descW = cols[:last], keyW[:last], descW[:last]
	}
	lines := make([]string, 0, rows)
	for r := 0; r < rows; r++ {
		var b strings.Builder
		for i, c := range cols {
			if i > 0 {
				b.WriteString(strings.Repeat(" ", gap))
			}
			e := helpEntry{}
			if r < len(c) {
				e = c[r]
			}
			b.WriteString(sty.HelpKey.Render(cell(e.key, keyW[i])) + " " + sty.HelpDesc.Render(cell(e.desc, descW[i])))
		}
		lines = append(lines, strings.TrimRight(b.String(), " "))
	}
	for len(lines) > 0 && strings.TrimSpace(stripStyles(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines, hidden
}

func chunk(es []helpEntry, n int) [][]helpEntry {
	var out [][]helpEntry
	for len(es) > n {
		out = append(out, es[:n])
		es = es[n:]
	}
	if len(es) > 0 {
		out = append(out, es)
	}
	return out
}

func naturalWidth(cols [][]helpEntry, gap int) int {
	n := gap * max(0, len(cols)-1)
	for _, c := range cols {
		kw, dw := 0, 0
		for _, e := range c {
			kw = max(kw, ansi.StringWidth(e.key))
			dw = max(dw, ansi.StringWidth(e.desc))
		}
		n += kw + 1 + dw
	}
	return n
}
