package model

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "SELECT 1\n\tFROM t", "SELECT 1\n\tFROM t"},
		{"osc title", "before\x1b]0;owned\x07after", "beforeafter"},
		{"clear screen", "a\x1b[2Jb\x1b[31mred\x1b[0m", "abred"},
		{"c0 and del", "x\x00y\x08z\x7f", "xyz"},
		{"c1 csi", "a\u009b31mb", "ab"},
		{"carriage return", "safe\rEVIL", "safe\nEVIL"},
		{"wide kept", "数据 ✅ ok", "数据 ✅ ok"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"bidi override shown", "user\u202etxt.exe", `user\u202etxt.exe`},
		{"bidi isolates shown", "a\u2066b\u2069c", `a\u2066b\u2069c`},
		// C1 string controls encoded in UTF-8 go as their 7-bit forms do:
		// the payload with the introducer, whatever the terminator.
		{"c1 osc, c1 st", "a\u009d0;owned\u009cb", "ab"},
		{"c1 osc, bel", "a\u009d0;owned\u0007b", "ab"},
		{"c1 osc, 7-bit st", "a\u009d8;;https://evil\x1b\\b", "ab"},
		{"7-bit osc, c1 st", "a\x1b]0;owned\u009cb", "ab"},
		{"c1 dcs", "a\u0090+q544e\u009cb", "ab"},
		{"c1 apc", "a\u009fGf=100;AAAA\u009cb", "ab"},
		{"c1 pm", "a\u009eprivate\u009cb", "ab"},
		{"c1 sos", "a\u0098start of string\u009cb", "ab"},
		{"c1 csi clear", "a\u009b2Jb", "ab"},
		{"c1 nel alone", "a\u0085b", "ab"},
		{"c1 st alone", "a\u009cb", "ab"},
	}
	for _, tt := range tests {
		if got := CleanText(tt.in); got != tt.want {
			t.Errorf("%s: CleanText(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
	if got := CleanLine("a\n\tb  c"); got != "a b c" {
		t.Errorf("CleanLine = %q", got)
	}
}

// c1Forms pairs each C1 control that opens or ends a control string with
// its 7-bit form.
var c1Forms = []struct{ c1, esc string }{
	{"\u009d", "\x1b]"}, {"\u0090", "\x1bP"}, {"\u0098", "\x1bX"}, {"\u009e", "\x1b^"}, {"\u009f", "\x1b_"},
	{"\u009b", "\x1b["}, {"\u009c", "\x1b\\"},
}

// FuzzCleanText: whatever the input, the output holds no control
// character but tab and newline, is valid UTF-8, cleans to itself, and
// is the same with every C1 control string written in its 7-bit form.
func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"a\u009d0;t\u009cb", "x\x1b]0;t\x07y", "\u0090q\x1b\\z", "plain", "\u009b31m\u009f\u009c", "\xff\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := CleanText(s)
		if !utf8.ValidString(got) {
			t.Fatalf("CleanText(%q) = %q: invalid UTF-8", s, got)
		}
		for _, r := range got {
			if (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
				t.Fatalf("CleanText(%q) = %q keeps control %U", s, got, r)
			}
		}
		if again := CleanText(got); again != got {
			t.Fatalf("CleanText not idempotent on %q: %q then %q", s, got, again)
		}
		seven := s
		for _, f := range c1Forms {
			seven = strings.ReplaceAll(seven, f.c1, f.esc)
		}
		if want := CleanText(seven); got != want {
			t.Fatalf("CleanText(%q) = %q, but its 7-bit form %q gives %q", s, got, seven, want)
		}
	})
}
