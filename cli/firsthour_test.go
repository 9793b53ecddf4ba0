package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// A mistyped command is named as one, with the commands it looks like,
// even when a flag of the intended command follows it.
func TestProcessMistypedCommandSuggests(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"imprt", "--out", "x"}, `unknown command "imprt" for "tracelab"; did you mean import?`},
		{[]string{"imprt", "x.jsonl"}, `unknown command "imprt" for "tracelab"; did you mean import?`},
		{[]string{"exprot"}, `unknown command "exprot" for "tracelab"; did you mean export?`},
		{[]string{"--db", "x.db", "reprot", "--format", "json"}, `did you mean report?`},
		{[]string{"xyzzy"}, `unknown command "xyzzy" for "tracelab"` + "\n"},
		{[]string{"ls", "--nope"}, "unknown flag: --nope"},
	} {
		p := tracelab(t, dir, tc.args...)
		if p.code != 2 || !strings.Contains(p.err, tc.want) {
			t.Errorf("tracelab %s: exit %d %q, want 2 and %q", strings.Join(tc.args, " "), p.code, p.err, tc.want)
		}
		if strings.Contains(p.err, "unknown flag: --out") || strings.Contains(p.err, "unknown flag: --format") {
			t.Errorf("tracelab %s: blames the flag: %q", strings.Join(tc.args, " "), p.err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.db")); err == nil {
		t.Error("a mistyped command created the database")
	}
}

// check --suite takes the folder export wrote as well as its cases.jsonl,
// with the same verdicts; a folder without cases.jsonl is bad input.
func TestCheckSuiteFolder(t *testing.T) {
	suitePath, _ := exportedSuite(t)
	args := func(suite string) []string {
		return []string{"check", "--suite", suite, "--policy", "testdata/policy.json", "--lineage", "testdata/lineage.json",
			"--format", "json", "--no-record", "testdata/check/new-run.jsonl"}
	}
	wantOut, wantErr, wantCode := run(t, args(suitePath)...)
	out, errs, code := run(t, args(filepath.Dir(suitePath))...)
	var want, got checkJSON
	json.Unmarshal([]byte(wantOut), &want)
	json.Unmarshal([]byte(out), &got)
	if code != wantCode || code == 2 || len(got.Cases) == 0 || !reflect.DeepEqual(got.Cases, want.Cases) {
		t.Errorf("check --suite DIR: exit %d (%s), want exit %d and the output of --suite DIR/cases.jsonl (%s)", code, errs, wantCode, wantErr)
	}
	empty := t.TempDir()
	if _, errs, code := run(t, args(empty)...); code != 2 || !strings.Contains(errs, "a folder without cases.jsonl") {
		t.Errorf("check --suite EMPTY: exit %d %q", code, errs)
	}
}

// An export with nothing confirmed says on stderr that the suite is empty
// and how to include the suggestions; one with cases says nothing.
func TestProcessExportSaysTheSuiteIsEmpty(t *testing.T) {
	dir := t.TempDir()
	db := importSamples(t, dir)
	p := tracelab(t, dir, "export", "--db", db, "--out", filepath.Join(dir, "suite"))
	if p.code != 0 || !strings.Contains(p.out, "(0 cases)") ||
		!strings.Contains(p.err, "wrote an empty suite: no case is confirmed yet") || !strings.Contains(p.err, "--all") {
		t.Errorf("export with nothing confirmed: exit %d\nstdout %q\nstderr %q", p.code, p.out, p.err)
	}
	p = tracelab(t, dir, "export", "--db", db, "--all", "--out", filepath.Join(dir, "all"))
	if p.code != 0 || strings.Contains(p.out, "(0 cases)") || strings.Contains(p.err, "empty suite") {
		t.Errorf("export --all: exit %d\nstdout %q\nstderr %q", p.code, p.out, p.err)
	}
	empty := filepath.Join(dir, "empty.db")
	p = tracelab(t, dir, "export", "--db", empty, "--all", "--out", filepath.Join(dir, "none"))
	if p.code != 0 || !strings.Contains(p.err, "wrote an empty suite: the database has no cases; import traces first") {
		t.Errorf("export --all of an empty database: exit %d %q", p.code, p.err)
	}
}

// An import says which server and user the traces that named none were
// stored with; traces that name both get no note.
func TestProcessImportNamesTheDefaultsItUsed(t *testing.T) {
	dir := t.TempDir()
	f := writeIn(t, dir, "t.jsonl", `{"trace_id":"t1","server":"s1","as_user":"u1","question":"How many?","steps":[]}
{"trace_id":"t2","question":"Which?","steps":[{"kind":"answer","text":"x"}]}
`) // t1 names server and user, t2 neither
	p := tracelab(t, dir, "import", "--no-score", "--db", filepath.Join(dir, "a.db"), f)
	for _, want := range []string{
		"note: " + f + ": 1 trace(s) name no server: stored with none (empty); give --server NAME to set one",
		"note: " + f + ": 1 trace(s) name no user (as_user): stored with none (empty); give --as-user NAME to set one",
	} {
		if p.code != 0 || !strings.Contains(p.err, want) {
			t.Errorf("import without --server: exit %d %q, want %q", p.code, p.err, want)
		}
	}
	p = tracelab(t, dir, "import", "--no-score", "--db", filepath.Join(dir, "b.db"), "--server", "billing", "--as-user", "ana", f)
	for _, want := range []string{
		"note: " + f + `: 1 trace(s) name no server: stored with --server "billing"`,
		"note: " + f + `: 1 trace(s) name no user (as_user): stored with --as-user "ana"`,
	} {
		if p.code != 0 || !strings.Contains(p.err, want) {
			t.Errorf("import with --server: exit %d %q, want %q", p.code, p.err, want)
		}
	}
	p = tracelab(t, dir, "import", "--no-score", "--db", filepath.Join(dir, "c.db"), repoFile(t, "testdata/traces/support-crm.jsonl"))
	if p.code != 0 || strings.Contains(p.err, "note:") {
		t.Errorf("traces that name server and user: exit %d %q", p.code, p.err)
	}
}

// A file of one line cut short (inside a string, an object) is reported at
// line 1, not as a file in no format.
func TestProcessOneLineFileCutIsLineOne(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"in-string.jsonl": `{"trace_id":"t1","question":"How many`,
		"in-object.jsonl": `{"trace_id":"t1","question":"How many?"` + "\n",
		"in-array.json":   `[{"trace_id":"t1"},`,
	} {
		f := writeIn(t, dir, name, body)
		p := tracelab(t, dir, "import", "--db", filepath.Join(dir, "t.db"), f)
		if p.code != 2 || !strings.Contains(p.err, f+":1: invalid JSON: unexpected end of input") || strings.Contains(p.err, "not a supported") {
			t.Errorf("%s: exit %d %q", name, p.code, p.err)
		}
	}
	// A cut on line 2 is still line 2.
	f := writeIn(t, dir, "second.jsonl", `{"trace_id":"t0","question":"q","steps":[]}`+"\n"+`{"trace_id":"t1","question":"How`)
	if p := tracelab(t, dir, "import", "--db", filepath.Join(dir, "t.db"), f); !strings.Contains(p.err, f+":2: invalid JSON") {
		t.Errorf("cut on line 2: exit %d %q", p.code, p.err)
	}
}

// A --db that cannot be written exits 2, as the README's exit codes say,
// with what is wrong: a folder that does not exist, or one this user may
// not write (run as nobody when the test runs as root).
func TestProcessUnwritableDBExitsTwo(t *testing.T) {
	dir, err := os.MkdirTemp("", "tracelab-unwritable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.RemoveAll(dir) })
	traces := writeIn(t, dir, "t.jsonl", cliTraces)
	p := tracelab(t, dir, "import", "--db", filepath.Join(dir, "nosuch", "t.db"), traces)
	if p.code != 2 || !strings.Contains(p.err, "the folder "+filepath.Join(dir, "nosuch")+" does not exist") {
		t.Errorf("--db in a missing folder: exit %d %q", p.code, p.err)
	}
	as := asOtherUser(t, dir)
	os.Chmod(traces, 0o644)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"import", "--db", "new.db", traces}, {"ls", "--db", "new.db"}, {"export", "--db", "new.db", "--out", os.TempDir()}} {
		p := as(args...)
		if p.code != 2 || !strings.Contains(p.err, "the folder . is not writable") {
			t.Errorf("%s in a folder this user may not write: exit %d %q", strings.Join(args, " "), p.code, p.err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new.db")); err == nil {
		t.Error("new.db was created")
	}
}

// The README's format table names every format import --list-formats
// prints, and no other.
func TestREADMEListsEveryFormat(t *testing.T) {
	out, _, code := run(t, "import", "--list-formats")
	if code != 0 {
		t.Fatal(code)
	}
	var listed []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		listed = append(listed, strings.Fields(l)[0])
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	start := strings.Index(section, "| format | what it reads |")
	if start < 0 {
		t.Fatal("README.md has no format table (| format | what it reads |)")
	}
	section = section[start:]
	if end := strings.Index(section, "\n\n"); end >= 0 {
		section = section[:end]
	}
	var inREADME []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9_]+)` \\|").FindAllStringSubmatch(section, -1) {
		inREADME = append(inREADME, m[1])
	}
	slices.Sort(listed)
	slices.Sort(inREADME)
	if !slices.Equal(listed, inREADME) {
		t.Errorf("README format table %v\nimport --list-formats %v", inREADME, listed)
	}
	if len(listed) < 34 {
		t.Errorf("%d formats listed, want at least the 34 of today", len(listed))
	}
}

// asOtherUser copies the test binary into dir (the checkout may sit in a
// folder other users cannot enter) and returns a runner of it, in dir, as
// a user other than the file owner: nobody when the test runs as root,
// who may write every file.
func asOtherUser(t *testing.T, dir string) func(args ...string) proc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "tracelab.test")
	if data, err := os.ReadFile(self); err != nil || os.WriteFile(bin, data, 0o755) != nil {
		t.Fatal("copying the test binary", err)
	}
	return func(args ...string) proc {
		cmd := tracelabCmd(t, dir, args...)
		cmd.Path = bin
		if os.Getuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		return finish(t, cmd)
	}
}
