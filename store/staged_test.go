package store

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestImportStagedMatchesImport runs one sequence of imports through
// Import and through ImportStaged: every result, every error and every
// row of the database must come out the same.
func TestImportStagedMatchesImport(t *testing.T) {
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	changed := strings.Replace(goodTraces, `"text":"1"}]`, `"text":"2"}]`, 1)
	suite := read("testdata/cases_canonical.jsonl")
	samples := read("../testdata/traces/generic-warehouse.jsonl")
	steps := []struct {
		name, body string
		opts       ImportOptions
		// inFile: a trace id twice in the file with different content.
		// Import compares the second copy with the stored trace, the
		// staging with the first copy: both reject the file, the staged
		// report also names the file's own contradiction.
		inFile bool
	}{
		{"cases first.jsonl", suite, ImportOptions{}, false}, // cases that wait for their traces
		{"good.jsonl", goodTraces, ImportOptions{}, false},
		{"samples.jsonl", samples, ImportOptions{}, false},
		{"again.jsonl", goodTraces, ImportOptions{}, false},                           // unchanged
		{"changed.jsonl", changed, ImportOptions{}, false},                            // conflict: rejected whole
		{"changed skip.jsonl", changed, ImportOptions{SkipBad: true}, false},          // conflict skipped, t2 unchanged
		{"replace.jsonl", changed, ImportOptions{Replace: true}, false},               // t1 replaced
		{"suite again.jsonl", suite, ImportOptions{}, false},                          // cases unchanged
		{"bad.jsonl", goodTraces + "{\"trace_id\":\"t9\"}\n", ImportOptions{}, false}, // bad record: nothing
		{"dup in file.jsonl", goodTraces + changed, ImportOptions{}, true},
		{"dup in file skip.jsonl", goodTraces + changed, ImportOptions{SkipBad: true}, true},
	}
	direct, staged := openTemp(t), openTemp(t)
	ctx := context.Background()
	for _, s := range steps {
		r1, e1 := direct.Import(ctx, strings.NewReader(s.body), s.name, s.opts)
		r2, e2 := staged.ImportStaged(ctx, strings.NewReader(s.body), s.name, s.opts)
		if s.inFile {
			if (e1 == nil) != (e2 == nil) || len(r1.Bad) == 0 || len(r2.Bad) == 0 || len(r2.Traces) != len(r1.Traces) {
				t.Errorf("%s: %v %s\nstaged %v %s", s.name, e1, r1.Summary(), e2, r2.Summary())
			}
		} else if errText(e1) != errText(e2) {
			t.Errorf("%s: error %q, staged %q", s.name, errText(e1), errText(e2))
		}
		if s.inFile {
			// compared above
		} else if r1.Summary() != r2.Summary() || r1.Steps != r2.Steps || strings.Join(r1.Traces, ",") != strings.Join(r2.Traces, ",") {
			t.Errorf("%s: %s (%d steps, %v)\nstaged %s (%d steps, %v)", s.name, r1.Summary(), r1.Steps, r1.Traces, r2.Summary(), r2.Steps, r2.Traces)
		}
		if bad1, bad2 := badText(r1), badText(r2); bad1 != bad2 && !s.inFile {
			t.Errorf("%s: bad records\n%s\nstaged\n%s", s.name, bad1, bad2)
		}
		a, b := snapshot(t, direct), snapshot(t, staged)
		if s.inFile { // the import log's counts differ as the reports do; the data may not
			a, b = withoutImportLog(a), withoutImportLog(b)
		}
		if a != b {
			t.Fatalf("%s: the databases differ:\n%s", s.name, firstDiff(a, b))
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(staged.Path()))
	for _, e := range entries {
		if strings.Contains(e.Name(), "staging") {
			t.Errorf("staging database left behind: %s", e.Name())
		}
	}
}

func withoutImportLog(snap string) string {
	var keep []string
	for _, l := range strings.Split(snap, "\n") {
		if !strings.HasPrefix(l, "imports|") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func badText(r ImportResult) string {
	var b []string
	for _, e := range r.Bad {
		b = append(b, e.Error())
	}
	return strings.Join(b, "\n")
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "direct: " + al[i] + "\nstaged: " + bl[i]
		}
	}
	return "one has more rows"
}

// TestImportStagedHoldsTheLockBriefly: while a file is being staged, a
// second writer with a short lock wait gets through.
func TestImportStagedHoldsTheLockBriefly(t *testing.T) {
	st := openTemp(t)
	ctx := context.Background()
	other, err := OpenWith(ctx, st.Path(), Options{LockWait: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	pr, pw := io.Pipe()
	reading := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := st.ImportStaged(ctx, &firstRead{r: pr, c: reading}, "slow.jsonl", ImportOptions{})
		done <- err
	}()
	// The import is reading the file, which is not complete yet: the
	// database's write lock must be free meanwhile.
	lines := strings.SplitAfter(strings.TrimSpace(goodTraces), "\n")
	pw.Write([]byte(lines[0]))
	<-reading
	if err := other.SaveGlossary(ctx, GlossaryEntry{Term: "active", Definition: "status in (ACTIVE)"}, "ana"); err != nil {
		t.Errorf("a write during staging: %v", err)
	}
	pw.Write([]byte("\n" + lines[1]))
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.db.QueryRow(`SELECT count(*) FROM traces`).Scan(&n); err != nil || n != 2 {
		t.Errorf("%d traces after the import, %v", n, err)
	}
}

// firstRead closes c at the first Read.
type firstRead struct {
	r    io.Reader
	c    chan struct{}
	once sync.Once
}

func (f *firstRead) Read(p []byte) (int, error) {
	f.once.Do(func() { close(f.c) })
	return f.r.Read(p)
}

// TestOrphanStagingRemoved: a staging database whose import was killed is
// removed by the next import; one of a running process stays.
func TestOrphanStagingRemoved(t *testing.T) {
	st := openTemp(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	orphan := fmt.Sprintf("%s.%d-x", stagingPrefix(st.Path()), dead.Process.Pid)
	live := fmt.Sprintf("%s.%d-y", stagingPrefix(st.Path()), os.Getpid())
	for _, p := range []string{orphan, live} {
		if err := os.WriteFile(p, []byte("staged"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.ImportStaged(context.Background(), strings.NewReader(goodTraces), "good.jsonl", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); err == nil {
		t.Error("the killed import's staging database is still there")
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a running import's staging database was removed: %v", err)
	}
}
