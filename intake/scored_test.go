package intake

import (
	"context"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
)

// TestStoredTracesAreScored: every trace the receiver stored is scored
// once its request is answered.
func TestStoredTracesAreScored(t *testing.T) {
	eng, _ := openEngine(t, "live.db")
	r, addr := startHTTP(t, eng.Imports, Config{})
	const traces = 30
	for i := range 3 { // three requests, ten traces each
		if code, _, err := send("http://"+addr+"/v1/traces", benchRequest(i*10, 10)); err != nil || code != 200 {
			t.Fatalf("request %d: %d %v", i, code, err)
		}
	}
	r.Close()
	rows, _, err := eng.Traces.ListTraces(context.Background(), app.Query{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != traces {
		t.Fatalf("%d traces stored, want %d", len(rows), traces)
	}
	for _, row := range rows {
		if !row.Scored {
			t.Errorf("trace %s stored but not scored", row.TraceID)
		}
	}
}
