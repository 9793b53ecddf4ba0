package app

import (
	"fmt"

	"github.com/tracelab-dev/tracelab/model"
)

// Unnamed counts the traces of a file that named no server or no user of
// their own: each took the import's default (--server, --as-user), which
// may be none.
type Unnamed struct{ Server, AsUser int }

// note counts t before the defaults fill it in. It runs on the parser's
// goroutine; the writer reads the counts once the parser is done.
func (u *Unnamed) note(t *model.Trace) {
	if t.Server == "" {
		u.Server++
	}
	if t.AsUser == "" {
		u.AsUser++
	}
}

// DefaultsNotes are the lines that say which defaults the traces that
// named no server or no user were stored with: a user who left --server
// out otherwise finds a blank server in every list and report.
func (r ImportResult) DefaultsNotes(d Defaults) []string {
	var out []string
	for _, f := range []struct {
		n          int
		what, flag string
		value      string
	}{{r.Unnamed.Server, "server", "--server", d.Server}, {r.Unnamed.AsUser, "user (as_user)", "--as-user", d.AsUser}} {
		switch {
		case f.n == 0:
		case f.value != "":
			out = append(out, fmt.Sprintf("note: %s: %d trace(s) name no %s: stored with %s %q", r.File, f.n, f.what, f.flag, f.value))
		default:
			out = append(out, fmt.Sprintf("note: %s: %d trace(s) name no %s: stored with none (empty); give %s NAME to set one", r.File, f.n, f.what, f.flag))
		}
	}
	return out
}
