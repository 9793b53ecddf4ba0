package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tracelab/store/pgtest"
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
