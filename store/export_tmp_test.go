package store

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestKilledWritersLeftoversStayOutOfGit: a writer killed mid-write left
// .cases.jsonl.XXXX beside the suite, which `git add suite/` picked up.
// Temporary files now live in an ignored folder, and the next write
// removes those of processes that are gone (here a real process that
// exited), keeping those of a live one (this test's).
func TestKilledWritersLeftoversStayOutOfGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: ", err)
	}
	repo := t.TempDir()
	suite := filepath.Join(repo, "suite")
	gitRun := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	gitRun("init", "-q")
	write := func(body string) {
		t.Helper()
		err := WriteFilesAtomic([]AtomicFile{
			{Path: filepath.Join(suite, "cases.jsonl"), Write: func(f *os.File) error { _, err := f.WriteString(body); return err }},
			{Path: filepath.Join(suite, "report.json"), Write: func(f *os.File) error { _, err := f.WriteString("{}"); return err }},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	write("one\n")
	if _, err := os.Stat(filepath.Join(suite, tmpDir)); err == nil {
		t.Error("a finished write left its temporary folder")
	}

	// A writer that is gone (a real process, exited) and one that is not.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	f, err := createBeside(filepath.Join(suite, "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half a suite")
	f.Close()
	live := f.Name()
	gone := filepath.Join(suite, tmpDir, fmt.Sprintf("cases.jsonl.%d.abc", dead.Process.Pid))
	if err := os.WriteFile(gone, []byte("half a suite"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun("add", "suite/")
	staged := gitRun("diff", "--cached", "--name-only")
	if strings.TrimSpace(staged) != "suite/cases.jsonl\nsuite/report.json" {
		t.Errorf("git add suite/ staged:\n%s", staged)
	}

	write("two\n")
	if _, err := os.Stat(gone); err == nil {
		t.Error("the next write kept the leftover of a process that is gone")
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the next write removed a live writer's file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(suite, "cases.jsonl")); string(b) != "two\n" {
		t.Errorf("cases.jsonl = %q", b)
	}
}
