package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The history keeps every recorded report in time order on both
// backends, stamped with the store's clock, and limit keeps the newest.
func TestReportHistory(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		st := b.open(t)
		if got, err := st.ReportHistory(ctx, 0); err != nil || len(got) != 0 {
			t.Fatalf("empty history: %v, %v", got, err)
		}
		at := time.Date(2026, 7, 4, 10, 0, 0, 0, time.UTC)
		st.SetClock(func() time.Time { return at })
		entries := []HistoryEntry{
			{Kind: HistoryExport, Suite: "suite", ManifestSHA: strings.Repeat("a", 64), Report: []byte(`[{"server":"a","cases":1}]`)},
			{Kind: HistoryCheck, Suite: "suite", ManifestSHA: strings.Repeat("a", 64), Report: []byte(`[{"server":"a","cases":2}]`)},
			{Kind: HistoryExport, Report: []byte(`[]`)},
		}
		for i, e := range entries {
			st.SetClock(func() time.Time { return at.Add(time.Duration(i) * time.Hour) })
			if _, err := st.RecordReport(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		got, err := st.ReportHistory(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("%d entries, want 3", len(got))
		}
		for i, e := range got {
			want := entries[i]
			if e.Kind != want.Kind || e.Suite != want.Suite || e.ManifestSHA != want.ManifestSHA || string(e.Report) != string(want.Report) {
				t.Errorf("entry %d = %+v, want %+v", i, e, want)
			}
			if wantAt := at.Add(time.Duration(i) * time.Hour); !e.At.Equal(wantAt) {
				t.Errorf("entry %d at %v, want %v", i, e.At, wantAt)
			}
		}
		newest, err := st.ReportHistory(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(newest) != 2 || newest[0].ID != got[1].ID || newest[1].ID != got[2].ID {
			t.Errorf("limit 2 = %+v, want the last two of %+v, oldest first", newest, got)
		}
		if _, err := st.RecordReport(ctx, HistoryEntry{Kind: "report", Report: []byte(`[]`)}); err == nil {
			t.Error("a kind other than export or check was recorded")
		}
	})
}
