package pgtest

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// cluster is a private PostgreSQL cluster in a temporary folder: unix
// socket only, trust authentication, run as "postgres" when we are root.
type cluster struct {
	dir, data string
	pgctl     string
	as        []string // runuser prefix when running as root
	url       string
}

// newServer runs initdb in a new temporary folder, or says why it could not.
func newServer() (*cluster, string) {
	initdb, err := Bin("initdb")
	if err != nil {
		return nil, err.Error()
	}
	pgctl, err := Bin("pg_ctl")
	if err != nil {
		return nil, err.Error()
	}
	dir, err := os.MkdirTemp("", "tracelab-pg-")
	if err != nil {
		return nil, err.Error()
	}
	s := &cluster{dir: dir, data: filepath.Join(dir, "data"), pgctl: pgctl}
	// PostgreSQL refuses to run as root: run it as "postgres", which must
	// own the folder.
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, "running as root and there is no user postgres to run the server as"
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err.Error()
		}
		s.as = []string{"runuser", "-u", "postgres", "--"}
	}
	if out, err := s.command(initdb, "-D", s.data, "--auth=trust", "--username=postgres", "--encoding=UTF8", "--no-sync").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Sprintf("initdb: %v: %s", err, lastLines(out))
	}
	s.url = "postgres://postgres@/postgres?host=" + url.QueryEscape(dir)
	return s, ""
}

func (s *cluster) command(args ...string) *exec.Cmd {
	all := append(append([]string{}, s.as...), args...)
	return exec.Command(all[0], all[1:]...)
}

// start starts the server and waits until it accepts connections.
func (s *cluster) start() error {
	if out, err := s.command(s.pgctl, "-D", s.data, "-o", s.opts(), "-l", filepath.Join(s.dir, "log"), "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		return fmt.Errorf("pg_ctl start: %v: %s %s", err, lastLines(out), lastLines(log))
	}
	return nil
}

// opts are the server's options: its socket in the folder, no TCP, no
// durability (a test server).
func (s *cluster) opts() string {
	return fmt.Sprintf("-k %s -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off", s.dir)
}

// stop shuts the server down in mode (fast, immediate) and waits for it.
func (s *cluster) stop(mode string) error {
	if out, err := s.command(s.pgctl, "-D", s.data, "-m", mode, "-w", "stop").CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctl stop: %v: %s", err, lastLines(out))
	}
	return nil
}

// remove stops the server and deletes its folder.
func (s *cluster) remove() {
	s.stop("immediate")
	os.RemoveAll(s.dir)
}

// Own is a PostgreSQL server of one test's own, for tests that stop and
// start it (a server lost mid-labeling or mid-migrate) without touching
// the server the other tests share.
type Own struct {
	t testing.TB
	s *cluster
}

// NewOwn starts a private server for t, removed when t ends, or skips t
// saying why none could be started. Unlike DSN it never uses
// $TRACELAB_TEST_PG: a shared server is not ours to stop.
func NewOwn(t testing.TB) *Own {
	t.Helper()
	s, why := newServer()
	if s == nil {
		t.Skipf("no private PostgreSQL server to stop and start: %s", why)
	}
	if err := s.start(); err != nil {
		s.remove()
		t.Skipf("no private PostgreSQL server to stop and start: %v", err)
	}
	t.Cleanup(s.remove)
	return &Own{t: t, s: s}
}

// DSN is the server's URL.
func (o *Own) DSN() string { return o.s.url }

// Stop shuts the server down the way an administrator's fast shutdown
// does: sessions are ended, their open transactions rolled back.
func (o *Own) Stop() {
	o.t.Helper()
	if err := o.s.stop("fast"); err != nil {
		o.t.Fatal(err)
	}
}

// Kill stops the server at once, as a crash does.
func (o *Own) Kill() {
	o.t.Helper()
	if err := o.s.stop("immediate"); err != nil {
		o.t.Fatal(err)
	}
}

// Start starts the server again after Stop or Kill.
func (o *Own) Start() {
	o.t.Helper()
	if err := o.s.start(); err != nil {
		o.t.Fatal(err)
	}
}

// ShellCommand is op ("stop", "kill" or "start") as a shell command line,
// for a script that stops the server mid-session (tui_e2e.sh's run).
func (o *Own) ShellCommand(op string) string {
	s := o.s
	var args []string
	switch op {
	case "stop", "kill":
		mode := map[string]string{"stop": "fast", "kill": "immediate"}[op]
		args = []string{s.pgctl, "-D", s.data, "-m", mode, "-w", "stop"}
	default:
		args = []string{s.pgctl, "-D", s.data, "-o", s.opts(), "-l", filepath.Join(s.dir, "log"), "-w", "-t", "60", "start"}
	}
	all := append(append([]string{}, s.as...), args...)
	q := make([]string, len(all))
	for i, a := range all {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
