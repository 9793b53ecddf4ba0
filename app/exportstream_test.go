package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/store"
)

// Export writes the same suite whatever its page size: the pages follow
// each other in case_id order, and report.json and suite.json tally every
// page (issue 33's streamed export).
func TestExportPagesWriteTheSameSuite(t *testing.T) {
	ctx := context.Background()
	for _, opts := range []ExportOptions{{}, {All: true}, {All: true, AllLabels: true}, {All: true, ExposeOnly: true}} {
		var suites [][]string
		var results []ExportResult
		cuts := []struct{ page, readers int }{{1000, 2}, {1, 1}, {1, 3}, {3, 2}}
		for _, cut := range cuts {
			func() {
				defer func(page, readers int) { exportPage, exportReaders = page, readers }(exportPage, exportReaders)
				exportPage, exportReaders = cut.page, cut.readers
				st := openTestdata(t, true)
				eng, err := newEngine(ctx, st, Files{Policy: "../testdata/policy.json", Lineage: "../testdata/lineage.json"})
				if err != nil {
					t.Fatal(err)
				}
				defer eng.Close()
				o := opts
				o.Dir = filepath.Join(t.TempDir(), "suite")
				res, err := eng.Suite.Export(ctx, o)
				if err != nil {
					t.Fatalf("%+v %+v: %v", opts, cut, err)
				}
				var files []string
				for _, name := range []string{"cases.jsonl", "report.json", ManifestName, suiteContractsName} {
					b, _ := os.ReadFile(filepath.Join(o.Dir, name)) // contracts.json may be absent
					files = append(files, string(b))
				}
				suites = append(suites, files)
				results = append(results, res)
			}()
		}
		if results[0].Cases < 4 {
			t.Fatalf("%+v: %d cases exported: too few to cross pages of 3", opts, results[0].Cases)
		}
		for i := 1; i < len(suites); i++ {
			for j, name := range []string{"cases.jsonl", "report.json", ManifestName, suiteContractsName} {
				if suites[i][j] != suites[0][j] {
					t.Errorf("%+v: %s differs between %+v and %+v:\n%s\n---\n%s", opts, name, cuts[0], cuts[i], suites[0][j], suites[i][j])
				}
			}
			if results[i].Cases != results[0].Cases || results[i].Considered != results[0].Considered || len(results[i].Dropped) != len(results[0].Dropped) {
				t.Errorf("%+v: result differs: %+v vs %+v", opts, results[i], results[0])
			}
		}
	}
}

// A range holds more than a page when cases were added to it after it
// was cut: its reader goes on, page by page, to the range's end.
func TestExportRangeReadsPastAPage(t *testing.T) {
	defer func(old int) { exportPage = old }(exportPage)
	exportPage = 2
	ctx := context.Background()
	eng, err := newEngine(ctx, openTestdata(t, true), Files{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	every, err := eng.st.CasesAfter(ctx, true, "", 100)
	if err != nil || len(every) < 6 {
		t.Fatalf("%d cases, %v: want 6 or more", len(every), err)
	}
	x := &exportStream{e: eng, opts: ExportOptions{All: true}}
	pages := make(chan casePage, 10)
	x.readRange(ctx, every[0].Case.CaseID, every[5].Case.CaseID, pages)
	var got []string
	var sizes []int
	for p := range pages {
		if p.err != nil {
			t.Fatal(p.err)
		}
		sizes = append(sizes, len(p.recs))
		for _, r := range p.recs {
			got = append(got, r.Case.CaseID)
		}
	}
	var want []string
	for _, r := range every[1:6] {
		want = append(want, r.Case.CaseID)
	}
	if !slices.Equal(got, want) || !slices.Equal(sizes, []int{2, 2, 1}) {
		t.Errorf("range (%s, %s]: pages %v of %v, want pages [2 2 1] of %v", every[0].Case.CaseID, every[5].Case.CaseID, sizes, got, want)
	}
}

// A writer that fails, or a cancelled export, stops every reader and
// returns: eachPage waits for its readers, so a reader left blocked would
// hang it here.
func TestExportStopsItsReaders(t *testing.T) {
	defer func(page, readers int) { exportPage, exportReaders = page, readers }(exportPage, exportReaders)
	exportPage, exportReaders = 1, 3
	eng, err := newEngine(context.Background(), openTestdata(t, true), Files{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	x := &exportStream{e: eng, opts: ExportOptions{All: true}}
	full := errors.New("disk full")
	pages := 0
	err = x.eachPage(context.Background(), func([]store.CaseRecord) error {
		if pages++; pages == 2 {
			return full
		}
		return nil
	})
	if !errors.Is(err, full) || pages != 2 {
		t.Errorf("a writer failing on page 2: %v after %d pages, want %v after 2", err, pages, full)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pages = 0
	err = x.eachPage(ctx, func([]store.CaseRecord) error {
		if pages++; pages == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("an export cancelled on page 2: %v after %d pages, want %v", err, pages, context.Canceled)
	}
	// A reader whose writer is gone, its page unsent, returns once the
	// export is cancelled, and closes its pages.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	unread := make(chan casePage)
	done := make(chan struct{})
	go func() {
		defer close(done)
		x.readRange(ctx, "", "", unread)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("a reader with nobody to take its page did not return when the export was cancelled")
	}
	if _, open := <-unread; open {
		t.Error("the stopped reader left its pages open")
	}
}
