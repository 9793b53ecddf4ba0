package cli

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// asReader runs the tracelab binary bin as a user who may read dir but
// not write it: nobody through runuser when the test runs as root (root
// writes every folder), else this user, whose folder is read-only.
func asReader(t *testing.T, dir, bin string, args ...string) proc {
	t.Helper()
	cmd := tracelabCmd(t, dir, args...)
	if os.Getuid() == 0 {
		cmd.Args = append([]string{"runuser", "-u", "nobody", "--", bin}, args...)
		cmd.Path = "/usr/sbin/runuser"
		if p, err := exec.LookPath("runuser"); err == nil {
			cmd.Path = p
		}
	} else {
		cmd.Path = bin
	}
	return finish(t, cmd)
}

// copyFile copies src to dst with mode.
func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, mode); err != nil {
		t.Fatal(err)
	}
}

// TestProcessStaleWALIsRefused: a database whose last import is still in
// its -wal file, without a -shm file, in a folder the reader may not
// write. Opened immutable, SQLite skipped the WAL and ls listed 13 of 19
// traces with exit 0; now the reader is refused with exit 2 and told what
// to do, and doing it (a copy of the folder) lists every trace.
func TestProcessStaleWALIsRefused(t *testing.T) {
	src := t.TempDir()
	db := importSamples(t, src)
	// A reader inside a transaction keeps the next import's pages in the
	// WAL: no checkpoint may pass its snapshot, and the importer, not the
	// last connection, leaves the WAL behind.
	holder, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	ctx := context.Background()
	tx, err := holder.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow("SELECT count(*) FROM traces").Scan(&n); err != nil || n != 13 {
		t.Fatalf("holder sees %d traces, %v", n, err)
	}
	if p := tracelab(t, src, "import", "--no-score", "--db", db, repoFile(t, "testdata/traces/support-crm.jsonl")); p.code != 0 {
		t.Fatalf("second import: %d %s", p.code, p.err)
	}
	if fileSize(db+"-wal") == 0 {
		t.Fatal("the second import is not in the WAL; the test needs it there")
	}

	// The reader's folder: the database and its WAL, no -shm, not writable.
	dir, err := os.MkdirTemp("", "tracelab-wal-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.RemoveAll(dir) })
	ro := filepath.Join(dir, "t.db")
	copyFile(t, db, ro, 0o444)
	copyFile(t, db+"-wal", ro+"-wal", 0o444)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "tracelab.test")
	copyFile(t, self, bin, 0o755)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}

	for _, args := range [][]string{{"ls", "--db", ro}, {"export", "--all", "--db", ro, "--out", filepath.Join(os.TempDir(), "never-written")}} {
		p := asReader(t, dir, bin, args...)
		if p.code != 2 || !strings.Contains(p.err, "t.db-wal") || !strings.Contains(p.err, "Copy the folder") {
			t.Errorf("%s of a database with an unread WAL: exit %d\nstdout %q\nstderr %q", args[0], p.code, p.out, p.err)
		}
	}

	// The advice works: a copy of the folder the reader may write.
	mine, err := os.MkdirTemp("", "tracelab-wal-copy-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(mine) })
	cp := filepath.Join(mine, "t.db")
	copyFile(t, ro, cp, 0o644)
	copyFile(t, ro+"-wal", cp+"-wal", 0o644)
	copyFile(t, self, filepath.Join(mine, "tracelab.test"), 0o755)
	if os.Getuid() == 0 {
		for _, p := range []string{mine, cp, cp + "-wal"} {
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := asReader(t, mine, filepath.Join(mine, "tracelab.test"), "ls", "--db", cp)
	if p.code != 0 || !strings.Contains(p.out, "19 traces") {
		t.Errorf("ls of the copy: exit %d %q %q", p.code, p.out, p.err)
	}
}

// TestProcessUnusableDatabaseExits2: a file that is not a database, a
// damaged one and a FIFO are failed dependencies (exit 2, which the README
// keeps apart from a verdict's 1), each with what to do.
func TestProcessUnusableDatabaseExits2(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database\n", 500)), 0o644); err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(dir, "damaged.db")
	data, err := os.ReadFile(importSamples(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	for i := 100; i < len(data); i++ { // keep the header, ruin every page
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(damaged, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.db")
	if err := exec.Command("mkfifo", fifo).Run(); err != nil {
		t.Fatal("mkfifo:", err)
	}
	for _, tt := range []struct{ db, want string }{
		{notDB, "restore the file from a backup"},
		{damaged, "restore the file from a backup"},
		{fifo, "is a named pipe (FIFO), not a database file"},
	} {
		p := tracelab(t, dir, "ls", "--db", tt.db)
		if p.code != 2 || !strings.Contains(p.err, tt.want) {
			t.Errorf("ls --db %s: exit %d %q, want 2 and %q", filepath.Base(tt.db), p.code, p.err, tt.want)
		}
	}
}
