package cli

import (
	"net/url"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/store/pgtest"
)

// TestProcessPasswordsNeverPrinted: a PostgreSQL password is masked in
// migrate's lines and in every error, however the URL carries it
// (percent-encoded userinfo, ?password=, a key=value DSN). Before, only
// a literal ":password@" was masked.
func TestProcessPasswordsNeverPrinted(t *testing.T) {
	dsn := pgtest.DSN(t) // trust authentication: any password is accepted
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	const secret = "p@ss:w/rd#1%"
	u.User = url.UserPassword(u.User.Username(), secret)
	encoded := u.String()
	q := u.Query()
	q.Set("password", "s3cretQ")
	u.RawQuery = q.Encode()
	u.User = url.User(u.User.Username())
	inQuery := u.String()
	secrets := []string{secret, url.QueryEscape(secret), url.PathEscape(secret), "p%40ss", "s3cretQ", "s3cretKV"}

	dir := t.TempDir()
	db := importSamples(t, dir)
	for _, tt := range []struct {
		name string
		args []string
		code int
	}{
		{"migrate, percent-encoded userinfo", []string{"migrate", "--from", db, "--to", encoded}, 0},
		{"migrate again, ?password=", []string{"migrate", "--from", db, "--to", inQuery}, 0},
		{"ls, a refused connection", []string{"ls", "--db", "postgres://ana:p%40ss@127.0.0.1:1/tl?password=s3cretQ&connect_timeout=5"}, 2},
		{"migrate to a key=value DSN", []string{"migrate", "--from", db, "--to", "host=db user=ana password=s3cretKV"}, 2},
		{"migrate from a URL", []string{"migrate", "--from", "postgres://ana:p%40ss@db/x", "--to", inQuery}, 2},
	} {
		p := tracelab(t, dir, tt.args...)
		if p.code != tt.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", tt.name, p.code, tt.code, p.out, p.err)
		}
		for _, s := range secrets {
			if strings.Contains(p.out, s) || strings.Contains(p.err, s) {
				t.Errorf("%s: the password %q is printed:\n%s%s", tt.name, s, p.out, p.err)
			}
		}
		if !strings.Contains(p.out+p.err, "xxxxx") && tt.name != "migrate again, ?password=" {
			t.Errorf("%s: no masked password in\n%s%s", tt.name, p.out, p.err)
		}
	}
}
