package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// labelers times a team labeling one queue: -labelers goroutines, each
// with its own engine (its own connections, as separate processes would
// be), take the next trace with NextInQueue and label it (class, correct,
// grounded, confirm) until the queue is empty; then all of them edit one
// hot case at once, the worst case for contention. Each database given
// (-db, -pg) gets the same generated corpus and the same run, printed
// side by side: edits per second and the latency of one edit (p50, p99,
// max), and of taking the next trace. The labelers act with no pause
// (a saturation test) unless -think gives them a person's pauses: rows
// of their own, to be reported beside the saturation rows, never
// instead of them.
//
//	go run ./bench labelers -db /tmp/team.db -pg postgres://localhost/tracelab_bench
func labelers(args []string) error {
	fs := flag.NewFlagSet("labelers", flag.ExitOnError)
	path := fs.String("db", "", "SQLite file to create (default: a temporary one)")
	lite := fs.Bool("sqlite", true, "run on SQLite too (-sqlite=false: only on -pg)")
	pg := fs.String("pg", "", "PostgreSQL URL of an empty database to compare with")
	n := fs.Int("labelers", 8, "concurrent labelers")
	traces := fs.Int("traces", 400, "traces in the database")
	queued := fs.Int("queue", 0, "queue only this many of the traces, spread evenly over them as `tracelab sample` spreads its draw, and label that queue (--queued); 0: every trace")
	hot := fs.Int("hot", 25, "edits per labeler of the one hot case")
	ttl := fs.Duration("reserve-for", app.DefaultReservationTTL, "reservation time")
	cpu := fs.String("cpuprofile", "", "a CPU profile of this process during the PostgreSQL runs (the queue and the hot case)")
	poll := fs.Duration("poll", 0, "each labeler also polls the trace they have open for others' edits this often, as the workbench's trace screen does (2s); 0: not")
	skip := fs.Int("skip", 0, "also print the rows without each labeler's first this many actions (their n and edits; in the hot run, edits), marked *: the first ones run on new connections (warmed unless -cold); 0: not")
	think := fs.Duration("think", 0, "each labeler thinks before each action for a random time (exponential, this mean), as a person does; 0: none, a saturation test")
	cold := fs.Bool("cold", false, "do not warm each labeler's engine as the workbench does when it opens (Labels.Warm): their first keys run on new connections")
	opens := fs.Bool("open", false, "each n also opens its trace as the workbench's trace screen does after it, reserving it again (Queue.Reserve), timed with the n: the wait a labeler sees for the next trace")
	ops := fs.String("ops", "", "also write every timed action to this file, a tab-separated line each (backend, run, kind, labeler, its nth action, start and duration in ms from the run's start): where the slowest wait, a diagnosis beside the rows")
	first := fs.Bool("first", false, "instead of the runs, only each labeler's first n from the top of the queue, all at once, with nothing after it: what n costs in that herd alone (a diagnosis, never the rows)")
	fs.Parse(args)
	if *first && (*think > 0 || *poll > 0 || *skip > 0) {
		return errors.New("-first times each labeler's first n alone: -think, -poll and -skip do not apply to it")
	}
	if *queued < 0 {
		return fmt.Errorf("-queue %d: give a count of traces, or 0 for every trace", *queued)
	}
	if !*lite && *pg == "" {
		return errors.New("-sqlite=false leaves nothing to run: give -pg")
	}
	dir, err := os.MkdirTemp("", "tracelab-labelers")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	corpus := filepath.Join(dir, "corpus.jsonl")
	if err := gen([]string{"-n", strconv.Itoa(*traces), "-out", corpus}); err != nil {
		return err
	}
	if *path == "" {
		*path = filepath.Join(dir, "team.db")
	}
	type target struct{ name, db string }
	var targets []target
	if *lite {
		targets = append(targets, target{"sqlite", *path})
	}
	if *pg != "" {
		targets = append(targets, target{"postgres", *pg})
	}
	of := ""
	if *queued > 0 && *queued < *traces {
		of = fmt.Sprintf(", %d of them queued", *queued)
	}
	fmt.Printf("%d labelers on %d traces%s. queue: the edits (class, correct, grounded, confirm: one engine action each)\n"+
		"while they label the queue; n: their next-in-queue takes in that run; hot: %d edits each of one case, all at once\n",
		*n, *traces, of, *hot)
	if *think > 0 {
		// Its own rows, never to be read as the saturation test's.
		fmt.Printf("think: each labeler thinks before each action, exponential with mean %v (not in the latencies)\n", *think)
	}
	if *opens {
		fmt.Println("open: each n is timed with the trace's opening after it (its reservation, Queue.Reserve), as the workbench opens it")
	}
	if *cold {
		fmt.Println("cold: each labeler's first keys run on its engine's new connections, not warmed")
	} else {
		fmt.Println("each labeler's engine is warmed as the workbench does while it opens (Labels.Warm), before the clock starts")
	}
	if *skip > 0 {
		// A diagnosis beside the rows, never instead of them.
		fmt.Printf("*: without each labeler's first %d actions, which run on its engine's new connections (a new server process, statements prepared, catalogs read), all labelers at once\n", *skip)
	}
	var opsOut *os.File
	if *ops != "" {
		if opsOut, err = os.Create(*ops); err != nil {
			return err
		}
		defer opsOut.Close()
		fmt.Fprintln(opsOut, "backend\trun\tkind\tlabeler\tnth\tstart_ms\tms")
	}
	fmt.Printf("%-9s %-6s %7s %8s %9s %9s %9s %9s\n", "backend", "load", "ops", "wall s", "ops/s", "p50 ms", "p99 ms", "max ms")
	for _, tg := range targets {
		if err := prepareQueue(tg.db, corpus, *queued); err != nil {
			return fmt.Errorf("%s: %w", tg.name, err)
		}
		if *cpu != "" && tg.name == "postgres" {
			stop, err := startCPUProfile(*cpu)
			if err != nil {
				return err
			}
			defer stop()
		}
		polls := &pollTimes{}
		var warmed []time.Duration
		warmTo := &warmed
		if *cold {
			warmTo = nil
		}
		if *first {
			_, next, err := runTeam(tg.db, *n, *ttl, warmTo, func(ctx context.Context, e *app.Engine, who string, rec func(time.Duration)) error {
				t0 := time.Now()
				_, err := e.Queue.Next(ctx, who, labelersQueue, "")
				rec(-time.Since(t0))
				return err
			})
			if err != nil {
				return fmt.Errorf("%s: %w", tg.name, err)
			}
			next.print(tg.name, "first")
			printWarmUps(tg.name, warmed)
			continue
		}
		queue, next, err := runTeam(tg.db, *n, *ttl, warmTo, func(ctx context.Context, e *app.Engine, who string, rec func(time.Duration)) error {
			open, stop := startPolling(ctx, e, who, *poll, polls)
			defer stop()
			return labelQueue(ctx, e, who, rec, open, *think, *opens)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", tg.name, err)
		}
		hotID := ""
		if hotID, err = firstTrace(tg.db); err != nil {
			return err
		}
		hotRun, _, err := runTeam(tg.db, *n, *ttl, warmTo, func(ctx context.Context, e *app.Engine, who string, rec func(time.Duration)) error {
			open, stop := startPolling(ctx, e, who, *poll, polls)
			defer stop()
			open(hotID)
			for i := 0; i < *hot; i++ {
				thinkFor(*think)
				t0 := time.Now()
				if _, err := e.Labels.SetClass(ctx, hotID, who, classOf(i)); err != nil {
					return err
				}
				rec(time.Since(t0))
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", tg.name, err)
		}
		if opsOut != nil {
			queueKinds := func(nth int) string { return []string{"n", "class", "correct", "grounded", "confirm"}[nth%5] }
			hotKind := func(int) string { return "class" }
			if err := errors.Join(queue.write(opsOut, tg.name, "queue", queueKinds), next.write(opsOut, tg.name, "queue", queueKinds),
				hotRun.write(opsOut, tg.name, "hot", hotKind)); err != nil {
				return fmt.Errorf("-ops %s: %w", *ops, err)
			}
		}
		queue.print(tg.name, "queue")
		next.print(tg.name, "n")
		hotRun.print(tg.name, "hot")
		if *skip > 0 {
			queue.from(*skip).print(tg.name, "queue*")
			next.from(*skip).print(tg.name, "n*")
			hotRun.from(*skip).print(tg.name, "hot*")
		}
		polls.wall = queue.wall + hotRun.wall
		polls.print(tg.name, "poll")
		printWarmUps(tg.name, warmed)
	}
	return nil
}

// startCPUProfile writes a CPU profile to path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func classOf(i int) *model.FailureClass {
	cs := []model.FailureClass{model.ClassEntity, model.ClassSemantic, model.ClassStructural}
	return &cs[i%len(cs)]
}

// prepareQueue imports the corpus into db (scored, as `tracelab import`
// does) and queues n of its traces, every len/n-th in import order (0:
// every trace); a database with confirmed cases is not a fresh one and
// is refused.
func prepareQueue(db, corpus string, n int) error {
	ctx := context.Background()
	e, err := app.Open(ctx, db, app.Files{})
	if err != nil {
		return err
	}
	defer e.Close()
	c, err := e.Traces.Counts(ctx, app.Filter{})
	if err != nil {
		return err
	}
	if c.ByStatus[model.StatusConfirmed] > 0 {
		return fmt.Errorf("%s holds %d confirmed cases: give an empty database", db, c.ByStatus[model.StatusConfirmed])
	}
	res, err := e.Imports.File(ctx, corpus, app.ImportOptions{Score: true})
	if err != nil {
		return err
	}
	// And what it does after (AfterImport). Left out, the database was
	// not the one the labelers of `tracelab import` get: before b75ff89
	// the first listing of the unscored traces, the first background
	// rescore's, took 2.8 s among the labelers' actions, and the rescores
	// waited for it.
	if _, err := e.Imports.AfterImport(ctx, res.ToScore, false); err != nil {
		return err
	}
	var ids []string
	q := app.Query{Limit: 1000}
	for {
		page, next, err := e.Traces.ListTraces(ctx, q)
		if err != nil {
			return err
		}
		for _, r := range page {
			ids = append(ids, r.TraceID)
		}
		if next == nil {
			break
		}
		q.After = next
	}
	if n > 0 && n < len(ids) {
		every := make([]string, n)
		for i := range every {
			every[i] = ids[i*len(ids)/n]
		}
		ids = every
	}
	return e.Queue.Set(ctx, ids)
}

func firstTrace(db string) (string, error) {
	ctx := context.Background()
	e, err := app.Open(ctx, db, app.Files{})
	if err != nil {
		return "", err
	}
	defer e.Close()
	page, _, err := e.Traces.ListTraces(ctx, app.Query{Limit: 1})
	if err != nil || len(page) == 0 {
		return "", fmt.Errorf("no trace in %s: %v", db, err)
	}
	return page[0].TraceID, nil
}

// printWarmUps prints what warming the engines took, one at a time
// before the clock started: what a labeler's workbench adds to its
// opening for it. Nothing when none was warmed.
func printWarmUps(backend string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	fmt.Printf("%-9s warm-up of each engine (once per workbench open, not in the rows above): %d engines, median %.1f ms, max %.1f ms\n",
		backend, len(ds), ms(ds[len(ds)/2]), ms(ds[len(ds)-1]))
}

// labelersQueue is the queue the labelers take their next trace from:
// the traces `tracelab sample` queued (the workbench's --queued).
var labelersQueue = app.Query{Filter: app.Filter{QueuedOnly: true}}

// labelQueue is one labeler: n, four edits, again, until the queue is
// empty, thinking before each (thinkFor). The time of n is recorded as a
// negative duration so runTeam keeps it apart from the edits; with
// reserve, it includes the trace's opening (its reservation).
func labelQueue(ctx context.Context, e *app.Engine, who string, rec func(time.Duration), open func(string), think time.Duration, reserve bool) error {
	after := ""
	for i := 0; ; i++ {
		thinkFor(think)
		t0 := time.Now()
		n, err := e.Queue.Next(ctx, who, labelersQueue, after)
		if errors.Is(err, app.ErrQueueDone) {
			return nil
		}
		if err != nil {
			return err
		}
		if reserve {
			if _, err := e.Queue.Reserve(ctx, n.TraceID, who); err != nil {
				return fmt.Errorf("opening %s: %w", n.TraceID, err)
			}
		}
		rec(-time.Since(t0))
		open(n.TraceID)
		for _, act := range []func() (app.ActionResult, error){
			func() (app.ActionResult, error) { return e.Labels.SetClass(ctx, n.TraceID, who, classOf(i)) },
			func() (app.ActionResult, error) { return e.Labels.ToggleCorrect(ctx, n.TraceID, who) },
			func() (app.ActionResult, error) { return e.Labels.ToggleGrounded(ctx, n.TraceID, who) },
			func() (app.ActionResult, error) { return e.Labels.ConfirmLabel(ctx, n.TraceID, who, true) },
		} {
			thinkFor(think)
			t0 := time.Now()
			if _, err := act(); err != nil {
				return fmt.Errorf("%s: %w", n.TraceID, err)
			}
			rec(time.Since(t0))
		}
		after = n.TraceID
	}
}

// thinkFor waits as a person between two actions: a random time,
// exponential with the given mean (so most pauses are short and a few
// long, and the labelers drift apart instead of acting in step); 0: no
// wait.
func thinkFor(mean time.Duration) {
	if mean > 0 {
		time.Sleep(time.Duration(rand.ExpFloat64() * float64(mean)))
	}
}

// startPolling runs, until stop, what the workbench's trace screen does
// every `every` while a trace is open (tui/team.go): ask for the edits
// others made since the last look and, when there are some, read the
// case and its raters again. open names the trace the labeler has open
// now. Each look's time goes to polls. every <= 0: nothing runs.
func startPolling(ctx context.Context, e *app.Engine, who string, every time.Duration, polls *pollTimes) (open func(string), stop func()) {
	if every <= 0 {
		return func(string) {}, func() {}
	}
	var mu sync.Mutex
	cur := ""
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(every)
		defer tick.Stop()
		id, since := "", int64(-1)
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			mu.Lock()
			if cur != id {
				id, since = cur, -1
			}
			mu.Unlock()
			if id == "" {
				continue
			}
			t0 := time.Now()
			evs, last, err := e.Queue.ChangesSince(ctx, id, who, since)
			if err == nil && len(evs) > 0 {
				if _, err = e.Traces.CaseForTrace(ctx, id); err == nil {
					_, err = e.Raters.Of(ctx, id)
				}
			}
			if err != nil {
				continue // the workbench shows it on the status line and polls on
			}
			since = last
			polls.add(time.Since(t0))
		}
	}()
	return func(id string) { mu.Lock(); cur = id; mu.Unlock() }, func() { close(done); <-finished }
}

// latencies are the durations of one kind of operation over a run, and
// for each which of its labeler's actions it was (0: the first; none
// for polls), whose (the labeler's number) and when it ended since the
// run began.
type latencies struct {
	ds   []time.Duration
	nth  []int
	who  []int
	end  []time.Duration
	wall time.Duration
}

// write writes a line to w for each operation (see -ops), kind naming
// the labeler's nth action.
func (l latencies) write(w io.Writer, backend, run string, kind func(nth int) string) error {
	for i, d := range l.ds {
		if _, err := fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%.2f\t%.2f\n", backend, run, kind(l.nth[i]), l.who[i], l.nth[i],
			ms(l.end[i]-d), ms(d)); err != nil {
			return err
		}
	}
	return nil
}

// from is l without each labeler's first k actions.
func (l latencies) from(k int) latencies {
	out := latencies{wall: l.wall}
	for i, d := range l.ds {
		if l.nth[i] >= k {
			out.ds = append(out.ds, d)
		}
	}
	return out
}

// pollTimes are latencies added to from many goroutines.
type pollTimes struct {
	mu sync.Mutex
	latencies
}

func (p *pollTimes) add(d time.Duration) { p.mu.Lock(); p.ds = append(p.ds, d); p.mu.Unlock() }

func (l latencies) print(backend, load string) {
	if len(l.ds) == 0 {
		return
	}
	l.ds = slices.Clone(l.ds) // sorted apart from nth
	slices.Sort(l.ds)
	pct := func(p float64) float64 { return ms(l.ds[min(len(l.ds)-1, int(p*float64(len(l.ds))))]) }
	fmt.Printf("%-9s %-6s %7d %8.2f %9.0f %9.2f %9.2f %9.2f\n", backend, load, len(l.ds), l.wall.Seconds(),
		float64(len(l.ds))/l.wall.Seconds(), pct(0.50), pct(0.99), ms(l.ds[len(l.ds)-1]))
}

// runTeam runs work for n labelers at once, each on its own engine
// (warmed first, as the workbench does while it opens, each warm-up's
// time added to warmed; nil: not warmed), and returns the edits'
// latencies and (negative records) the n's, each numbered among its
// labeler's actions.
func runTeam(db string, n int, ttl time.Duration, warmed *[]time.Duration, work func(context.Context, *app.Engine, string, func(time.Duration)) error) (latencies, latencies, error) {
	ctx := context.Background()
	engines := make([]*app.Engine, n)
	for i := range engines {
		e, err := app.Open(ctx, db, app.Files{})
		if err != nil {
			return latencies{}, latencies{}, err
		}
		e.SetReservationTTL(ttl)
		defer e.Close()
		if warmed != nil {
			// As the workbench does while it opens (tui.Run), on
			// the queue they label.
			t0 := time.Now()
			if err := e.Labels.Warm(ctx, labelersQueue); err != nil {
				return latencies{}, latencies{}, err
			}
			*warmed = append(*warmed, time.Since(t0))
		}
		engines[i] = e
	}
	var mu sync.Mutex
	var edits, nexts latencies
	errs := make(chan error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i, e := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nth := 0
			errs <- work(ctx, e, fmt.Sprintf("labeler%d", i), func(d time.Duration) {
				mu.Lock()
				l := &edits
				if d < 0 {
					l, d = &nexts, -d
				}
				l.ds, l.nth, l.who, l.end = append(l.ds, d), append(l.nth, nth), append(l.who, i), append(l.end, time.Since(start))
				nth++
				mu.Unlock()
			})
		}()
	}
	wg.Wait()
	edits.wall = time.Since(start)
	nexts.wall = edits.wall
	close(errs)
	for err := range errs {
		if err != nil {
			return edits, nexts, err
		}
	}
	return edits, nexts, nil
}
