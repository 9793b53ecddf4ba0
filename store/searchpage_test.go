package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// A queue page under a search alone, in trace id order, reads only the
// first ids of the full-text index past its start (queueSearchCondPage):
// page after page, both ways, it lists the traces the whole search
// lists, in the same order. The whole search is the same search with a
// filter that keeps every trace (any other condition reads every id).
func TestSearchPagesListWhatTheWholeSearchLists(t *testing.T) {
	st := sqliteStore(t)
	ctx := context.Background()
	var lines strings.Builder
	for i := range 40 {
		step := "nothing here"
		if i%3 != 0 {
			step = "is_active sounds right"
		}
		q := fmt.Sprintf("How many customers %d?", i)
		if i%7 == 0 {
			q = fmt.Sprintf("Is is_active the flag %d?", i)
		}
		fmt.Fprintf(&lines, `{"trace_id":"t%02d","server":"s","question":%q,"steps":[{"kind":"reasoning","text":%q},{"kind":"answer","text":"1"}]}`+"\n", i, q, step)
	}
	if _, err := importString(t, st, "a.jsonl", lines.String(), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	list := func(f Filter, desc bool, limit int) []string {
		var ids []string
		q := Query{Filter: f, Desc: desc, Limit: limit}
		for {
			page, next, err := st.ListTraces(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range page {
				ids = append(ids, r.TraceID)
			}
			if next == nil {
				return ids
			}
			q.After = next
		}
	}
	for _, text := range []string{"is_active", "t1", "customers 3", "sounds", `"is_active sounds"`, "nowhere_at_all", "flag"} {
		for _, desc := range []bool{false, true} {
			f := Filter{Search: text}
			if searchPageOf(st.d, Query{Filter: f}) == nil {
				t.Fatalf("a search alone for %q is not read page by page", text)
			}
			whole := list(Filter{Search: text, Servers: []string{"s"}}, desc, 1000)
			if !slices.IsSortedFunc(whole, func(a, b string) int {
				if desc {
					return strings.Compare(b, a)
				}
				return strings.Compare(a, b)
			}) {
				t.Fatalf("%q: the whole search is out of order: %v", text, whole)
			}
			for _, limit := range []int{1, 3, 7, 100} {
				if got := list(f, desc, limit); !slices.Equal(got, whole) {
					t.Errorf("search %q desc %v, pages of %d: %v; the whole search lists %v", text, desc, limit, got, whole)
				}
			}
		}
	}
	// Another condition beside the search reads every id.
	for _, f := range []Filter{{Search: "x", Statuses: []model.Status{model.StatusNone}}, {Search: "x", QueuedOnly: true}} {
		if searchPageOf(st.d, Query{Filter: f}) != nil {
			t.Errorf("filter %+v is read page by page from the index", f)
		}
	}
	if searchPageOf(st.d, Query{Filter: Filter{Search: "x"}, Sort: SortMarkers}) != nil {
		t.Error("a page sorted by markers is read from the index in trace order")
	}
}
