package main

import (
	"context"
	"flag"
	"fmt"
	"sort"
	"time"

	"github.com/tracelab-dev/tracelab/app"
)

// search times the full-text search (issue 31) on a database bench gen's
// corpus was imported into: `tracelab search`'s query (the first 100
// hits), the queue's `/` (its first page and the count of traces matching
// in their steps), for a word every trace holds, one half of them hold,
// and a rare phrase. Each figure is the median of -runs runs after one
// warm-up run.
//
//	go run ./bench search -db t.db
func search(args []string) error {
	fs := flag.NewFlagSet("search", flag.ExitOnError)
	db := fs.String("db", "", "database holding the imported corpus")
	runs := fs.Int("runs", 7, "runs per figure")
	fs.Parse(args)
	ctx := context.Background()
	eng, err := app.Open(ctx, *db, app.Files{})
	if err != nil {
		return err
	}
	defer eng.Close()
	for _, q := range []string{"is_active", "PAUSED_BILLING", `"segment 2999"`, `"id 999" is_active`, "nowhere_at_all"} {
		var hits []app.SearchHit
		var n, page int
		figures := []struct {
			name string
			fn   func() error
		}{
			{"search (100 hits)", func() (err error) {
				hits, err = eng.Traces.Search(ctx, app.SearchQuery{Text: q, Limit: 100})
				return err
			}},
			{"queue / first page", func() error {
				rows, _, err := eng.Traces.ListTraces(ctx, app.Query{Filter: app.Filter{Search: q}, Limit: 100})
				page = len(rows)
				return err
			}},
			{"queue / count in steps", func() (err error) {
				n, err = eng.Traces.SearchTraceCount(ctx, q, app.Filter{})
				return err
			}},
		}
		for _, f := range figures {
			d, err := median(*runs, f.fn)
			if err != nil {
				return fmt.Errorf("%s %s: %w", f.name, q, err)
			}
			fmt.Printf("%-26s %-24s %8.1f ms\n", f.name, q, float64(d.Microseconds())/1000)
		}
		fmt.Printf("  %d hits, first page %d rows, %d traces match in their steps\n", len(hits), page, n)
	}
	return nil
}

// median runs fn once to warm up, then runs times, and returns the median.
func median(runs int, fn func() error) (time.Duration, error) {
	if err := fn(); err != nil {
		return 0, err
	}
	ds := make([]time.Duration, runs)
	for i := range ds {
		t0 := time.Now()
		if err := fn(); err != nil {
			return 0, err
		}
		ds[i] = time.Since(t0)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], nil
}
