package app

import (
	"context"
	"fmt"
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
	for fb := range p.fresh {
		fresh += len(fb.ts)
		p.budget.release(fb.bytes)
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

// TestImportBoundsTheBytesInFlight: records whose bytes outrun the
// import's byte budget wait for it (the parser waits, it does not fail),
// a batch for the scorer that is not full is handed on when the parser
// waits for the bytes it holds (else the import would stall: the batch
// waits for more traces, the parser for the batch to be scored), and
// every trace is written and scored (issue 27 item 10).
func TestImportBoundsTheBytesInFlight(t *testing.T) {
	for _, tt := range []struct {
		name         string
		budget       int64
		big, small   int // records of 1 MB and of a few hundred bytes, interleaved
		wantWaits    bool
		wantImported int
	}{
		{"big records past the budget", 3 << 20, 8, 40, true, 48},
		{"only big records, one at a time", 1 << 20, 5, 0, true, 5},
		{"small records within the budget", 3 << 20, 0, 500, false, 500},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a stall fails, not hangs
			defer cancel()
			e, err := Open(ctx, filepath.Join(t.TempDir(), "t.db"), Files{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			var file strings.Builder
			stride := (tt.big + tt.small) / max(tt.big, 1) // a big record every stride
			for i := range tt.big + tt.small {
				text := "probably fine"
				if tt.big > 0 && i%stride == 0 && i/stride < tt.big {
					text = strings.Repeat("lorem ipsum ", 1<<20/12)
				}
				fmt.Fprintf(&file, `{"trace_id":"t-%d","server":"s","question":"q","steps":[{"kind":"reasoning","text":%q},{"kind":"answer","text":"1"}]}`+"\n", i, text)
			}
			const name = "many.jsonl"
			im, err := e.st.BeginImport(ctx, name, false)
			if err != nil {
				t.Fatal(err)
			}
			defer im.Rollback()
			res := ImportResult{File: name}
			p := newImportPipe(im, &res, name, ImportOptions{Score: true, MaxRecord: 2 << 20}, true)
			p.budget = newByteBudget(tt.budget)
			g, gctx := errgroup.WithContext(ctx)
			g.Go(func() error { return p.parse(gctx, strings.NewReader(file.String())) })
			g.Go(func() error { return p.write(gctx) })
			g.Go(func() error { return p.score(gctx, e) })
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			if err := im.Commit(p.format, "sha", 0); err != nil {
				t.Fatal(err)
			}
			res.setStats(im)
			if res.New != tt.wantImported || res.Scored != tt.wantImported || len(res.Bad) > 0 {
				t.Errorf("%d new, %d scored, %d bad; want %d new and scored", res.New, res.Scored, len(res.Bad), tt.wantImported)
			}
			if waits := p.budget.waits.Load(); (waits > 0) != tt.wantWaits {
				t.Errorf("the parser waited for bytes %d times; want waits: %v", waits, tt.wantWaits)
			}
			// Every byte taken was given back.
			if !p.budget.sem.TryAcquire(tt.budget) {
				t.Errorf("bytes still taken from the budget after the import")
			}
		})
	}
}
