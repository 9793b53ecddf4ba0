package model

import (
	"fmt"
	"slices"
	"strings"
)

// GoldProblem is one thing wrong with a gold record: the field it is in,
// by the path the event log and cases.jsonl use, and what is wrong.
type GoldProblem struct {
	Field string // e.g. "gold.freshness_bound_hours", "gold.window.start"
	Msg   string
}

func (p GoldProblem) Error() string { return p.Field + ": " + p.Msg }

// Problems lists what is wrong with a gold record, in field order, or nil.
// It is the one statement of what a valid gold is: the cases.jsonl
// importer, the workbench's gold editor and every engine edit of gold
// refuse a record that has any.
func (g Gold) Problems() []GoldProblem {
	var ps []GoldProblem
	add := func(field, format string, args ...any) {
		ps = append(ps, GoldProblem{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if g.Tolerance != nil && *g.Tolerance < 0 {
		add("gold.tolerance", "must not be negative (%g)", *g.Tolerance)
	}
	// A bound of 0 hours fails every read, however fresh: it is always a slip.
	if h := g.FreshnessBoundHours; h != nil && *h <= 0 {
		add("gold.freshness_bound_hours", "must be greater than 0 hours (%g); leave it null for no bound", *h)
	}
	for _, list := range []struct {
		field  string
		fields []string
	}{{"gold.required_fields", g.RequiredFields}, {"gold.forbidden_fields", g.ForbiddenFields}} {
		for _, f := range list.fields {
			if !fieldShaped(f) {
				add(list.field, "%q should look like table.column or tool.argument", f)
				break
			}
		}
	}
	for _, f := range g.RequiredFields {
		if slices.Contains(g.ForbiddenFields, f) {
			add("gold.forbidden_fields", "%s is also required: a field cannot be both required and forbidden", f)
			break
		}
	}
	if w := g.Window; w != nil && *w != (Window{}) {
		if w.Calendar == "" {
			add("gold.window.calendar", "required when a window is set: fiscal or calendar")
		}
		if msg := WindowProblem(*w); msg != "" {
			field := "gold.window"
			for _, part := range []string{"start", "end", "calendar"} {
				if rest, ok := strings.CutPrefix(msg, part+": "); ok {
					field, msg = "gold.window."+part, rest
				}
			}
			add(field, "%s", msg)
		}
	}
	return ps
}

// fieldShaped says a field names a column or an argument of something:
// dotted, no blanks, no empty part at either end.
func fieldShaped(f string) bool {
	return f != "" && !strings.ContainsAny(f, " \t") && strings.Contains(f, ".") &&
		!strings.HasPrefix(f, ".") && !strings.HasSuffix(f, ".")
}
