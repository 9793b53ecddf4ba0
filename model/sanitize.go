package model

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// CleanText makes untrusted trace text safe to draw on a terminal: escape
// sequences (CSI, OSC, DCS, …) are removed, then every C0 and C1 control
// character except tab and newline; carriage returns become newlines so a
// line cannot overwrite itself. Bidi controls are shown as \u202e: they
// cannot harm the terminal but can reorder what the reader sees (a
// "safe" id that reads backwards), so they stay visible. Invalid UTF-8
// becomes U+FFFD.
func CleanText(s string) string {
	if isPlain(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = ansi.Strip(sevenBitC1(s))
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n':
			b.WriteRune(r)
		case r == '\r':
			b.WriteByte('\n')
		case r < 0x20 || r == 0x7f || isC1(r):
			// dropped: a control character
		case IsBidiControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return strings.ReplaceAll(b.String(), "\n\n\n", "\n\n")
}

// sevenBitC1 rewrites each C1 control (U+0080–U+009F) as its 7-bit
// form, ESC and the character 0x40 lower. The escape-sequence parser reads
// bytes, so U+009D (OSC, UTF-8 C2 9D) was a plain character to it: the
// control itself was dropped below but its payload ("0;title") stayed
// visible, while ESC ] 0;title BEL was removed whole. As ESC ], ESC P,
// ESC X, ESC ^, ESC _ and ESC [ they are parsed (and removed) exactly as
// their 7-bit forms are, payload and terminator (BEL, ST or U+009C) with
// them.
func sevenBitC1(s string) string {
	if !strings.ContainsFunc(s, isC1) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if isC1(r) {
			b.WriteByte(0x1b)
			b.WriteByte(byte(r - 0x40))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// CleanLine is CleanText for one-line cells: tabs and newlines become spaces.
func CleanLine(s string) string {
	s = CleanText(s)
	if strings.ContainsAny(s, "\t\n") {
		s = strings.Join(strings.Fields(s), " ")
	}
	return s
}

// isPlain reports whether s is printable ASCII, tab or newline only: the
// common case, returned unchanged without allocation.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x7f || (c < 0x20 && c != '\t' && c != '\n') {
			return false
		}
	}
	return true
}

// IsBidiControl reports the Unicode bidirectional controls (embeddings,
// overrides, isolates and marks) that can reorder what a reader sees.
func IsBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f
}

// EscapeRunes shows every rune of s for which bad is true as \uXXXX, so
// output meant for logs and reviews cannot hide or reorder text.
func EscapeRunes(s string, bad func(rune) bool) string {
	if !strings.ContainsFunc(s, bad) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if bad(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// StripControls removes from s every escape sequence, every C0 and C1
// control but tab and newline, and the bidi controls: the last line of
// defence of a screen assembled from parts, run on the text between the
// screen's own styles. Unlike CleanText it keeps the width of what it
// keeps (bidi controls are dropped, not shown as \u202e; a carriage
// return is dropped, not made a line), so a laid-out screen keeps its
// layout.
func StripControls(s string) string {
	if isPlain(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = ansi.Strip(sevenBitC1(s))
	return strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f || isC1(r) || IsBidiControl(r) {
			return -1
		}
		return r
	}, s)
}
