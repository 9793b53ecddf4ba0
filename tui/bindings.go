package tui

import (
	"errors"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
)

// command is one key of a screen as data, the way lazygit keeps its
// keybindings: the key and its help line (the key.Binding), the help
// column it is listed in, what it does, and why it cannot act now. A
// screen dispatches through its list and its help is generated from the
// same list, so a key cannot do something its help does not say, nor the
// help name a key that does nothing (TestHelpIsHonest).
type command struct {
	key key.Binding
	// group is the column of the full help the key is listed in.
	group int
	run   func(h host, msg tea.KeyPressMsg) tea.Cmd
	// disabled says why the key cannot act now ("" when it can); the
	// status line shows it instead of running the key.
	disabled func() string
}

// commands is a screen's keys, in the order they are matched.
type commands []command

// dispatch runs the first command msg matches, or says on the status
// line why it cannot act; ok is false when no command matches.
func (cs commands) dispatch(h host, msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	for _, c := range cs {
		if !key.Matches(msg, c.key) {
			continue
		}
		if c.disabled != nil {
			if why := c.disabled(); why != "" {
				h.setStatus(why, true)
				return nil, true
			}
		}
		return c.run(h, msg), true
	}
	return nil, false
}

// help is the full help of a screen: its commands by group, in the
// order they are listed, then the global keys.
func (cs commands) help(short []key.Binding, global []key.Binding) helpKeys {
	var groups [][]key.Binding
	for _, c := range cs {
		for len(groups) <= c.group {
			groups = append(groups, nil)
		}
		groups[c.group] = append(groups[c.group], c.key)
	}
	groups = slices.DeleteFunc(groups, func(g []key.Binding) bool { return len(g) == 0 })
	// A global key the screen binds itself (esc clears the queue's
	// filters) is listed once, as the screen's.
	global = slices.DeleteFunc(slices.Clone(global), func(g key.Binding) bool {
		return slices.ContainsFunc(cs, func(c command) bool {
			return slices.ContainsFunc(g.Keys(), func(k string) bool { return slices.Contains(c.key.Keys(), k) })
		})
	})
	return helpKeys{short: short, full: append(groups, global)}
}

// whyNot joins conditions: the first reason a key cannot act.
func whyNot(conds ...func() string) func() string {
	return func() string {
		for _, c := range conds {
			if why := c(); why != "" {
				return why
			}
		}
		return ""
	}
}

// readOnly is why no key that writes can act on a database opened
// read-only (the file is not writable by this user): said once, in
// words, instead of the driver's "attempt to write a readonly database".
func (e *env) readOnly() string {
	if e.eng != nil && e.eng.ReadOnly() {
		return readOnlyWhy
	}
	return ""
}

const readOnlyWhy = "read-only database: browsing only, nothing is saved"

// loadErr is the error of a screen's load as it is shown: a load that
// must write first (stale scores, missing hashes) on a read-only
// database says so in words.
func loadErr(err error) error {
	if app.IsReadOnly(err) {
		return errors.New("it must update this read-only database first (scores or hashes out of date): open a copy you may write")
	}
	return err
}

// errText is an error as the status line says it: a write refused by a
// read-only database in words, anything else as it is.
func errText(err error) string {
	if app.IsReadOnly(err) {
		return readOnlyWhy
	}
	return err.Error()
}
