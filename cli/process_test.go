package cli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mainEnv makes the test binary run tracelab's command line on its
// arguments instead of the tests: process tests kill it, run several at
// once and measure its memory as a user's tracelab would behave.
const mainEnv = "TRACELAB_CLI_MAIN"

// peakEnv names a file the tracelab process writes its peak resident
// memory to as it exits: its own VmHWM, since the rusage a parent gets
// counts the memory of the forked test process before the exec.
const peakEnv = "TRACELAB_CLI_PEAK_RSS"

// writePeakRSS writes this process's VmHWM in bytes to path.
func writePeakRSS(path string) {
	if path == "" {
		return
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, l := range strings.Split(string(status), "\n") {
		if kb, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			os.WriteFile(path, []byte(strconv.FormatInt(n<<10, 10)), 0o644)
		}
	}
}

// proc is one finished tracelab process.
type proc struct {
	out, err string
	code     int
	maxRSS   int64 // peak resident memory in bytes, from the process itself
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
	peak := filepath.Join(t.TempDir(), "peak")
	cmd.Env = append(os.Environ(), mainEnv+"=1", "TRACELAB_DB=", peakEnv+"="+peak)
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
	for _, e := range cmd.Env {
		if path, ok := strings.CutPrefix(e, peakEnv+"="); ok {
			b, _ := os.ReadFile(path)
			p.maxRSS, _ = strconv.ParseInt(string(b), 10, 64)
		}
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
	for _, tt := range []struct {
		flags []string
		limit int
	}{
		{nil, 16 << 20}, // the default cap
		{[]string{"--oracle-max-output", "4194304"}, 4 << 20},
	} {
		args := append([]string{"score", "--db", db, "--policy-oracle", oracle}, tt.flags...)
		p := tracelab(t, dir, args...)
		t.Logf("cap %d MiB: peak RSS of tracelab score with a flooding oracle %.1f MiB", tt.limit>>20, float64(p.maxRSS)/(1<<20))
		if p.maxRSS == 0 {
			t.Fatal("the process did not report its peak memory")
		}
		if p.code != 2 {
			t.Fatalf("%v: exit %d, want 2; stderr %q", tt.flags, p.code, p.err)
		}
		for _, want := range []string{fmt.Sprintf(`policy oracle "cat >/dev/null; yes" wrote more than %d bytes`, tt.limit), "at call "} {
			if !strings.Contains(p.err, want) {
				t.Errorf("stderr %q does not say %q", p.err, want)
			}
		}
		if n := strings.Count(p.err, "policy oracle"); n != 1 {
			t.Errorf("the failure is reported %d times, want once: %q", n, p.err)
		}
		// Without the cap the process grew past gigabytes; with it a few
		// buffers of the cap's size at most (one per scoring worker).
		if limit := int64(tt.limit)*int64(runtime.NumCPU()+2) + 200<<20; p.maxRSS > limit {
			t.Errorf("peak RSS %d MiB, more than %d MiB", p.maxRSS>>20, limit>>20)
		}
	}
}

// processesMatching lists the pids whose command line contains s.
func processesMatching(t *testing.T, s string) []string {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err == nil && strings.Contains(string(b), s) {
			pids = append(pids, filepath.Base(filepath.Dir(d)))
		}
	}
	return pids
}

func TestProcessHangingOracleCostsOneTimeout(t *testing.T) {
	dir := t.TempDir()
	db := importSamples(t, dir)
	// A unique sleep length marks the oracle's children so the test can
	// find any that outlive tracelab; the shell starts one in the
	// background and waits on another.
	token := fmt.Sprintf("6%d.%d", os.Getpid()%1000, time.Now().UnixNano()%1000000)
	starts := filepath.Join(dir, "starts")
	oracle := fmt.Sprintf("echo x >> %s; cat >/dev/null; sleep %s & sleep %s", starts, token, token)
	const timeout = 2 * time.Second
	began := time.Now()
	p := tracelab(t, dir, "score", "--db", db, "--policy-oracle", oracle, "--oracle-timeout", timeout.String())
	took := time.Since(began)
	if p.code != 2 {
		t.Fatalf("exit %d, want 2; stderr %q", p.code, p.err)
	}
	if !strings.Contains(p.err, "did not answer within 2s at call ") {
		t.Errorf("stderr %q does not name the timeout and the call", p.err)
	}
	if n := strings.Count(p.err, "policy oracle"); n != 1 {
		t.Errorf("the failure is reported %d times, want once: %q", n, p.err)
	}
	// The sample has dozens of data calls; before the fix each cost a
	// timeout. Now only the calls already running when the first timed out
	// were started (one per scoring worker), and they all end with it.
	b, _ := os.ReadFile(starts)
	if n := strings.Count(string(b), "x"); n > runtime.NumCPU()+1 {
		t.Errorf("the oracle was started %d times after it hung", n)
	}
	if took > 4*timeout+5*time.Second {
		t.Errorf("scoring took %s with a %s oracle timeout", took, timeout)
	}
	if pids := processesMatching(t, "sleep\x00"+token); len(pids) > 0 {
		for _, pid := range pids {
			if n, err := strconv.Atoi(pid); err == nil {
				syscall.Kill(n, syscall.SIGKILL)
			}
		}
		t.Errorf("%d oracle children outlived tracelab: %v", len(pids), pids)
	}
}

func TestProcessSchemaSetupRace(t *testing.T) {
	for round := range 3 {
		dir := t.TempDir()
		db := filepath.Join(dir, "new.db")
		const n = 8
		cmds := make([]*exec.Cmd, n)
		outs := make([]*bytes.Buffer, n)
		for i := range cmds {
			cmds[i] = tracelabCmd(t, dir, "ls", "--db", db)
			outs[i] = &bytes.Buffer{}
			cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		}
		for _, c := range cmds { // started back to back: all race for the new file
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Errorf("round %d, process %d of %d opening one new database: %v\n%s", round, i, n, err, outs[i])
			}
		}
	}
}

// holdWriteLock takes db's write lock from the test process until the
// returned function is called.
func holdWriteLock(t *testing.T, db string) func() {
	t.Helper()
	ctx := context.Background()
	// A plain connection (the driver the store registers), as another
	// program holding the lock would.
	sdb, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sdb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		conn.ExecContext(ctx, "ROLLBACK")
		conn.Close()
		sdb.Close()
	}
}

func TestProcessLockedDatabaseNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	db := importSamples(t, dir)
	file := repoFile(t, "testdata/traces/support-crm.jsonl")
	release := holdWriteLock(t, db)
	p := tracelab(t, dir, "import", "--db", db, "--lock-wait", "300ms", file)
	release()
	if p.code != 2 {
		t.Fatalf("exit %d, want 2; stderr %q", p.code, p.err)
	}
	want := file + ": another process kept the database " + db + " locked past the lock wait; nothing of " + file + " was written"
	if !strings.Contains(p.err, want) {
		t.Errorf("stderr %q\nlacks %q", p.err, want)
	}
	if strings.Contains(p.err, "rejected") {
		t.Errorf("a locked database is reported as rejected records: %q", p.err)
	}
	if ls := tracelab(t, dir, "ls", "--db", db, "--server", "support-crm"); !strings.Contains(ls.out, "0 traces") {
		t.Errorf("something of the file was written: %s", ls.out)
	}
	// A reader does not wait for the writer; TRACELAB_LOCK_WAIT works like the flag.
	release = holdWriteLock(t, db)
	ls := tracelabCmd(t, dir, "ls", "--db", db)
	ls.Env = append(ls.Env, "TRACELAB_LOCK_WAIT=200ms")
	lp := finish(t, ls)
	imp := tracelabCmd(t, dir, "import", "--db", db, file)
	imp.Env = append(imp.Env, "TRACELAB_LOCK_WAIT=200ms")
	ip := finish(t, imp)
	release()
	if lp.code != 0 || !strings.Contains(lp.out, "13 traces") {
		t.Errorf("ls beside a writer: %d %q %q", lp.code, lp.out, lp.err)
	}
	if ip.code != 2 {
		t.Errorf("import with TRACELAB_LOCK_WAIT=200ms beside a writer: exit %d %q", ip.code, ip.err)
	}
	if p := tracelab(t, dir, "import", "--db", db, file); p.code != 0 || !strings.Contains(p.out, "6 new") {
		t.Errorf("import once the lock is free: %d %q %q", p.code, p.out, p.err)
	}
}

// manyTracesFile writes n copies of the sample traces with fresh ids.
func manyTracesFile(t *testing.T, dir, prefix string, n int) string {
	t.Helper()
	src, err := os.ReadFile(repoFile(t, "testdata/traces/generic-warehouse.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(src)), "\n")
	var b strings.Builder
	for i := range n {
		l := lines[i%len(lines)]
		var tr map[string]any
		if err := json.Unmarshal([]byte(l), &tr); err != nil {
			t.Fatal(err)
		}
		tr["trace_id"] = fmt.Sprintf("%s-%d", prefix, i)
		out, _ := json.Marshal(tr)
		b.Write(out)
		b.WriteByte('\n')
	}
	return writeIn(t, dir, prefix+".jsonl", b.String())
}

// TestProcessConcurrentImportsAllLand runs three imports into one new
// database at once: all must land, whole. (The probe, three
// 50k-trace files, was probed by hand: too slow here.)
func TestProcessConcurrentImportsAllLand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	const n, each = 3, 2000
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range cmds {
		f := manyTracesFile(t, dir, fmt.Sprintf("w%d", i), each)
		cmds[i] = tracelabCmd(t, dir, "import", "--no-score", "--db", db, f)
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("import %d of %d at once: %v\n%s", i, n, err, outs[i])
		}
	}
	if ls := tracelab(t, dir, "ls", "--db", db); !strings.Contains(ls.out, fmt.Sprintf("%d traces", n*each)) {
		t.Errorf("after %d concurrent imports: %s", n, ls.out[max(0, len(ls.out)-200):])
	}
}

// TestProcessSmallWriteGetsThroughABigImport: while a big file is
// staged, another process's import with a short lock wait lands; the big
// file then lands whole beside it. Before staging, the big import held
// the write lock from its first record to its commit.
func TestProcessSmallWriteGetsThroughABigImport(t *testing.T) {
	dir, db, big := bigImportSetup(t)
	cmd := tracelabCmd(t, dir, "import", "--no-score", "--db", db, big)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the big import staging", func() bool { return stagingSize(dir, "t.db") > 4<<20 })
	small := manyTracesFile(t, dir, "small", 20)
	p := tracelab(t, dir, "import", "--no-score", "--lock-wait", "2s", "--db", db, small)
	staging := stagingSize(dir, "t.db") > 0
	if err := cmd.Wait(); err != nil {
		t.Fatalf("big import: %v %s", err, errb.String())
	}
	if p.code != 0 || !strings.Contains(p.out, "20 new") {
		t.Errorf("a small import beside a big one staging (still staging after it: %v): %d %q %q", staging, p.code, p.out, p.err)
	}
	if n := countRows(t, db, "traces"); n != 10+bigTraces+20 {
		t.Errorf("%d traces, want %d", n, 10+bigTraces+20)
	}
}

// TestProcessKilledImportWritesNothing: an import killed (SIGKILL) while
// staging leaves the database without any of the file and its staging
// database behind, which the next import removes. One killed while it
// copies into the database leaves all of the file or none.
func TestProcessKilledImportWritesNothing(t *testing.T) {
	dir, db, big := bigImportSetup(t)
	kill := func(what string, cond func() bool) {
		t.Helper()
		cmd := tracelabCmd(t, dir, "import", "--no-score", "--db", db, big)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 60*time.Second, what, cond)
		cmd.Process.Kill()
		cmd.Wait()
	}
	kill("the import staging", func() bool { return stagingSize(dir, "t.db") > 4<<20 })
	if n := countRows(t, db, "traces"); n != 10 {
		t.Errorf("%d traces after a kill while staging, want the 10 of before", n)
	}
	if stagingSize(dir, "t.db") == 0 {
		t.Error("no staging database left by the killed import: the kill came too late to test anything")
	}
	// The copy writes the database's write-ahead log; a kill there is
	// undone by SQLite's rollback of the open transaction.
	walBefore := fileSize(db + "-wal")
	kill("the import copying", func() bool { return fileSize(db+"-wal") > walBefore+(1<<20) })
	if n := countRows(t, db, "traces"); n != 10 && n != 10+bigTraces {
		t.Errorf("%d traces after a kill while copying: half a file", n)
	}
	if p := tracelab(t, dir, "import", "--no-score", "--db", db, big); p.code != 0 {
		t.Fatalf("import after the kills: %d %q", p.code, p.err)
	}
	if n := countRows(t, db, "traces"); n != 10+bigTraces {
		t.Errorf("%d traces after importing the file again, want %d", n, 10+bigTraces)
	}
	if n := stagingSize(dir, "t.db"); n != 0 {
		t.Errorf("staging databases of the killed imports still there (%d bytes)", n)
	}
}

// TestProcessKilledScoreKeepsItsBatches: score commits every batch of
// scores as it goes. Killed (SIGKILL) once some batches are committed, it
// keeps them, whole batches only, and the next score does only the rest.
func TestProcessKilledScoreKeepsItsBatches(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	const total, batch = 1200, 400 // batch: app's scoring batch
	if p := tracelab(t, dir, "import", "--no-score", "--db", db, manyTracesFile(t, dir, "s", total)); p.code != 0 {
		t.Fatalf("import: %d %q", p.code, p.err)
	}
	// A policy oracle process per call keeps scoring slow enough to stop
	// in the middle; the same flags make the same configuration both runs.
	oracle := `sleep 0.01; cat >/dev/null; echo '{"violations":[]}'`
	cmd := tracelabCmd(t, dir, "score", "--db", db, "--policy-oracle", oracle)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 120*time.Second, "the first batch of scores committed", func() bool {
		n, err := tryCountRows(db, "scores")
		return err == nil && n >= batch
	})
	cmd.Process.Kill()
	cmd.Wait()
	kept := countRows(t, db, "scores")
	if kept == total {
		t.Fatal("scoring finished before the kill: the test did not test anything")
	}
	if kept%batch != 0 {
		t.Errorf("%d scores kept after the kill: not whole batches of %d", kept, batch)
	}
	p := tracelab(t, dir, "score", "--db", db, "--policy-oracle", oracle)
	want := fmt.Sprintf("%d traces scored (%d current)", total-kept, kept)
	if p.code != 0 || !strings.Contains(p.out, want) {
		t.Errorf("the score after the kill: exit %d, want %q in %q %q", p.code, want, p.out[max(0, len(p.out)-200):], p.err)
	}
	if n := countRows(t, db, "scores"); n != total {
		t.Errorf("%d of %d traces scored after the second run", n, total)
	}
}

// bigImportSetup makes a database of 10 traces and a file of 6000 more
// (about 10 MiB: long enough to stage that a test can act meanwhile).
func bigImportSetup(t *testing.T) (dir, db, big string) {
	t.Helper()
	dir = t.TempDir()
	db = filepath.Join(dir, "t.db")
	if p := tracelab(t, dir, "import", "--no-score", "--db", db, manyTracesFile(t, dir, "first", 10)); p.code != 0 {
		t.Fatalf("first import: %d %q", p.code, p.err)
	}
	return dir, db, manyTracesFile(t, dir, "big", bigTraces)
}

const bigTraces = 6000

// stagingSize is the size of the staging databases of dir/name.
func stagingSize(dir, name string) int64 {
	m, _ := filepath.Glob(filepath.Join(dir, "."+name+".staging.*"))
	var n int64
	for _, f := range m {
		n += fileSize(f)
	}
	return n
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// countRows counts the rows of a table of db from the test process.
func countRows(t *testing.T, db, table string) int {
	t.Helper()
	n, err := tryCountRows(db, table)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// tryCountRows counts through a plain read-only connection that waits for
// a writer's lock; a database still being created is an error.
func tryCountRows(db, table string) (int, error) {
	sdb, err := sql.Open("sqlite", "file:"+db+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return 0, err
	}
	defer sdb.Close()
	var n int
	err = sdb.QueryRow("SELECT count(*) FROM " + table).Scan(&n)
	return n, err
}

// waitFor polls cond every 20ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("%s: not within %s", what, d)
}

func TestProcessKillDuringScoringLeavesNothingUnscored(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	file := repoFile(t, "testdata/traces/generic-warehouse.jsonl")
	// New traces without a case are scored inside their file's
	// transaction; the traces a suite imported first waits for are scored
	// after it, with their cases. A slow oracle keeps the import in that
	// phase long enough to kill it there: after the file's transaction
	// committed, before the scores did.
	if p := tracelab(t, dir, "import", "--db", db, repoFile(t, "testdata/cases.jsonl")); p.code != 0 {
		t.Fatalf("import cases: %d %q", p.code, p.err)
	}
	slow := `sleep 0.5; cat >/dev/null; echo '{"violations":[]}'`
	cmd := tracelabCmd(t, dir, "import", "--db", db, "--policy-oracle", slow, file)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the import committing", func() bool {
		n, err := tryCountRows(db, "imports")
		return err == nil && n == 2
	})
	cmd.Process.Kill()
	cmd.Wait()
	if n := countRows(t, db, "scores"); n == 13 {
		t.Fatal("scoring finished before the kill: the test did not test anything")
	}
	ls := tracelab(t, dir, "ls", "--db", db)
	if !strings.Contains(ls.out, "unscored") {
		t.Errorf("ls does not show the unscored traces:\n%s", ls.out)
	}
	p := tracelab(t, dir, "import", "--db", db, file)
	if p.code != 0 || !strings.Contains(p.out, "0 new, 13 unchanged") {
		t.Fatalf("re-import: %d %q %q", p.code, p.out, p.err)
	}
	if !strings.Contains(p.out, "scored ") {
		t.Errorf("the re-import scored nothing: %q", p.out)
	}
	if n := countRows(t, db, "scores"); n != 13 {
		t.Errorf("%d of 13 traces scored after the re-import", n)
	}
	if ls := tracelab(t, dir, "ls", "--db", db); strings.Contains(ls.out, "unscored") {
		t.Errorf("still unscored after the re-import:\n%s", ls.out)
	}
}

func TestProcessExitCodes(t *testing.T) {
	dir := t.TempDir()
	// A missing input is bad input, and creates no database.
	p := tracelab(t, dir, "import", "nosuch.jsonl")
	if p.code != 2 || !strings.Contains(p.err, "nosuch.jsonl: no such file or directory") {
		t.Errorf("import nosuch.jsonl: exit %d %q", p.code, p.err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tracelab.db")); err == nil {
		t.Error("import nosuch.jsonl created ./tracelab.db")
	}
	// A folder as the database says it is one.
	sub := filepath.Join(dir, "folder")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	p = tracelab(t, dir, "ls", "--db", sub)
	if p.code != 2 || !strings.Contains(p.err, sub+": is a directory, not a database file") {
		t.Errorf("--db DIR: exit %d %q", p.code, p.err)
	}
	// An interrupt exits 130 and leaves the file unimported.
	big := manyTracesFile(t, dir, "big", 10000)
	db := filepath.Join(dir, "t.db")
	cmd := tracelabCmd(t, dir, "import", "--no-score", "--db", db, big)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The import stages the file in a database beside the real one: a
	// growing staging file means it is under way, past opening.
	waitFor(t, 60*time.Second, "the import staging", func() bool { return stagingSize(dir, "t.db") > 4<<20 })
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(errb.String(), "interrupted, nothing imported from it") {
		t.Errorf("interrupted import: exit %d %q", code, errb.String())
	}
	if n := countRows(t, db, "traces"); n != 0 {
		t.Errorf("%d traces of the interrupted file were written", n)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".t.db.staging.*")); len(m) > 0 {
		t.Errorf("the interrupted import left its staging database: %v", m)
	}
}

func TestProcessReadOnlyDatabaseIsListed(t *testing.T) {
	// A folder anyone may enter, holding a database only its owner may
	// write; the listing runs as another user (root writes every file, so
	// as root the test drops to nobody).
	dir, err := os.MkdirTemp("", "tracelab-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.RemoveAll(dir) })
	db := importSamples(t, dir)
	as := asOtherUser(t, dir) // a copy of the test binary, run as another user
	// The file to import is copied beside the database: the checkout may
	// sit in a folder the other user cannot enter (a clone under mktemp -d).
	extra := filepath.Join(dir, "support-crm.jsonl")
	if data, err := os.ReadFile(repoFile(t, "testdata/traces/support-crm.jsonl")); err != nil || os.WriteFile(extra, data, 0o644) != nil {
		t.Fatal("copying the trace file", err)
	}
	for _, p := range []string{db, dir} {
		if err := os.Chmod(p, map[bool]os.FileMode{true: 0o444, false: 0o555}[p == db]); err != nil {
			t.Fatal(err)
		}
	}
	p := as("ls", "--db", db)
	if p.code != 0 || !strings.Contains(p.out, "13 traces") {
		t.Fatalf("ls of a read-only database: exit %d %q %q", p.code, p.out, p.err)
	}
	p = as("import", "--db", db, extra)
	if p.code != 2 || !strings.Contains(p.err, "is read-only; nothing of") {
		t.Errorf("import into a read-only database: exit %d %q", p.code, p.err)
	}
}

func TestProcessExportFollowsTheUmask(t *testing.T) {
	dir := t.TempDir()
	db := importSamples(t, dir)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "suite")
	cmd := exec.Command("sh", "-c", `umask 027 && exec "$0" "$@"`, self, "export", "--all", "--db", db, "--out", out)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	if p := finish(t, cmd); p.code != 0 {
		t.Fatalf("export: %d %q", p.code, p.err)
	}
	for _, name := range []string{"cases.jsonl", "report.json"} {
		fi, err := os.Stat(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o640 {
			t.Errorf("%s has mode %o under umask 027, want 640", name, m)
		}
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o750 {
		t.Errorf("the suite folder has mode %o under umask 027, want 750", fi.Mode().Perm())
	}
}
