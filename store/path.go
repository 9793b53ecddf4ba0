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
	if err == nil && !fi.Mode().IsRegular() {
		// A FIFO would block or fail with SQLite's "disk I/O error".
		return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("is a %s, not a database file (give the path of a tracelab database)", kindOf(fi.Mode()))}
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err != nil {
		return checkNewPath(path)
	}
	return nil
}

// checkNewPath says why a database cannot be created at path, a file that
// does not exist yet: its folder is missing or this process may not write
// it. SQLite would say only "unable to open database file".
func checkNewPath(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &fs.PathError{Op: "create", Path: path, Err: fmt.Errorf("the folder %s does not exist", dir)}
	case err != nil:
		return err
	case !fi.IsDir():
		return &fs.PathError{Op: "create", Path: path, Err: fmt.Errorf("%s is not a folder", dir)}
	case syscall.Access(dir, 2|1 /* W_OK|X_OK */) != nil:
		return &fs.PathError{Op: "create", Path: path, Err: fmt.Errorf("the folder %s is not writable, so no database can be created in it (give --db a path you may write)", dir)}
	}
	return nil
}

// kindOf names a file type that is not a regular file.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
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

// WALError is a database whose latest changes sit in its -wal file, in a
// folder this process may not write: SQLite reads a WAL only through a
// -shm file beside it, and opening the file as immutable would skip the
// changes, so the store refuses instead of answering from stale data.
type WALError struct {
	Path string
	Size int64 // bytes in the -wal file
}

func (e *WALError) Error() string {
	dir := filepath.Dir(e.Path)
	return fmt.Sprintf("%s: its latest changes are still in %s-wal (%d bytes), and SQLite can read them only by writing %s-shm in %s, "+
		"which you may not write; reading without them would show an old database. "+
		"Copy the folder somewhere you can write (cp -a %s /tmp/copy) and open the copy, "+
		"or ask the owner of %s to open it once with tracelab (tracelab ls --db %s), which folds the changes into the file",
		e.Path, filepath.Base(e.Path), e.Size, filepath.Base(e.Path), dir, dir, e.Path, e.Path)
}

// unreadWAL is a *WALError when path has a non-empty -wal file beside it.
func unreadWAL(path string) error {
	fi, err := os.Stat(path + "-wal")
	if err != nil || fi.Size() == 0 {
		return nil
	}
	return &WALError{Path: path, Size: fi.Size()}
}
