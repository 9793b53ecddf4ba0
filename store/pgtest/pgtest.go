// Package pgtest gives tests a PostgreSQL database of their own: a fresh
// schema on the server $TRACELAB_TEST_PG names (a postgres:// URL of a
// role that may create schemas there), or, when it is unset, on a private
// server this process starts with initdb and pg_ctl in a temporary folder
// (unix socket only, as the unprivileged user "postgres" when running as
// root). Tests skip, saying why, only when no private server can be
// started; a $TRACELAB_TEST_PG that cannot be reached fails them.
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// EnvVar names the server tests use instead of starting one.
const EnvVar = "TRACELAB_TEST_PG"

var (
	once    sync.Once
	base    string // URL of the server's database
	why     string // why there is no server
	stop    func()
	admin   *sql.DB
	schemas atomic.Int64
)

// server finds or starts the server once per process.
func server() (string, string) {
	once.Do(func() {
		if v := os.Getenv(EnvVar); v != "" {
			base = v
		} else {
			base, stop, why = startPrivate()
		}
		if base == "" {
			return
		}
		db, err := sql.Open("pgx", base)
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			err = db.PingContext(ctx)
			cancel()
		}
		if err != nil {
			why = fmt.Sprintf("PostgreSQL at %s: %v", redact(base), err)
			base = ""
			return
		}
		admin = db
	})
	return base, why
}

// Stop shuts the private server down (TestMain calls it after m.Run); a
// server named by $TRACELAB_TEST_PG is left running. Tests fail, rather
// than skip, when $TRACELAB_TEST_PG names a server that cannot be reached.
func Stop() {
	if admin != nil {
		admin.Close()
	}
	if stop != nil {
		stop()
	}
}

// DSN returns the URL of an empty schema made for t (dropped when t ends),
// or skips t saying why no PostgreSQL server could be had.
func DSN(t testing.TB) string {
	t.Helper()
	b, reason := server()
	if b == "" && os.Getenv(EnvVar) != "" {
		// A server asked for and not there is a failure, not a skip: CI
		// must not pass by testing one backend.
		t.Fatalf("%s: %s", EnvVar, reason)
	}
	if b == "" {
		t.Skipf("no PostgreSQL server (set %s=postgres://… to use one): %s", EnvVar, reason)
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), schemas.Add(1))
	if _, err := admin.Exec("CREATE SCHEMA " + name); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + name + " CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return withSearchPath(b, name)
}

// redact is a URL without its password.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// withSearchPath is a URL whose sessions work in schema name.
func withSearchPath(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// Bin finds a PostgreSQL program: on PATH, else in the newest of
// Debian's /usr/lib/postgresql/*/bin.
func Bin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if p := filepath.Join(d, name); executable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH or in /usr/lib/postgresql/*/bin (Debian: apt-get install postgresql)", name)
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode()&0o111 != 0
}

// startPrivate runs initdb and pg_ctl in a new temporary folder and
// returns the server's URL and how to stop it, or why it could not.
func startPrivate() (dsn string, stop func(), why string) {
	s, why := newServer()
	if s == nil {
		return "", nil, why
	}
	if err := s.start(); err != nil {
		s.remove()
		return "", nil, err.Error()
	}
	return s.url, s.remove, ""
}

func lastLines(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " / ")
}
