package intake

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
)

// TestStoredTracesAreScored: the scorer rescores every trace the writer
// stored, apart from the acknowledgement, and Close returns only once it
// has scored the last of them.
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
	if got := r.Scored.Load(); got != traces {
		t.Fatalf("scorer scored %d traces, want %d", got, traces)
	}
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

// TestScoreQueue: a trace queued again before it is taken is queued once,
// in order, even when the queue is full; a full queue holds add until take
// makes room; close lets take drain, then says the end.
func TestScoreQueue(t *testing.T) {
	q := newScoreQueue(3)
	q.add([]string{"a", "b", "a"})
	cde := make(chan struct{})
	go func() { q.add([]string{"c", "d", "e"}); close(cde) }() // d waits: full
	if got, ok := q.take(2); !ok || !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("first take = %v %v", got, ok)
	}
	<-cde
	f := make(chan struct{})
	go func() { q.add([]string{"f"}); close(f) }() // waits: c, d, e fill it
	if got, _ := q.take(1); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("second take = %v", got)
	}
	<-f
	q.add([]string{"d", "f"}) // full, but both queued already: no wait
	q.close()
	if got, ok := q.take(10); !ok || fmt.Sprint(got) != "[d e f]" {
		t.Fatalf("after close took %v %v, want [d e f]", got, ok)
	}
	if got, ok := q.take(10); ok {
		t.Fatalf("a closed, empty queue gave %v", got)
	}
}
