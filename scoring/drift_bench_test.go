package scoring

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDriftFullListing diffs the whole github-mcp-server listing
// between two releases (v1.8.0 → v1.10.1, 115 tools → 117) and reports the
// findings per lane next to the time:
//
//	go test ./scoring -run '^$' -bench DriftFullListing -benchmem
func BenchmarkDriftFullListing(b *testing.B) {
	dir := filepath.Join(historyDir, "full-v1.8.0-v1.10.1")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("SKIP: no listing at %s", dir)
	}
	oldTools := readHistoryListing(b, filepath.Join(dir, "old.json"))
	newTools := readHistoryListing(b, filepath.Join(dir, "new.json"))
	var res DriftResult
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		if res, err = DiffContracts(oldTools, newTools); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	lanes := map[Lane]float64{}
	for _, f := range res.Findings {
		lanes[f.Lane]++
	}
	b.ReportMetric(float64(len(oldTools)+len(newTools)), "tools")
	b.ReportMetric(float64(len(res.Findings)), "findings")
	b.ReportMetric(lanes[LaneBreaking], "breaking")
	b.ReportMetric(lanes[LaneRisky], "risky")
	b.ReportMetric(lanes[LaneAdditive], "additive")
}
