package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Export writes the same suite whatever its page size: the pages follow
// each other in case_id order, and report.json and suite.json tally every
// page (issue 33's streamed export).
func TestExportPagesWriteTheSameSuite(t *testing.T) {
	ctx := context.Background()
	for _, opts := range []ExportOptions{{}, {All: true}, {All: true, AllLabels: true}, {All: true, ExposeOnly: true}} {
		var suites [][]string
		var results []ExportResult
		for _, page := range []int{1000, 1, 3} {
			func() {
				defer func(old int) { exportPage = old }(exportPage)
				exportPage = page
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
					t.Fatalf("%+v page %d: %v", opts, page, err)
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
					t.Errorf("%+v: %s differs between pages of 1000 and of %d:\n%s\n---\n%s", opts, name, []int{1000, 1, 3}[i], suites[0][j], suites[i][j])
				}
			}
			if results[i].Cases != results[0].Cases || results[i].Considered != results[0].Considered || len(results[i].Dropped) != len(results[0].Dropped) {
				t.Errorf("%+v: result differs: %+v vs %+v", opts, results[i], results[0])
			}
		}
	}
}
