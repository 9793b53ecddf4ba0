package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"syscall"
)

// checkPath refuses a database path that names a directory, with a
// message that says so rather than SQLite's "unable to open database file".
func checkPath(path string) error {
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		// A PathError, like every other file the user named wrongly: exit 2.
		return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("is a directory, not a database file (give a file name, e.g. %s)",
			filepath.Join(path, "tracelab.db"))}
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// writable says the database at path may be written: it does not exist
// yet (it will be created) or this process may write it.
func writable(path string) bool {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return true
	}
	return syscall.Access(path, 2 /* W_OK */) == nil
}

// fileURI turns a file name into the URI the driver opens, so the name is
// only ever a name: '%', '?' and '#' are percent-encoded (SQLite decodes
// them back), so "team#1.db" and "q?x.db" are those files and a
// "?_pragma=…" inside a path is part of the name, never a setting. A name
// starting with "//" would read as a URI authority; cleaning it keeps the
// same file.
func fileURI(path string) string {
	if strings.HasPrefix(path, "//") {
		path = filepath.Clean(path)
	}
	var b strings.Builder
	b.WriteString("file:")
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case c == '%' || c == '?' || c == '#' || c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
