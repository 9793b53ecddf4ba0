package app

import (
	"strings"
	"testing"
)

// FuzzParseDBSource: a db: argument comes from the command line or a CI
// script. Whatever it holds, parsing never panics, recognizes exactly the
// db: prefix, and a source it accepts prints back to itself.
func FuzzParseDBSource(f *testing.F) {
	for _, s := range []string{"db:task-specific", "db:task-specific@r3", "db:a@b@previous", "db:", "db:@", "db:s@", "old.json", "-", "DB:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		src, ok, err := ParseDBSource(arg)
		if ok != strings.HasPrefix(arg, "db:") {
			t.Fatalf("%q: ok %v", arg, ok)
		}
		if !ok || err != nil {
			return
		}
		if src.Server == "" || src.String() != arg {
			t.Fatalf("%q: parsed %+v, prints %q", arg, src, src.String())
		}
		again, ok2, err2 := ParseDBSource(src.String())
		if !ok2 || err2 != nil || again != src {
			t.Fatalf("%q: reparse gives %+v %v %v", arg, again, ok2, err2)
		}
	})
}
