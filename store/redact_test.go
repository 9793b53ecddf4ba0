package store

import (
	"strings"
	"testing"
)

func TestRedactDSN(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"postgres://ana:s3cret@db.example/tl", "postgres://ana:xxxxx@db.example/tl"},
		{"postgres://ana:p%40ss%3Aw%2Frd%23@db.example:5432/tl", "postgres://ana:xxxxx@db.example:5432/tl"},
		{"postgresql://ana:p@ss:w/rd@db.example/tl", "postgresql://ana:xxxxx@db.example/tl"},
		{"postgres://ana@db.example/tl?password=s3cret&sslmode=disable", "postgres://ana@db.example/tl?password=xxxxx&sslmode=disable"},
		{"postgres://db.example/tl?sslmode=disable&PassWord=a%26b", "postgres://db.example/tl?sslmode=disable&PassWord=xxxxx"},
		{"postgres://db.example/tl?pass%77ord=s3cret", "postgres://db.example/tl?pass%77ord=xxxxx"},
		{"postgres://db.example/tl?sslpassword=k3y", "postgres://db.example/tl?sslpassword=xxxxx"},
		{"postgres://:pw@/tl?host=/tmp", "postgres://:xxxxx@/tl?host=/tmp"},
		{"postgres://ana@db.example/tl", "postgres://ana@db.example/tl"},
		{"host=db user=ana password=s3cret dbname=tl", "host=db user=ana password=xxxxx dbname=tl"},
		{"host=db password = 'it\\'s a secret' dbname=tl", "host=db password = xxxxx dbname=tl"},
		{"host=db sslpassword=k3y", "host=db sslpassword=xxxxx"},
	} {
		if got := RedactDSN(tt.in); got != tt.want {
			t.Errorf("RedactDSN(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRedactSecrets: a password is masked wherever a message carries it,
// and nothing else of the message changes.
func TestRedactSecrets(t *testing.T) {
	for _, tt := range []struct{ in, secret, keep string }{
		{`open postgres://ana:p%40ss@db/tl: dial tcp: connection refused`, "p%40ss", "dial tcp: connection refused"},
		{`--to "postgres://ana@db/tl?password=s3cret": bad`, "s3cret", `": bad`},
		{`--to "host=db password=s3cret": give a postgres:// URL`, "s3cret", `password=xxxxx": give a postgres:// URL`},
		{`--to "host=db password=s3\"cret x": bad`, "cret", `password=xxxxx x": bad`},
		{`open postgres://a@db/tl?password=s3cret: failed`, "s3cret", "?password=xxxxx: failed"},
		{`copied a.db into postgresql://ana:pw@db/tl?sslmode=disable: every table the same`, ":pw@", "sslmode=disable: every table the same"},
	} {
		got := RedactSecrets(tt.in)
		if strings.Contains(got, tt.secret) || !strings.Contains(got, tt.keep) || !strings.Contains(got, masked) {
			t.Errorf("RedactSecrets(%q) = %q", tt.in, got)
		}
	}
	if s := "no secrets here: trace t1 has a password field"; RedactSecrets(s) != s {
		t.Errorf("RedactSecrets changed %q", s)
	}
}
