package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The count of traces kept by 0028's triggers (SQLite) is count(*)
// through imports that add traces and replace changed ones.
func TestCountTracesFollowsImportsAndReplaces(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		check := func(want int) {
			t.Helper()
			var direct int
			if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM traces`).Scan(&direct); err != nil {
				t.Fatal(err)
			}
			if n, err := st.CountTraces(ctx); err != nil || n != want || direct != want {
				t.Fatalf("CountTraces %d %v, count(*) %d, want %d", n, err, direct, want)
			}
		}
		check(0)
		if _, err := importString(t, st, "a.jsonl", manyTraces(5), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		check(5)
		// t001 changed (replaced: deleted and inserted again) and two new.
		changed := strings.Replace(manyTraces(7), `"text":"1"`, `"text":"one"`, 1)
		if res, err := importString(t, st, "b.jsonl", changed, ImportOptions{Replace: true}); err != nil || res.Replaced != 1 {
			t.Fatalf("replace: %+v %v", res, err)
		}
		check(7)
	})
}

// A configuration change makes the scores of other configurations stale
// through score_state's config_sha index (0028); the list still comes in
// import order, whichever side of the new hash each old one sorts.
func TestConfigStaleInImportOrder(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		st := b.open(t)
		ctx := context.Background()
		const n = 9
		if _, err := importString(t, st, "a.jsonl", manyTraces(n), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		configs := []string{"c", "a", "b", "c", "a", "e", "b", "c", "e"} // "c" current; a, b sort before, e after
		var rows []ScoreRow
		for i := range n {
			rows = append(rows, ScoreRow{TraceID: fmt.Sprintf("t%03d", i), GoldSHA: GoldSHANone, ConfigSHA: configs[i],
				Detail: json.RawMessage(`{}`)})
		}
		if err := st.SaveScores(ctx, rows, nil); err != nil {
			t.Fatal(err)
		}
		stale, err := st.StaleTraces(ctx, "c")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range stale {
			got = append(got, s.TraceID)
		}
		if want := "t001 t002 t004 t005 t006 t008"; strings.Join(got, " ") != want {
			t.Errorf("stale under config c: %v, want %s", got, want)
		}
		if stale, err := st.StaleTraces(ctx, "e"); err != nil || len(stale) != 7 || stale[0].TraceID != "t000" || stale[6].TraceID != "t007" {
			t.Errorf("stale under config e: %+v %v", stale, err)
		}
	})
}
