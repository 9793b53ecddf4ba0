package store

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// TestTakeLaterReleasesOnlyWhenTaken: on PostgreSQL n's reservation and
// the release of the trace the labeler held go with the COMMIT in one
// statement (takeLater). A trace another labeler holds is not taken and
// then what the labeler held stays theirs, as when the old take rolled
// back; a free one is taken and the old one let go.
func TestTakeLaterReleasesOnlyWhenTaken(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		if b.name != "postgres" {
			t.Skip("takeLater is the PostgreSQL path (SQLite takes in takeTx)")
		}
		ctx := context.Background()
		st, _ := openQueue(t, b, 3)
		st.SetReservationTTL(time.Hour)
		for _, r := range []struct{ trace, who string }{{"q000", "ana"}, {"q001", "bo"}} {
			if _, err := st.Reserve(ctx, r.trace, r.who); err != nil {
				t.Fatal(err)
			}
		}
		take := func(trace string) string {
			t.Helper()
			var holder string
			lctx := allowLater(ctx)
			if err := st.inCaseTx(lctx, func(tx *sql.Tx) error { return st.takeLater(lctx, tx, trace, "ana", &holder) }); err != nil {
				t.Fatal(err)
			}
			return holder
		}
		holders := func() (string, string, string) {
			var hs [3]string
			for i, id := range []string{"q000", "q001", "q002"} {
				h, err := st.Holder(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				hs[i] = h.Labeler
			}
			return hs[0], hs[1], hs[2]
		}
		if got := take("q001"); got != "" {
			t.Fatalf("took bo's trace: holder %q", got)
		}
		if a, b, c := holders(); a != "ana" || b != "bo" || c != "" {
			t.Fatalf("after a take that failed: holders %q %q %q, want ana bo none", a, b, c)
		}
		if got := take("q002"); got != "ana" {
			t.Fatalf("free trace: holder %q, want ana", got)
		}
		if a, b, c := holders(); a != "" || b != "bo" || c != "ana" {
			t.Fatalf("after a take: holders %q %q %q, want none bo ana", a, b, c)
		}
	})
}
