package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"tracelab/model"
	"tracelab/themes"
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
// when the result has another shape.
func resultTable(sty *themes.Styles, raw json.RawMessage, w int) []string {
	var t tabular
	if json.Unmarshal(raw, &t) != nil || len(t.Columns) == 0 || t.Rows == nil {
		return nil
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
		row := make([]string, len(t.Columns))
		for j := range row {
			if j < len(vals) {
				row[j] = cellValue(vals[j])
			}
		}
		cells = append(cells, row)
	}
	widths := make([]int, len(t.Columns))
	for j, c := range t.Columns {
		widths[j] = min(30, ansiWidth(model.CleanLine(c)))
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
	head := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		head[j] = model.CleanLine(c)
	}
	out := []string{sty.Header.Render(cell(line(head), min(w, ansiWidth(line(head)))))}
	for _, row := range cells {
		out = append(out, sty.Text.Render(cell(line(row), min(w, ansiWidth(line(row))))))
	}
	n := len(t.Rows)
	if t.RowCount != nil {
		n = *t.RowCount
	}
	note := fmt.Sprintf("%d row(s)", n)
	if len(t.Rows) > maxTableRows {
		note += fmt.Sprintf(", first %d shown", maxTableRows)
	}
	if ansiWidth(line(head)) > w {
		note += ", wider than the pane"
	}
	return append(out, sty.Subtle.Render(note))
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
