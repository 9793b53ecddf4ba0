package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessOneTraceDoesNotPoisonTheDatabase: a reasoning step of
// "probably " repeated past the scorer's budget (the 63 MiB
// killed score with a Go fatal out-of-memory, and the trace staying
// unscored crashed every later import, score, report and export of the
// database). Run as real processes under a 3 GiB address-space cap
// (prlimit, when installed): the import scores the rest and marks the
// trace unscorable with why; score, report and export --all then work.
func TestProcessOneTraceDoesNotPoisonTheDatabase(t *testing.T) {
	dir := t.TempDir()
	step, _ := json.Marshal(strings.Repeat("probably ", (33<<20)/9))
	poison := filepath.Join(dir, "poison.jsonl")
	if err := os.WriteFile(poison, []byte(`{"trace_id":"t-probably","server":"s","question":"how many?","steps":[{"kind":"reasoning","text":`+
		string(step)+`},{"kind":"answer","text":"1"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "t.db")
	capped := func(args ...string) proc {
		t.Helper()
		cmd := tracelabCmd(t, dir, args...)
		if pl, err := exec.LookPath("prlimit"); err == nil {
			cmd.Args = append([]string{pl, "--as=3221225472", "--"}, cmd.Args...)
			cmd.Path = pl
		} else {
			t.Logf("prlimit not found: %s runs without a memory cap", args[0])
		}
		return finish(t, cmd)
	}
	imp := capped("import", "--db", db, poison, repoFile(t, "testdata/traces/generic-warehouse.jsonl"))
	if imp.code != 0 {
		t.Fatalf("import with the poison trace: exit %d %s", imp.code, imp.err)
	}
	t.Logf("import peak RSS %.0f MiB", float64(imp.maxRSS)/(1<<20))
	sc := capped("score", "--db", db, "--format", "jsonl")
	if sc.code != 0 || !strings.Contains(sc.out, `"unscorable":"unscorable, because it holds 33.0 MiB of text, over the 32 MiB the scorer reads"`) {
		t.Errorf("score: exit %d %s", sc.code, sc.err)
	}
	if n := strings.Count(sc.out, `"trace_id"`); n != 14 {
		t.Errorf("score printed %d traces, want 14", n)
	}
	if p := capped("report", "--db", db, "--all"); p.code != 0 {
		t.Errorf("report: exit %d %s", p.code, p.err)
	}
	if p := capped("export", "--all", "--db", db, "--out", filepath.Join(dir, "suite")); p.code != 0 {
		t.Errorf("export --all: exit %d %s", p.code, p.err)
	}
	if p := capped("import", "--db", db, repoFile(t, "testdata/traces/generic-warehouse.jsonl")); p.code != 0 {
		t.Errorf("a later import: exit %d %s", p.code, p.err)
	}
}
