package tui

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// benchCopy is a private copy of the 100k database for benchmarks that
// write (labels), so the cached one stays as generated.
func benchCopy(b *testing.B) *app.Engine {
	b.Helper()
	eng := benchStore(b) // generates the database the first time
	eng.Close()          // the last connection checkpoints the WAL
	dst := filepath.Join(b.TempDir(), "label.db")
	for _, suffix := range []string{"", "-wal"} {
		src, err := os.Open(benchDB + suffix)
		if os.IsNotExist(err) && suffix != "" {
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		out, err := os.Create(dst + suffix)
		if err != nil {
			b.Fatal(err)
		}
		_, err = io.Copy(out, src)
		src.Close()
		out.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	return openBenchEngine(b, dst)
}

// BenchmarkLabelKeys: what a labeler waits for on the 100,000-trace
// database, from the key press to the frame that shows its result (the
// engine's write, rescore and reload included): a (accept the
// suggestions), c, enter (confirm; an incomplete label asks, and a second
// enter confirms anyway, then the next unconfirmed trace opens), and n in
// the queue (next unconfirmed trace).
func BenchmarkLabelKeys(b *testing.B) {
	eng := benchCopy(b)
	traces := 20
	if n, err := strconv.Atoi(os.Getenv("TRACELAB_BENCH_TRACES")); err == nil && n > 0 {
		traces = n // fewer for a profile
	}
	var accept, toggle, confirm, next []time.Duration
	timed := func(d *driver, keys ...string) time.Duration {
		start := time.Now()
		d.keys(keys...)
		_ = d.m.View()
		return time.Since(start)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := newBenchDriver(b, eng, 160, 48)
		d.key("enter")
		for n := 0; n < traces; n++ {
			if d.m.screen != screenTrace {
				b.Fatalf("not on a trace: screen %d, status %q", d.m.screen, d.m.status)
			}
			id := d.m.trace.id
			accept = append(accept, timed(d, "a"))
			toggle = append(toggle, timed(d, "c"))
			keys := []string{"enter"}
			if d.m.trace.rec == nil || d.m.trace.rec.Case.Label.Correct == nil {
				keys = append(keys, "enter")
			}
			confirm = append(confirm, timed(d, keys...))
			if d.m.dialog() != nil {
				d.key("enter") // confirm anyway
			}
			if d.m.trace.id == id {
				b.Fatalf("confirm did not move on from %s: %q", id, d.m.status)
			}
		}
		d.key("esc")
		for n := 0; n < traces; n++ {
			next = append(next, timed(d, "n"))
		}
	}
	// The same actions called on the engine directly, to split a key's
	// wait: the write itself, and opening a trace (its score and gold
	// suggestion), which confirm-and-next also pays.
	var confirmOnly, openOnly []time.Duration
	ctx := context.Background()
	rows, _, err := eng.Traces.ListTraces(ctx, app.Query{Filter: app.Filter{Statuses: []model.Status{model.StatusNone}}, Limit: traces})
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range rows {
		start := time.Now()
		if _, err := eng.Labels.ConfirmLabel(ctx, r.TraceID, "bench", true); err != nil {
			b.Fatal(err)
		}
		confirmOnly = append(confirmOnly, time.Since(start))
		start = time.Now()
		if _, err := eng.Scores.Of(ctx, r.TraceID); err != nil {
			b.Fatal(err)
		}
		openOnly = append(openOnly, time.Since(start))
	}
	b.StopTimer()
	report := func(name string, ds []time.Duration) {
		var sum time.Duration
		worst := time.Duration(0)
		for _, x := range ds {
			sum += x
			worst = max(worst, x)
		}
		b.ReportMetric(float64(sum.Microseconds())/1000/float64(len(ds)), name+"-mean-ms")
		b.ReportMetric(float64(worst.Microseconds())/1000, name+"-max-ms")
	}
	report("a", accept)
	report("c", toggle)
	report("confirm", confirm)
	report("n", next)
	report("engine-confirm", confirmOnly)
	report("engine-scoreof", openOnly)
}
