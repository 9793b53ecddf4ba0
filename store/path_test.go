package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFileURI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"tracelab.db", "file:tracelab.db"},
		{"/tmp/a b/x.db", "file:/tmp/a b/x.db"},
		{"team#1.db", "file:team%231.db"},
		{"q?x.db", "file:q%3Fx.db"},
		{"pct%41.db", "file:pct%2541.db"},
		{"a.db?_pragma=journal_mode(DELETE)", "file:a.db%3F_pragma=journal_mode(DELETE)"},
		{"//tmp/x.db", "file:/tmp/x.db"},
	}
	for _, tt := range tests {
		if got := fileURI(tt.in); got != tt.want {
			t.Errorf("fileURI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestOpenUsesPathsAsFileNames opens databases whose names look like URI
// syntax: each must create exactly that file, and a ?_pragma= in the name
// must not change the journal mode.
func TestOpenUsesPathsAsFileNames(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"team#1.db", "q?x.db", "pct%41.db", "a.db?_pragma=journal_mode(DELETE)"} {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		st, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var mode string
		if err := st.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("%s: journal_mode %q, %v: a setting came from the file name", name, mode, err)
		}
		st.Close()
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), "-wal") && !strings.HasSuffix(e.Name(), "-shm") {
				names = append(names, e.Name())
			}
		}
		if len(names) != 1 || names[0] != name {
			t.Errorf("opening %q made %q", name, names)
		}
	}
}

func TestOpenRefusesADirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(context.Background(), dir)
	if err == nil || !strings.Contains(err.Error(), "is a directory, not a database file") {
		t.Fatalf("Open(dir) = %v", err)
	}
}

// A database that does not exist yet in a folder that does not is refused
// naming the folder, as a PathError (the front ends exit 2); nothing is
// created.
func TestOpenNamesAMissingFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nosuch", "t.db")
	_, err := Open(context.Background(), path)
	var pe *fs.PathError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "the folder "+filepath.Dir(path)+" does not exist") {
		t.Fatalf("Open(%s) = %v", path, err)
	}
	if _, err := os.Stat(filepath.Dir(path)); err == nil {
		t.Error("the folder was created")
	}
}

// TestSchemaCheckedWhenReadOnly opens an up-to-date database read-only
// and one with an old schema, which cannot be upgraded without writing.
func TestSchemaCheckedWhenReadOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	ro, err := open(ctx, path, Options{}, readOnly)
	if err != nil {
		t.Fatal(err)
	}
	if !ro.ReadOnly() {
		t.Error("ReadOnly() is false for a mode=ro store")
	}
	if _, err := ro.db.ExecContext(ctx, "DELETE FROM traces"); !IsReadOnly(err) {
		t.Errorf("a write to a read-only database: %v", err)
	}
	ro.Close()
	st, _ = Open(ctx, path)
	st.db.ExecContext(ctx, "PRAGMA user_version = 1")
	st.Close()
	if _, err := open(ctx, path, Options{}, readOnly); err == nil || !strings.Contains(err.Error(), "needs upgrading") {
		t.Errorf("old schema read-only: %v", err)
	}
}
