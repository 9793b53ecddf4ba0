package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestCellKeepsColumns(t *testing.T) {
	cases := []struct {
		in   string
		w    int
		want string
	}{
		{"abc", 5, "abc  "},
		{"abcdef", 4, "abc…"},
		{"顧客データ", 5, "顧客…"}, // wide runes: 2 cells each
		{"📊 sales", 4, "📊 …"},
		{"\x1b[31mred\x1b[m", 2, "\x1b[31mr…\x1b[m"},
		{"", 3, "   "},
		{"x", 0, ""},
	}
	for _, c := range cases {
		got := cell(c.in, c.w)
		if ansi.Strip(got) != ansi.Strip(c.want) {
			t.Errorf("cell(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
		if w := ansi.StringWidth(got); w != c.w {
			t.Errorf("cell(%q, %d) is %d cells wide", c.in, c.w, w)
		}
	}
}

func TestCarryStyles(t *testing.T) {
	cases := []struct {
		in, want []string
	}{
		{[]string{"plain", "text"}, []string{"plain", "text"}},
		{[]string{"\x1b[31mred and", "more red\x1b[m"}, []string{"\x1b[31mred and\x1b[m", "\x1b[31mmore red\x1b[m"}},
		{[]string{"\x1b[1mbold\x1b[m then", "plain"}, []string{"\x1b[1mbold\x1b[m then", "plain"}},
	}
	for _, c := range cases {
		got := carryStyles(append([]string(nil), c.in...))
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("carryStyles(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestJoinAndPaneSizes(t *testing.T) {
	for _, sz := range [][2]int{{4, 3}, {20, 5}, {81, 40}} {
		p := drawPane(newTestStyles().Pane, "Title that is long", "a\nb 顧客\nc", sz[0], sz[1])
		lines := strings.Split(p, "\n")
		if len(lines) != sz[1] {
			t.Fatalf("pane %v has %d lines", sz, len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w != sz[0] {
				t.Errorf("pane %v line %d is %d wide: %q", sz, i, w, l)
			}
		}
	}
	if got := joinH("a\nb", "cc\ndd"); got != "acc\nbdd" {
		t.Errorf("joinH = %q", got)
	}
}
