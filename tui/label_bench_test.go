package tui

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"tracelab/app"
)

// benchCopy is a private copy of the 100k database for benchmarks that
// write (labels), so the cached one stays as generated.
func benchCopy(b *testing.B) *app.Engine {
	b.Helper()
	eng := benchStore(b) // generates the database the first time
	if _, err := eng.Store().DB().Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		b.Fatal(err)
	}
	eng.Close()
	dst := filepath.Join(b.TempDir(), "label.db")
	src, err := os.Open(benchDB)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, src); err != nil {
		b.Fatal(err)
	}
	out.Close()
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
	const traces = 20
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
}
