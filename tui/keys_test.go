package tui

import (
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

// keyString is a key as key.Matches reads it (a tea.KeyPressMsg's String).
type keyString string

func (k keyString) String() string { return string(k) }

// TestHelpIsHonest checks each screen that keeps its keys as data (as
// charmbracelet/crush checks its own): every binding appears in the
// screen's help, and every key a help line names reaches a binding that
// says the same, neither shadowed by an earlier binding nor by a global
// key the root takes first.
func TestHelpIsHonest(t *testing.T) {
	eng, _ := openFixtureStore(t)
	m := New(eng, Options{Labeler: "tester"})
	km := m.env.keys
	screens := []struct {
		name string
		cmds commands
		help helpKeys
	}{
		{"trace", m.trace.commands(), m.trace.help(km)},
		{"queue", m.queue.commands(), m.queue.help(km)},
		{"report", m.report.commands(), m.report.help(km)},
	}
	global := km.Global.all()
	// The keys the root takes before the screen (esc is each screen's).
	g := km.Global
	rootKeys := []key.Binding{g.Quit, g.ForceQuit, g.Help, g.Queue, g.Trace, g.Report, g.Drift}
	isGlobal := func(b key.Binding) bool {
		return slices.ContainsFunc(global, func(g key.Binding) bool { return sameBinding(g, b) })
	}
	for _, sc := range screens {
		t.Run(sc.name, func(t *testing.T) {
			var listed []key.Binding
			for _, g := range sc.help.full {
				listed = append(listed, g...)
			}
			for _, c := range sc.cmds {
				if c.run == nil {
					t.Errorf("%q is bound to nothing", c.key.Help().Key)
				}
				if c.key.Help().Key == "" || c.key.Help().Desc == "" {
					t.Errorf("binding %v has no help line", c.key.Keys())
				}
				if !slices.ContainsFunc(listed, func(b key.Binding) bool { return sameBinding(b, c.key) }) {
					t.Errorf("%q %q is bound but not in the help", c.key.Help().Key, c.key.Help().Desc)
				}
			}
			for _, b := range append(listed, sc.help.short...) {
				for _, k := range b.Keys() {
					if isGlobal(b) {
						continue // the root's, checked below
					}
					for _, g := range rootKeys {
						if key.Matches(keyString(k), g) {
							t.Errorf("help line %q: the global %q takes %s first", b.Help().Desc, g.Help().Desc, k)
						}
					}
					i := slices.IndexFunc(sc.cmds, func(c command) bool { return key.Matches(keyString(k), c.key) })
					switch {
					case i < 0:
						t.Errorf("help line %q %q: %s is bound to nothing", b.Help().Key, b.Help().Desc, k)
					case !sameBinding(sc.cmds[i].key, b) && !strings.Contains(b.Help().Key, "-"):
						// A range line (1-5) names several bindings.
						t.Errorf("help line %q %q: %s runs %q", b.Help().Key, b.Help().Desc, k, sc.cmds[i].key.Help().Desc)
					}
				}
			}
		})
	}
	// The five classes are named with their keys, not as "1-5".
	help := m.trace.help(km)
	for i, want := range []string{"1 entity", "2 semantic", "3 structural", "4 temporal", "5 policy"} {
		found := false
		for _, g := range help.full {
			for _, b := range g {
				found = found || b.Help().Key+" "+b.Help().Desc == want
			}
		}
		if !found {
			t.Errorf("class %d: no help line %q", i+1, want)
		}
	}
}

func sameBinding(a, b key.Binding) bool {
	return slices.Equal(a.Keys(), b.Keys()) && a.Help() == b.Help()
}
