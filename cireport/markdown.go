package cireport

import "strings"

// Cell makes text safe inside a markdown table cell: printable (so one
// line) and a | that would end the cell escaped.
func Cell(s string) string {
	return strings.ReplaceAll(Printable(s), "|", `\|`)
}

// Text makes outside text (a trace's reason, a server name) safe as the
// plain text of a markdown table cell: one printable line in which nothing
// becomes markup. The characters that open markup are backslash-escaped:
// HTML tags (<img>, <details>) and entities, links and images, emphasis,
// code spans, strike-through, GitHub's $math$; and the autolinks GitHub
// makes of bare text: "://" (escaped ':'), "www." (escaped '.') and
// e-mail addresses (escaped '@').
func Text(s string) string {
	p := Printable(s)
	var b strings.Builder
	b.Grow(len(p) + len(p)/4)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case strings.IndexByte("\\`*_[]<>&!|~$@", c) >= 0,
			c == ':' && strings.HasPrefix(p[i+1:], "/"),
			c == '.' && i >= 3 && strings.EqualFold(p[i-3:i], "www"):
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Code is a cell holding inline code. A backtick in s would end the span
// early, so the fence is made longer than any run of backticks inside.
func Code(s string) string {
	c := Cell(s)
	fence := "`"
	for strings.Contains(c, fence) {
		fence += "`"
	}
	if strings.HasPrefix(c, "`") || strings.HasSuffix(c, "`") {
		c = " " + c + " "
	}
	return fence + c + fence
}

// Table is a markdown table; Align holds "l", "r" or "" per column.
type Table struct {
	Header []string
	Align  []string
	Rows   [][]string // cells already escaped (Cell, Code) or markup
}

// String writes the table, one row per line, each row padded or cut to
// the header's width so a bad row cannot shift the columns.
func (t Table) String() string {
	var b strings.Builder
	row := func(cells []string) {
		b.WriteString("|")
		for i := range t.Header {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	row(t.Header)
	b.WriteString("|")
	for i := range t.Header {
		a := ""
		if i < len(t.Align) {
			a = t.Align[i]
		}
		switch a {
		case "r":
			b.WriteString("---:|")
		case "l":
			b.WriteString(":---|")
		default:
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		row(r)
	}
	return b.String()
}
