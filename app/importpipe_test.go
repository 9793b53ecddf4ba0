package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tracelab-dev/tracelab/store"
)

// TestImportScoresBeforeTheCopy: the writer copies a staged file into the
// database only once the scorer has put every score, so each trace lands
// with its score and its machine case in the one copy (no queue trigger
// rewrites it after), and the database's write lock is taken for the
// copy alone. The test plays the scorer: when the writer says no more
// traces come, every trace is written and not one score is put, and
// another writer with a short lock wait still gets through; the writer
// copies when the scorer says it is done.
func TestImportScoresBeforeTheCopy(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	e, err := Open(ctx, path, Files{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	other, err := store.OpenWith(ctx, path, store.Options{LockWait: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	body, err := os.ReadFile("../testdata/traces/generic-warehouse.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const name = "generic-warehouse.jsonl"
	im, err := e.st.BeginImport(ctx, name, false)
	if err != nil {
		t.Fatal(err)
	}
	defer im.Rollback()
	res := ImportResult{File: name}
	p := newImportPipe(im, &res, name, ImportOptions{Score: true}, true)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return p.parse(gctx, strings.NewReader(string(body))) })
	g.Go(func() error { return p.write(gctx) })
	scored := false
	defer func() { // a failed check below still lets the writer end
		if !scored {
			close(p.scored)
			g.Wait()
		}
	}()
	fresh := 0
	for ts := range p.fresh {
		fresh += len(ts)
	}
	if want := strings.Count(strings.TrimSpace(string(body)), "\n") + 1; fresh != want {
		t.Fatalf("%d fresh traces sent to the scorer, want every one of the file's %d", fresh, want)
	}
	if err := other.SaveGlossary(ctx, store.GlossaryEntry{Term: "active customer", Definition: "status in (ACTIVE)"}, "ana"); err != nil {
		t.Errorf("a write while the scorer still works on the file: %v", err)
	}
	close(p.scored) // the scorer is done, having put no score
	scored = true
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := im.Commit(p.format, "sha", 0); err != nil {
		t.Fatal(err)
	}
	res.setStats(im)
	if res.New != fresh || res.Scored != 0 || len(res.ToScore) != fresh {
		t.Errorf("after the commit: %d new, %d scored, %d left to score; want %d, 0, %d", res.New, res.Scored, len(res.ToScore), fresh, fresh)
	}
}
