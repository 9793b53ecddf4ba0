package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/store/pgtest"
)

// The bundled testdata imported, scored and exported through PostgreSQL
// gives byte for byte the suite and report it gives through a SQLite file.
func TestTeamStoreExportsTheSameSuite(t *testing.T) {
	traces, err := filepath.Glob("testdata/traces/*.jsonl")
	if err != nil || len(traces) == 0 {
		t.Fatalf("no testdata traces: %v", err)
	}
	export := func(db string) map[string]string {
		t.Helper()
		out := t.TempDir()
		steps := [][]string{
			append(append([]string{"import", "--db", db}, traces...), "testdata/cases.jsonl"),
			{"score", "--db", db, "--policy", "testdata/policy.json", "--lineage", "testdata/lineage.json"},
			{"export", "--db", db, "--all", "--out", out, "--policy", "testdata/policy.json", "--lineage", "testdata/lineage.json"},
		}
		for _, args := range steps {
			if _, errs, code := run(t, args...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args[:1], code, errs)
			}
		}
		files := map[string]string{}
		for _, args := range [][]string{{"report", "--db", db, "--all", "--format", "json", "--policy", "testdata/policy.json"},
			{"ls", "--db", db}} {
			o, errs, code := run(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args[:1], code, errs)
			}
			files[args[0]+" output"] = o
		}
		for _, name := range []string{"cases.jsonl", "report.json"} {
			b, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			files[name] = string(b)
		}
		return files
	}
	lite := export(filepath.Join(t.TempDir(), "t.db"))
	if n := strings.Count(lite["cases.jsonl"], "\n"); n < 28 {
		t.Fatalf("the SQLite export holds %d cases, want the 28 of testdata and more", n)
	}
	pg := export(pgtest.DSN(t))
	for name, want := range lite {
		if pg[name] != want {
			t.Errorf("%s differs between SQLite and PostgreSQL:\nsqlite:\n%s\npostgres:\n%s", name, want, pg[name])
		}
	}
}

// migrate copies a labeled local database into PostgreSQL, prints each
// table's counts and hashes as the same on both sides, does nothing the
// second time, and refuses a target holding other data.
func TestCLIMigrate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "local.db")
	other := filepath.Join(dir, "other.db")
	for _, args := range [][]string{
		{"import", "--db", file, "testdata/traces/generic-warehouse.jsonl", "testdata/cases.jsonl"},
		{"import", "--db", other, writeIn(t, dir, "t.jsonl", cliTraces)},
	} {
		if _, errs, code := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	dsn := pgtest.DSN(t)
	out, errs, code := run(t, "migrate", "--from", file, "--to", dsn)
	if code != 0 {
		t.Fatalf("migrate: exit %d: %s\n%s", code, errs, out)
	}
	for _, want := range []string{"traces: 13 of 13 rows", "events: "} {
		if !strings.Contains(errs, want) {
			t.Errorf("progress lacks %q:\n%s", want, errs)
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 10 || !strings.HasPrefix(lines[0], "table") || !strings.Contains(out, "every table the same") {
		t.Fatalf("migrate output:\n%s", out)
	}
	for _, l := range lines[1 : len(lines)-1] {
		if f := strings.Fields(l); len(f) != 6 || f[1] != f[2] || f[3] != f[4] || f[5] != "same" {
			t.Errorf("table line %q: counts and hashes differ", l)
		}
	}
	lsFile, _, _ := run(t, "ls", "--db", file)
	lsPG, _, _ := run(t, "ls", "--db", dsn)
	if lsFile != lsPG || strings.Count(lsFile, "\n") < 13 {
		t.Errorf("ls differs:\nfile:\n%s\npostgres:\n%s", lsFile, lsPG)
	}
	out, errs, code = run(t, "migrate", "--from", file, "--to", dsn)
	if code != 0 || !strings.Contains(out, "nothing copied") {
		t.Errorf("second migrate: exit %d: %s\n%s", code, errs, out)
	}
	t.Setenv("TRACELAB_DB", dsn)
	out, errs, code = run(t, "migrate", "--from", other)
	if code != 1 || !strings.Contains(errs, "the target database already holds other data (") || !strings.Contains(out, "DIFFERENT") {
		t.Errorf("migrate into a target with other data: exit %d: %s\n%s", code, errs, out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"migrate", "--to", dsn}, "--from FILE.db is required"},
		{[]string{"migrate", "--from", filepath.Join(dir, "missing.db"), "--to", dsn}, "missing.db"},
		{[]string{"migrate", "--from", file, "--to", filepath.Join(dir, "x.db")}, "postgres:// or postgresql:// URL"},
	} {
		if _, errs, code := run(t, tt.args...); code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d: %s", tt.args, code, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("migrate created its missing --from file")
	}
}

// TRACELAB_DB is the default of --db, a PostgreSQL URL as well as a file.
func TestTracelabDBNamesTheTeamStore(t *testing.T) {
	dsn := pgtest.DSN(t)
	// In a folder of its own: a ./tracelab.db a user left in the checkout
	// (the quick tour makes one) must not fail the test.
	t.Chdir(t.TempDir())
	t.Setenv("TRACELAB_DB", dsn)
	if _, errs, code := run(t, "import", writeIn(t, t.TempDir(), "t.jsonl", cliTraces)); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	t.Setenv("TRACELAB_DB", "")
	out, errs, code := run(t, "ls", "--db", dsn)
	if code != 0 || !strings.Contains(out, "t1") || !strings.Contains(out, "t2") {
		t.Errorf("ls --db the same URL: exit %d: %s\n%s", code, errs, out)
	}
	if _, err := os.Stat("tracelab.db"); err == nil {
		t.Error("a ./tracelab.db was created although TRACELAB_DB named a server")
	}
}
