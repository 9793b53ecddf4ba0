package store

import (
	"context"
	"strings"
	"testing"
)

// TestSearchIndexesTheStartOfAHugeBody: SQLite's index reads the first
// 4,000,000 characters of a trace's steps (migration 0024; indexing the
// whole of a 63 MiB step copied it five times in memory). A word near the
// start is found; one only past the bound is not.
func TestSearchIndexesTheStartOfAHugeBody(t *testing.T) {
	ctx := context.Background()
	st := sqliteStore(t)
	long := "zebracrossing " + strings.Repeat("probably ", 4_100_000/9) + " unicornfinale"
	if _, err := importString(t, st, "s.jsonl", searchTrace("t1", "a", "is_active", long), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int{"zebracrossing": 1, "unicornfinale": 0} {
		hits, err := st.Search(ctx, SearchQuery{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != want {
			t.Errorf("%s: %d hits, want %d", q, len(hits), want)
		}
	}
}
