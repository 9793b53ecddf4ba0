package cireport

import "github.com/tracelab-dev/tracelab/model"

// Printable makes untrusted text (tool and property names come from the
// listings, case ids and reasons from suites) safe to print: control
// characters, which could move the cursor, recolor a terminal or start a
// new CI log line, and Unicode bidirectional overrides, which could reorder
// what a reviewer reads, are shown as escapes instead.
func Printable(s string) string {
	return model.EscapeRunes(s, func(r rune) bool {
		return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || model.IsBidiControl(r)
	})
}
