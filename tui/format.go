package tui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// clauseWords start a new line when a one-line statement is laid out;
// andOr start an indented line. Longest first: "LEFT JOIN" before "JOIN".
var clauseWords = []string{"LEFT OUTER JOIN", "RIGHT OUTER JOIN", "FULL OUTER JOIN", "LEFT JOIN", "RIGHT JOIN",
	"INNER JOIN", "CROSS JOIN", "FULL JOIN", "GROUP BY", "ORDER BY", "UNION ALL", "UNION", "FROM", "WHERE",
	"JOIN", "HAVING", "LIMIT", "OFFSET", "WITH"}

// layoutSQL puts the clauses of a one-line statement on lines of their
// own for reading; text inside quotes is never touched, and a statement
// that already has line breaks is kept as its author wrote it.
func layoutSQL(sql string) string {
	if strings.Contains(sql, "\n") {
		return sql
	}
	var b strings.Builder
	var quote byte
	depth := 0
	for i := 0; i < len(sql); {
		c := sql[i]
		if quote != 0 {
			b.WriteByte(c)
			if c == quote {
				quote = 0
			}
			i++
			continue
		}
		switch c {
		case '\'', '"', '`':
			quote = c
		case '(':
			depth++
		case ')':
			depth--
		}
		if i > 0 && sql[i-1] == ' ' && depth == 0 {
			if w := wordAt(sql, i, clauseWords); w != "" {
				trimSpace(&b)
				b.WriteString("\n" + sql[i:i+len(w)])
				i += len(w)
				continue
			}
			if w := wordAt(sql, i, []string{"AND", "OR"}); w != "" {
				trimSpace(&b)
				b.WriteString("\n  " + sql[i:i+len(w)])
				i += len(w)
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// wordAt returns the word of words (case-insensitive, whole word) that
// sql has at i, or "".
func wordAt(sql string, i int, words []string) string {
	for _, w := range words {
		end := i + len(w)
		if end > len(sql) || !strings.EqualFold(sql[i:end], w) {
			continue
		}
		if end < len(sql) && isWordByte(sql[end]) {
			continue
		}
		return w
	}
	return ""
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func trimSpace(b *strings.Builder) {
	s := strings.TrimRight(b.String(), " ")
	b.Reset()
	b.WriteString(s)
}

// tabular is the row-returning result shape the sample servers use:
// {"columns":[…],"rows":[[…],…],"row_count":N}.
type tabular struct {
	Columns  []string          `json:"columns"`
	Rows     []json.RawMessage `json:"rows"`
	RowCount *int              `json:"row_count"`
}

// maxTableRows bounds the rows drawn as a table; the rest are counted.
const maxTableRows = 200

// resultTable draws a tabular result as an aligned table, or returns nil
// when the result has another shape. A "row" column numbers the rows from
// 0, as the scorer's evidence does ("row 1 has region = NA"); the columns
// named in first (the ones the evidence is about) come before the others,
// and the table is shown from column hoff on, cut to w: h and l scroll a
// table wider than the pane.
func resultTable(sty *themes.Styles, raw json.RawMessage, w, hoff int, first []string) []string {
	var t tabular
	if json.Unmarshal(raw, &t) != nil || len(t.Columns) == 0 || t.Rows == nil {
		return nil
	}
	order := make([]int, 0, len(t.Columns))
	for j, c := range t.Columns {
		if slices.Contains(first, c) {
			order = append(order, j)
		}
	}
	for j, c := range t.Columns {
		if !slices.Contains(first, c) {
			order = append(order, j)
		}
	}
	cells := make([][]string, 0, min(len(t.Rows), maxTableRows))
	for i, r := range t.Rows {
		if i == maxTableRows {
			break
		}
		var vals []json.RawMessage
		if json.Unmarshal(r, &vals) != nil {
			return nil // rows are objects or scalars: not this shape
		}
		row := []string{strconv.Itoa(i)}
		for _, j := range order {
			v := ""
			if j < len(vals) {
				v = cellValue(vals[j])
			}
			row = append(row, v)
		}
		cells = append(cells, row)
	}
	head := []string{"row"}
	for _, j := range order {
		head = append(head, model.CleanLine(t.Columns[j]))
	}
	widths := make([]int, len(head))
	for j, c := range head {
		widths[j] = min(30, ansiWidth(c))
		for _, row := range cells {
			widths[j] = min(30, max(widths[j], ansiWidth(row[j])))
		}
	}
	line := func(vals []string) string {
		parts := make([]string, len(vals))
		for j, v := range vals {
			parts[j] = cell(v, widths[j])
		}
		return strings.Join(parts, "  ")
	}
	full := ansiWidth(line(head))
	hoff = clamp(hoff, 0, max(0, full-w))
	view := func(l string) string { return ansi.Cut(l, hoff, hoff+min(w, full)) }
	out := []string{sty.Header.Render(view(line(head)))}
	for _, row := range cells {
		out = append(out, sty.Text.Render(view(line(row))))
	}
	n := len(t.Rows)
	if t.RowCount != nil {
		n = *t.RowCount
	}
	note := fmt.Sprintf("%d row(s)", n)
	if len(t.Rows) > maxTableRows {
		note += fmt.Sprintf(", first %d shown", maxTableRows)
	}
	if full > w {
		note += fmt.Sprintf(", columns %d-%d of %d wide: h/l scroll", hoff+1, min(full, hoff+w), full)
	}
	return append(out, sty.Subtle.Render(note))
}

// evidenceColumns lists the columns of a tabular result that the
// evidence about step names, so the table shows them first.
func evidenceColumns(raw json.RawMessage, reasons []string) []string {
	var t tabular
	if json.Unmarshal(raw, &t) != nil {
		return nil
	}
	var out []string
	for _, c := range t.Columns {
		for _, r := range reasons {
			if containsWord(r, c) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// containsWord reports whether w occurs in s between non-word characters.
func containsWord(s, w string) bool {
	if w == "" {
		return false
	}
	isWord := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for i := 0; ; {
		k := strings.Index(s[i:], w)
		if k < 0 {
			return false
		}
		a, b := i+k, i+k+len(w)
		if (a == 0 || !isWord(s[a-1])) && (b == len(s) || !isWord(s[b])) {
			return true
		}
		i = a + 1
	}
}

// cellValue is a JSON value as a table cell: strings unquoted, null empty.
func cellValue(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return model.CleanLine(s)
	}
	if string(v) == "null" {
		return ""
	}
	return model.CleanLine(string(v))
}
