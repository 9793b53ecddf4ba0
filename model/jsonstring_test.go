package model

import "testing"

func TestAppendUnquoted(t *testing.T) {
	tests := []struct {
		in, want, wantKept string // wantKept: without replaceInvalid
		next               int
		ok                 bool
	}{
		{`plain" rest`, "plain", "plain", 6, true},
		{`a\"b\\c\/d\n\t\r\b\f" x`, "a\"b\\c/d\n\t\r\b\f", "a\"b\\c/d\n\t\r\b\f", 21, true},
		{`\u00e9\ud83c\udf89"`, "é🎉", "é🎉", 19, true},
		{`\ud83c\u0041"`, "\uFFFDA", "\uFFFDA", 13, true}, // a lone half, then its neighbour on its own
		{"bad \xff\"", "bad \uFFFD", "bad \xff", 6, true},
		{`no end`, "no end", "no end", 6, false},
		{`\q"`, "", "", 2, false},
		{`\u12"`, "", "", 2, false},
		{"ctl \x01\"", "ctl ", "ctl ", 4, false},
	}
	for _, tt := range tests {
		got, next, ok := AppendUnquoted(nil, []byte(tt.in), 0, true)
		kept, _, _ := AppendUnquoted(nil, []byte(tt.in), 0, false)
		if string(got) != tt.want || string(kept) != tt.wantKept || next != tt.next || ok != tt.ok {
			t.Errorf("AppendUnquoted(%q) = %q (kept %q), %d, %v; want %q (%q), %d, %v",
				tt.in, got, kept, next, ok, tt.want, tt.wantKept, tt.next, tt.ok)
		}
	}
}

func TestJSONNumberLen(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"0", 1}, {"-0", 2}, {"01", 1}, {"123,", 3}, {"-12.50e+3]", 9}, {"1E-2", 4}, {"1.5.3", 3},
		{"", 0}, {"-", 0}, {"-a", 0}, {"+1", 0}, {".5", 0}, {"1.", 0}, {"1.e5", 0}, {"1e", 0}, {"1e+", 0}, {"x", 0},
	} {
		if got := JSONNumberLen([]byte(tt.in)); got != tt.want {
			t.Errorf("JSONNumberLen(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestSkipJSONSpace(t *testing.T) {
	for _, tt := range []struct {
		in       string
		from, to int
	}{{" \t\r\n x", 0, 5}, {"x  ", 1, 3}, {"\v", 0, 0}, {"", 0, 0}, {"a b", 2, 2}} {
		if got := SkipJSONSpace(tt.in, tt.from); got != tt.to {
			t.Errorf("SkipJSONSpace(%q, %d) = %d, want %d", tt.in, tt.from, got, tt.to)
		}
		if got := SkipJSONSpace([]byte(tt.in), tt.from); got != tt.to {
			t.Errorf("SkipJSONSpace([]byte(%q), %d) = %d, want %d", tt.in, tt.from, got, tt.to)
		}
	}
}
