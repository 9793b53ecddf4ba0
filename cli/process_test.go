package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mainEnv makes the test binary run tracelab's command line on its
// arguments instead of the tests: process tests kill it, run several at
// once and measure its memory as a user's tracelab would behave.
const mainEnv = "TRACELAB_CLI_MAIN"

// proc is one finished tracelab process.
type proc struct {
	out, err string
	code     int
	maxRSS   int64 // peak resident memory in bytes
}

// tracelabCmd builds a tracelab process (the test binary) in dir.
func tracelabCmd(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mainEnv+"=1", "TRACELAB_DB=")
	return cmd
}

// tracelab runs tracelab in dir to completion.
func tracelab(t *testing.T, dir string, args ...string) proc {
	t.Helper()
	return finish(t, tracelabCmd(t, dir, args...))
}

func finish(t *testing.T, cmd *exec.Cmd) proc {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	p := proc{out: out.String(), err: errb.String(), code: cmd.ProcessState.ExitCode()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.maxRSS = ru.Maxrss << 10 // KiB on Linux
	}
	return p
}

// repoFile is a path under the repository root (the tests run there).
func repoFile(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// importSamples imports the bundled sample traces into dir/t.db without
// scoring them.
func importSamples(t *testing.T, dir string) string {
	t.Helper()
	db := filepath.Join(dir, "t.db")
	p := tracelab(t, dir, "import", "--no-score", "--db", db, repoFile(t, "testdata/traces/generic-warehouse.jsonl"))
	if p.code != 0 {
		t.Fatalf("import: %d %s", p.code, p.err)
	}
	return db
}

func TestProcessFloodingOracleIsCapped(t *testing.T) {
	dir := t.TempDir()
	db := importSamples(t, dir)
	oracle := "cat >/dev/null; yes"
	p := tracelab(t, dir, "score", "--db", db, "--policy-oracle", oracle, "--oracle-max-output", "4194304")
	t.Logf("peak RSS of tracelab score with a flooding oracle: %.1f MiB", float64(p.maxRSS)/(1<<20))
	if p.code != 2 {
		t.Fatalf("exit %d, want 2; stderr %q", p.code, p.err)
	}
	for _, want := range []string{`policy oracle "cat >/dev/null; yes" wrote more than 4194304 bytes`, "at call 1 ("} {
		if !strings.Contains(p.err, want) {
			t.Errorf("stderr %q does not say %q", p.err, want)
		}
	}
	if n := strings.Count(p.err, "policy oracle"); n != 1 {
		t.Errorf("the failure is reported %d times, want once: %q", n, p.err)
	}
	// Without the cap the process grew past gigabytes; with it a few
	// buffers of the cap's size at most.
	if p.maxRSS > 300<<20 {
		t.Errorf("peak RSS %d MiB", p.maxRSS>>20)
	}
}
