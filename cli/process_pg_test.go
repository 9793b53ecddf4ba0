package cli

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/store/pgtest"
)

// TestProcessConcurrentImportsUnderRepeatableRead: four imports at once
// into a team database whose sessions default to REPEATABLE READ (a DBA
// may set default_transaction_isolation). The writer lock was taken after
// the snapshot, and 3 of 4 failed with SQLSTATE 23505; all land now.
func TestProcessConcurrentImportsUnderRepeatableRead(t *testing.T) {
	dsn := pgtest.DSN(t) + "&default_transaction_isolation=repeatable%20read"
	dir := t.TempDir()
	const n, each = 4, 150
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range cmds {
		f := manyTracesFile(t, dir, fmt.Sprintf("rr%d", i), each)
		cmds[i] = tracelabCmd(t, dir, "import", "--db", dsn, f)
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
	ls := tracelab(t, dir, "ls", "--db", dsn)
	if !strings.Contains(ls.out, fmt.Sprintf("%d traces", n*each)) {
		t.Errorf("after %d concurrent imports: %s %s", n, ls.out[max(0, len(ls.out)-200):], ls.err)
	}
}

// TestProcessSilentServerTimesOut: a "PostgreSQL server" that accepts the
// connection and never answers hung every command; now connecting gives
// up after connect_timeout (10 s unless the URL says) and exits 2 saying
// the server cannot be reached.
func TestProcessSilentServerTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn // accepted, never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	dir := t.TempDir()
	base := "postgres://ana@" + ln.Addr().String() + "/tl"
	for _, tt := range []struct {
		url      string
		min, max time.Duration
	}{
		{base + "?connect_timeout=1", time.Second, 8 * time.Second},
		{base, 10 * time.Second, 60 * time.Second},
	} {
		cmd := tracelabCmd(t, dir, "ls", "--db", tt.url)
		start := time.Now()
		done := make(chan proc, 1)
		go func() { done <- finish(t, cmd) }()
		select {
		case p := <-done:
			took := time.Since(start)
			if p.code != 2 || !strings.Contains(p.err, "cannot be reached") || took < tt.min {
				t.Errorf("ls --db %s: exit %d after %v (want 2 after at least %v): %q", tt.url, p.code, took, tt.min, p.err)
			}
		case <-time.After(tt.max):
			cmd.Process.Kill()
			<-done
			t.Errorf("ls --db %s still waiting after %v", tt.url, tt.max)
		}
	}
}

// TestProcessMigrateNamesANUL: a trace whose question holds a NUL (SQLite
// stores it, PostgreSQL cannot) is refused before anything is copied,
// naming the trace and the field, with a way forward; exit 2.
func TestProcessMigrateNamesANUL(t *testing.T) {
	dsn := pgtest.DSN(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	f := writeIn(t, dir, "nul.jsonl", `{"trace_id":"t-ok","server":"s","question":"fine","steps":[{"kind":"answer","text":"1"}]}
{"trace_id":"t-nul","server":"s","question":"how many\u0000 rows?","steps":[{"kind":"answer","text":"1"}]}
`)
	if p := tracelab(t, dir, "import", "--no-score", "--db", db, f); p.code != 0 {
		t.Fatalf("import: %d %s", p.code, p.err)
	}
	p := tracelab(t, dir, "migrate", "--from", db, "--to", dsn)
	if p.code != 2 || !strings.Contains(p.err, "trace t-nul, field traces.question holds a NUL character") || !strings.Contains(p.err, "nothing was copied") {
		t.Errorf("migrate with a NUL: exit %d %q", p.code, p.err)
	}
	if ls := tracelab(t, dir, "ls", "--db", dsn); strings.Contains(ls.out, "t-ok") {
		t.Errorf("a refused migrate copied rows: %s", ls.out)
	}
}

// TestProcessMigrateServerCrash: the PostgreSQL server crashes (an
// immediate shutdown) while migrate copies: exit 2 saying the server
// closed the connection, that nothing was copied and to run it again when
// the server is back; run again after the restart, it copies everything.
func TestProcessMigrateServerCrash(t *testing.T) {
	srv := pgtest.NewOwn(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	f := manyTracesFile(t, dir, "crash", 3000)
	if p := tracelab(t, dir, "import", "--no-score", "--db", db, f); p.code != 0 {
		t.Fatalf("import: %d %s", p.code, p.err)
	}
	cmd := tracelabCmd(t, dir, "migrate", "--from", db, "--to", srv.DSN())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Crash the server at the first progress line: the copy is under way.
	var errText strings.Builder
	sc := bufio.NewScanner(stderr)
	crashed := false
	for sc.Scan() {
		line := sc.Text()
		errText.WriteString(line + "\n")
		if !crashed && strings.Contains(line, " rows") {
			srv.Kill()
			crashed = true
		}
	}
	cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if !crashed {
		t.Fatalf("migrate ended before any progress (exit %d): %s", code, errText.String())
	}
	if want := "the server closed the connection; nothing was copied; run it again when the server is back"; code != 2 || !strings.Contains(errText.String(), want) {
		t.Errorf("migrate with the server crashing: exit %d, stderr %q, want 2 and %q", code, errText.String(), want)
	}
	srv.Start()
	if p := tracelab(t, dir, "migrate", "--from", db, "--to", srv.DSN()); p.code != 0 || !strings.Contains(p.out, "every table the same on both sides") {
		t.Errorf("migrate again after the restart: exit %d %s %s", p.code, p.out, p.err)
	}
}

// silentProxy forwards TCP connections to the PostgreSQL server at the
// unix socket sock until the server says it is ready for the first
// statement, and from then on passes the client's bytes on and holds
// back every byte of the server's: a server that finished the handshake
// and never answers a statement.
func silentProxy(t *testing.T, sock string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("unix", sock)
			if err != nil {
				c.Close()
				continue
			}
			t.Cleanup(func() { c.Close(); s.Close() })
			go io.Copy(s, c)
			go forwardUntilReady(c, s)
		}
	}()
	return ln.Addr().String()
}

// forwardUntilReady copies the server's messages to the client up to and
// including the first ReadyForQuery ('Z'), then reads and drops the rest.
func forwardUntilReady(c, s net.Conn) {
	r := bufio.NewReader(s)
	head := make([]byte, 5)
	for {
		if _, err := io.ReadFull(r, head); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(head[1:])) - 4
		body := make([]byte, max(n, 0))
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		c.Write(append(head, body...))
		if head[0] == 'Z' {
			break
		}
	}
	io.Copy(io.Discard, r)
}

// TestProcessServerStopsAnswering: a server that completes the handshake
// and then never answers a statement hung every command (the connect
// timeout does not cover it). Each statement now waits at most the
// --lock-wait plus 5 s for the server's answer, then exits 2 saying the
// server sent no answer and cannot be reached.
func TestProcessServerStopsAnswering(t *testing.T) {
	u, err := url.Parse(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	sock := filepath.Join(q.Get("host"), ".s.PGSQL.5432")
	if p := q.Get("port"); p != "" {
		sock = filepath.Join(q.Get("host"), ".s.PGSQL."+p)
	}
	if _, err := os.Stat(sock); err != nil {
		t.Skipf("the test server has no unix socket to put a silent proxy before (%v)", err)
	}
	q.Del("host")
	q.Set("sslmode", "disable")
	u.Host, u.RawQuery = silentProxy(t, sock), q.Encode()
	dir := t.TempDir()
	cmd := tracelabCmd(t, dir, "ls", "--lock-wait", "1s", "--db", u.String())
	start := time.Now()
	done := make(chan proc, 1)
	go func() { done <- finish(t, cmd) }()
	select {
	case p := <-done:
		took := time.Since(start)
		t.Logf("exit %d after %v: %s", p.code, took.Round(time.Second), p.err)
		if p.code != 2 || !strings.Contains(p.err, "sent no answer for 6s") || !strings.Contains(p.err, "cannot be reached") || took < 6*time.Second {
			t.Errorf("ls on a server that stopped answering: exit %d after %v (want 2 after 6 s): %q", p.code, took, p.err)
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Errorf("ls on a server that stopped answering still waiting after 90 s")
	}
}

// TestProcessWorkbenchWarmsTheTeamStore: tracelab's workbench, opened on a
// team store in a real terminal (tmux), rehearses a labeler's first keys
// before its first screen (Labels.Warm) and writes nothing. The
// rehearsed edit draws an event group's id, which its rollback does not
// give back (a sequence is not rolled back): that is how the test sees
// the rehearsal ran.
func TestProcessWorkbenchWarmsTheTeamStore(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the terminal end-to-end tests need it")
	}
	dsn := pgtest.DSN(t)
	dir := t.TempDir()
	if _, errs, code := run(t, "import", "--db", dsn, writeIn(t, dir, "t.jsonl", cliTraces)); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lastGroup := func() sql.NullInt64 {
		var id sql.NullInt64
		if err := db.QueryRow(`SELECT pg_sequence_last_value(pg_get_serial_sequence('event_groups', 'id')::regclass)`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	before := lastGroup()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("scripts/tui_e2e.sh") // TestMain runs the tests at the repository's root
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script, "-s", "100x30", "-t", "20", "--",
		"env", mainEnv+"=1", "TRACELAB_DB=", self, "--db", dsn, "--labeler", "ana")
	cmd.Stdin = strings.NewReader("wait 2 traces\nquit\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tui_e2e.sh: %v\n%s", err, out)
	}
	if after := lastGroup(); after == before {
		t.Errorf("event groups' last id %v before the workbench opened and after: the first keys were not rehearsed", after)
	}
	for _, table := range []string{"event_groups", "events", "rater_labels", "reservations"} {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: %d rows after the workbench opened and quit, want none", table, n)
		}
	}
}
