package tui

import (
	"bytes"
	"embed"
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/themes"
)

// maxHighlight bounds how much of one value is highlighted and drawn: a
// multi-megabyte tool result would otherwise stall the first draw.
const maxHighlight = 64 << 10

// lexerFiles are chroma's own SQL and JSON lexers (lexers/README.md):
// each is built the first time a value of its language is highlighted.
//
//go:embed lexers/*.xml
var lexerFiles embed.FS

var lexerOf = map[string]func() chroma.Lexer{
	"sql":  sync.OnceValue(func() chroma.Lexer { return chroma.MustNewXMLLexer(lexerFiles, "lexers/sql.xml") }),
	"json": sync.OnceValue(func() chroma.Lexer { return chroma.MustNewXMLLexer(lexerFiles, "lexers/json.xml") }),
}

// highlight colors code (lang "sql" or "json") with the theme's chroma
// style and returns one styled string per line. Text is cleaned first.
func highlight(sty *themes.Styles, lang, code string) []string {
	code = model.CleanText(code)
	lexerFor, ok := lexerOf[lang]
	if !ok || sty.Mono {
		return strings.Split(code, "\n")
	}
	lexer := chroma.Coalesce(lexerFor())
	it, err := lexer.Tokenise(nil, code)
	if err != nil {
		return strings.Split(code, "\n")
	}
	var lines []string
	var cur strings.Builder
	for tok := it(); tok != chroma.EOF; tok = it() {
		st := sty.Token(tok.Type)
		parts := strings.Split(tok.Value, "\n")
		for i, p := range parts {
			if i > 0 {
				lines = append(lines, cur.String())
				cur.Reset()
			}
			if p != "" {
				cur.WriteString(st.Render(p))
			}
		}
	}
	lines = append(lines, cur.String())
	// Lexers end with a newline token; drop the empty line it leaves.
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// prettyJSON indents raw JSON; invalid JSON is returned as written.
func prettyJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// capText cuts s at maxHighlight bytes on a line boundary and says so.
func capText(s string) (string, int) {
	if len(s) <= maxHighlight {
		return s, 0
	}
	cut := strings.LastIndexByte(s[:maxHighlight], '\n')
	if cut < 0 {
		cut = maxHighlight
	}
	return s[:cut], len(s) - cut
}

// markedText cleans raw text and lights up the marker spans (byte offsets
// into raw). Each piece is cleaned on its own so offsets stay true even
// when the text held control sequences.
func markedText(sty *themes.Styles, raw string, marks []app.Marker, current int) string {
	var b strings.Builder
	pos := 0
	for i, mk := range marks {
		if mk.Start < pos || mk.End > len(raw) || mk.Start >= mk.End {
			continue
		}
		st := sty.Marker
		if i == current {
			st = sty.MarkerCurrent // the one ] or [ went to
		}
		b.WriteString(renderLines(sty.Text, model.CleanText(raw[pos:mk.Start])))
		b.WriteString(renderLines(st, model.CleanText(raw[mk.Start:mk.End])))
		pos = mk.End
	}
	b.WriteString(renderLines(sty.Text, model.CleanText(raw[pos:])))
	return b.String()
}

// renderLines styles each line of s on its own: lipgloss would pad a
// multi-line block to its widest line, which breaks wrapping.
func renderLines(st lipgloss.Style, s string) string {
	if !strings.Contains(s, "\n") {
		if s == "" {
			return ""
		}
		return st.Render(s)
	}
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		if p != "" {
			parts[i] = st.Render(p)
		}
	}
	return strings.Join(parts, "\n")
}

// wrapLines soft-wraps styled lines to w columns.
func wrapLines(lines []string, w int) []string {
	if w < 1 {
		return lines
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if ansi.StringWidth(l) <= w {
			out = append(out, l)
			continue
		}
		out = append(out, carryStyles(strings.Split(ansi.Wrap(l, w, ""), "\n"))...)
	}
	return out
}

var sgrSeq = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// carryStyles makes each piece of a wrapped line stand alone: the styles
// open at the end of one piece are closed there and reopened on the next,
// so a piece drawn inside a border does not color the border.
func carryStyles(lines []string) []string {
	active := ""
	for i, l := range lines {
		prefix := active
		for _, seq := range sgrSeq.FindAllString(l, -1) {
			if seq == "\x1b[m" || seq == "\x1b[0m" {
				active = ""
			} else {
				active += seq
			}
		}
		if active != "" {
			l += "\x1b[m"
		}
		lines[i] = prefix + l
	}
	return lines
}
