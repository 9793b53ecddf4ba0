package model

import "testing"

func TestCleanText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "SELECT 1\n\tFROM t", "SELECT 1\n\tFROM t"},
		{"osc title", "before\x1b]0;owned\x07after", "beforeafter"},
		{"clear screen", "a\x1b[2Jb\x1b[31mred\x1b[0m", "abred"},
		{"c0 and del", "x\x00y\x08z\x7f", "xyz"},
		{"c1 csi", "a\u009b31mb", "a31mb"},
		{"carriage return", "safe\rEVIL", "safe\nEVIL"},
		{"wide kept", "数据 ✅ ok", "数据 ✅ ok"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"bidi override shown", "user\u202etxt.exe", `user\u202etxt.exe`},
		{"bidi isolates shown", "a\u2066b\u2069c", `a\u2066b\u2069c`},
		{"c1 osc in utf-8", "a\u009d0;t\u009cb", "a0;tb"},
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
