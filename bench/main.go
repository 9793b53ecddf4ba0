// Command bench measures tracelab at 100,000 traces: it writes the
// generated corpus, times a floor (a plain insert of the same rows in one
// transaction, modernc sqlite), and times the engine operations the
// workbench waits on. bench/run.sh drives it together with the tracelab
// binary; every figure is printed with its time, peak RSS and, for
// imports, the ratio to the floor so a noisy machine still compares.
//
//	go run ./bench gen -n 100000 -out corpus.jsonl -cases cases.jsonl
//	go run ./bench floor -in corpus.jsonl -db floor.db
//	go run ./bench ops -db scored.db
//	go run ./bench labelers -pg postgres://…   (labelers.go)
//	go run ./bench profile -db scored.db -op score -lexicon lex.txt -cpuprofile cpu.pprof
//	go run ./bench search -db scored.db   (search.go)
//	N=20000 bench/pg.sh   (import, report, export on SQLite and PostgreSQL, side by side)
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	_ "modernc.org/sqlite"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bench gen|floor|ops|labelers|profile|search [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "floor":
		err = floor(os.Args[2:])
	case "ops":
		err = ops(os.Args[2:])
	case "labelers":
		err = labelers(os.Args[2:])
	case "profile":
		err = profile(os.Args[2:])
	case "search":
		err = search(os.Args[2:]) // search.go
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// peakRSS is the process's high-water resident set (VmHWM) in MiB.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}

// gen writes n traces of 10 steps (the shape of importers' BenchmarkImport:
// list_tables, describe_table, a guess, run_sql, answer) spread over
// three servers and questions of about 10 traces each; -shared K makes the
// first K traces ask one question. Every SQL statement is distinct (its
// last literal is the trace number), as real agents rarely repeat a
// statement byte for byte; a corpus that did would let the exact-text
// parse cache hide the parser's cost. -cases writes a confirmed case with
// human gold for every 100th trace, so suggestions have grounded peers.
func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	n := fs.Int("n", 100000, "traces")
	start := fs.Int("start", 0, "first trace number (to generate new traces for an existing corpus)")
	out := fs.String("out", "corpus.jsonl", "trace file")
	casesOut := fs.String("cases", "", "cases.jsonl to write (every 100th trace)")
	shared := fs.Int("shared", 0, "how many of the first traces share one question")
	fs.Parse(args)
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var cw *bufio.Writer
	if *casesOut != "" {
		cf, err := os.Create(*casesOut)
		if err != nil {
			return err
		}
		defer cf.Close()
		cw = bufio.NewWriter(cf)
		defer cw.Flush()
	}
	servers := []string{"generic-warehouse", "billing-tools", "crm-tools"}
	for i := *start; i < *start+*n; i++ {
		q := fmt.Sprintf("How many active customers did we have in region %d segment %d last quarter?", i%7, (i/3)%3000)
		if i < *shared {
			q = "How many active customers did we have in EMEA last quarter?"
		}
		srv := servers[i%3]
		fmt.Fprintf(w, `{"trace_id":"trace_%07d","server":"%s","run_id":"r%d","user_role":"finance_analyst","as_user":"fin.analyst.%02d","question":%q,"started_at":"2026-07-03T09:12:00Z","outcome":"pass","tools":[{"name":"run_sql","description":"Run a read-only SQL query against the warehouse","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}}],"steps":[`, i, srv, i%4, i%50, q)
		fmt.Fprintf(w, `{"kind":"user","text":%q},`, q)
		fmt.Fprint(w, `{"kind":"tool_call","id":"c1","tool":"list_tables","args":{}},{"kind":"tool_result","call_id":"c1","result":{"tables":["customers","subscriptions","orders"]}},`)
		fmt.Fprint(w, `{"kind":"tool_call","id":"c2","tool":"describe_table","args":{"table":"customers"}},{"kind":"tool_result","call_id":"c2","result":{"table":"customers","columns":[{"name":"id","type":"bigint"},{"name":"is_active","type":"boolean"},{"name":"region_code","type":"text"},{"name":"subscription_status","type":"text"}]}},`)
		fmt.Fprint(w, `{"kind":"reasoning","text":"is_active sounds like the right flag. region_code probably starts with EU for EMEA."},`)
		col := "is_active = true"
		if i%2 == 0 {
			col = "subscription_status IN ('ACTIVE', 'PAUSED_BILLING')"
		}
		fmt.Fprintf(w, `{"kind":"tool_call","id":"c3","tool":"run_sql","args":{"sql":"SELECT COUNT(*) FROM customers c JOIN subscriptions s ON s.customer_id = c.id WHERE %s AND c.region_code LIKE 'EU%%' AND s.created_at < '2026-07-01' AND c.id > %d"},"credential":"svc-warehouse"},`, col, i)
		fmt.Fprintf(w, `{"kind":"tool_result","call_id":"c3","result":{"columns":["count"],"rows":[[%d]]},"as_of":"2026-07-03T08:00:00Z"},`, 1000+i%500)
		fmt.Fprint(w, `{"kind":"reasoning","text":"The count looks right."},`)
		fmt.Fprintf(w, `{"kind":"answer","text":"%d"}],"usage":{"input_tokens":41210,"output_tokens":1880,"usd":0.0912}}`+"\n", 1000+i%500)
		if cw != nil && i%100 == 0 {
			c := model.Case{CaseID: fmt.Sprintf("case_%07d", i), SourceTrace: fmt.Sprintf("trace_%07d", i),
				UserRole: "finance_analyst", AsUser: fmt.Sprintf("fin.analyst.%02d", i%50), Question: q,
				Gold: model.Gold{Answer: json.RawMessage(fmt.Sprint(1000 + i%500)),
					RequiredFields:  []string{"customers.subscription_status", "customers.region_code"},
					ForbiddenFields: []string{"customers.is_active"}, Definition: "subscription_status in (ACTIVE, PAUSED_BILLING)"}}
			t, g := true, i%2 == 0
			c.Label.Correct, c.Label.Grounded = &t, &g
			line, err := model.MarshalLine(c)
			if err != nil {
				return err
			}
			cw.Write(line)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// floor inserts the corpus's traces and steps with single-row prepared
// statements in one transaction: what any import must at least pay.
func floor(args []string) error {
	fs := flag.NewFlagSet("floor", flag.ExitOnError)
	in := fs.String("in", "corpus.jsonl", "trace file")
	path := fs.String("db", "floor.db", "database to create")
	pageSize := fs.Int("page-size", 0, "page size of the new file (0: SQLite's default, 4096; tracelab makes its files with 16384)")
	fs.Parse(args)
	os.Remove(*path)
	start := time.Now()
	db, err := sql.Open("sqlite", "file:"+*path+"?_pragma=synchronous(NORMAL)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // the pragmas below hold for the one connection
	if *pageSize > 0 {
		// Before WAL, which writes the file's first page and so fixes its size.
		if _, err := db.Exec(fmt.Sprintf(`PRAGMA page_size = %d`, *pageSize)); err != nil {
			return err
		}
	}
	if _, err := db.Exec(`PRAGMA journal_mode = WAL`); err != nil {
		return err
	}
	if _, err := db.Exec(`CREATE TABLE traces (id INTEGER PRIMARY KEY, trace_id TEXT NOT NULL UNIQUE, server TEXT, question TEXT, answer TEXT, usd REAL);
		CREATE TABLE steps (trace_pk INTEGER NOT NULL, idx INTEGER NOT NULL, kind TEXT, call_id TEXT, text TEXT, tool TEXT, args TEXT, result TEXT, as_of TEXT);
		CREATE UNIQUE INDEX steps_order ON steps(trace_pk, idx)`); err != nil {
		return err
	}
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	defer f.Close()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	insT, _ := tx.Prepare(`INSERT INTO traces (trace_id, server, question, answer, usd) VALUES (?, ?, ?, ?, ?) RETURNING id`)
	insS, _ := tx.Prepare(`INSERT INTO steps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30) // a line up to 1 GiB: bench/bigrecord.sh times one 100 MB record
	steps := 0
	for sc.Scan() {
		var t model.Trace
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return err
		}
		var pk int64
		if err := insT.QueryRow(t.TraceID, t.Server, t.Question, t.FinalAnswer(), t.Usage.USD).Scan(&pk); err != nil {
			return err
		}
		for i, s := range t.Steps {
			if _, err := insS.Exec(pk, i, string(s.Kind), s.CallID, s.Text, s.Tool, nullable(s.Args), nullable(s.Result), s.AsOf); err != nil {
				return err
			}
			steps++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	d := time.Since(start)
	fmt.Printf("floor: %d steps in %.2fs (%.0f steps/s), peak RSS %.0f MiB\n", steps, d.Seconds(), float64(steps)/d.Seconds(), peakRSS())
	return nil
}

func nullable(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return string(raw)
}

// ops times what the workbench waits on, over an imported and scored
// database: opening a trace (trace, case, score and gold suggestion),
// the queue's header counts and a filter, a gold edit with its rescore,
// and the report (`R`).
func ops(args []string) error {
	fs := flag.NewFlagSet("ops", flag.ExitOnError)
	path := fs.String("db", "tracelab.db", "scored database")
	reps := fs.Int("n", 15, "repetitions of each timed operation")
	report := fs.Bool("report", true, "also time the report (R), 3 times")
	accept := fs.String("accept", "", "also time `a` on traces whose question contains this (one shared by many, e.g. \"EMEA last quarter\"), then the background rescore of their peers")
	settle := fs.Bool("settle", false, "with -accept: let the background rescore finish before each timed `a`")
	cpu := fs.String("cpuprofile", "", "with -accept: a CPU profile of the timed `a` repetitions (and the background rescore between them)")
	dropFlag := fs.Bool("drop-cache", false, "also time the first rows and the report with the database's pages evicted from the OS page cache before each run (Linux)")
	fs.Parse(args)
	drop := *dropFlag
	ctx := context.Background()
	// The first rows come first: a fresh engine on a database no engine
	// of this process has read yet.
	if err := timeFirstRows(ctx, *path, *reps, drop); err != nil {
		return err
	}
	e, err := app.Open(ctx, *path, app.Files{})
	if err != nil {
		return err
	}
	defer e.Close()
	page, _, err := e.Traces.ListTraces(ctx, app.Query{Limit: 2000})
	if err != nil {
		return err
	}
	if len(page) < *reps {
		return fmt.Errorf("%s holds %d traces; need %d", *path, len(page), *reps)
	}
	pick := func(i int) app.TraceSummary { return page[(i*131+7)%len(page)] }
	var prep func() error // run untimed before each repetition
	timeIt := func(name string, fn func(i int) error) error {
		ds := make([]time.Duration, *reps)
		cs := make([]time.Duration, *reps)
		for i := range ds {
			if prep != nil {
				if err := prep(); err != nil {
					return err
				}
			}
			t0, c0 := time.Now(), cpuTime()
			if err := fn(i); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			ds[i], cs[i] = time.Since(t0), cpuTime()-c0
		}
		printRow(name, ds, cs)
		return nil
	}
	if err := timeIt("open trace", func(i int) error {
		id := pick(i).TraceID
		if _, err := e.Traces.Trace(ctx, id); err != nil {
			return err
		}
		if _, err := e.Traces.CaseForTrace(ctx, id); err != nil {
			return err
		}
		_, err := e.Scores.Of(ctx, id)
		return err
	}); err != nil {
		return err
	}
	if err := timeIt("header counts", func(int) error { _, err := e.Traces.Counts(ctx, app.Filter{}); return err }); err != nil {
		return err
	}
	// The queue's `/`: the first page under a search (what shows first),
	// for a word every trace holds, a phrase a few hundred questions
	// hold, and a text no trace holds (each part of the search reads its
	// index to the end).
	for _, sq := range []struct{ name, text string }{
		{"search page (common word)", "is_active"},
		{"search page (rare phrase)", `"segment 2999"`},
		{"search page (no match)", "nowhere_at_all"},
	} {
		if err := timeIt(sq.name, func(int) error {
			_, _, err := e.Traces.ListTraces(ctx, app.Query{Filter: app.Filter{Search: sq.text}, Limit: firstPage})
			return err
		}); err != nil {
			return err
		}
	}
	classes := []string{"semantic", "none", "structural"}
	if err := timeIt("filter apply (class)", func(i int) error {
		f := app.Filter{Classes: []string{classes[i%len(classes)]}}
		if _, _, err := e.Traces.ListTraces(ctx, app.Query{Filter: f}); err != nil {
			return err
		}
		_, err := e.Traces.Counts(ctx, f)
		return err
	}); err != nil {
		return err
	}
	if err := timeIt("filter apply (status)", func(i int) error {
		f := app.Filter{Statuses: []model.Status{model.StatusConfirmed}}
		if _, _, err := e.Traces.ListTraces(ctx, app.Query{Filter: f}); err != nil {
			return err
		}
		_, err := e.Traces.Counts(ctx, f)
		return err
	}); err != nil {
		return err
	}
	fields := [][]string{{"customers.subscription_status"}, {"customers.region_code", "customers.subscription_status"}}
	if err := timeIt("gold edit (+rescore)", func(i int) error {
		v, _ := json.Marshal(fields[i%2])
		_, err := e.Labels.EditFields(ctx, pick(i+1000).TraceID, "bench", app.FieldEdit{Field: "gold.required_fields", Value: v})
		return err
	}); err != nil {
		return err
	}
	if *accept != "" {
		shared, _, err := e.Traces.ListTraces(ctx, app.Query{Filter: app.Filter{Search: *accept}, Limit: 2000})
		if err != nil {
			return err
		}
		var takers []string // traces whose gold is not a person's yet
		for _, t := range shared {
			if cr, err := e.Traces.CaseForTrace(ctx, t.TraceID); err != nil {
				return err
			} else if cr == nil || cr.GoldOrigin != "human" {
				takers = append(takers, t.TraceID)
			}
		}
		if len(takers) < *reps {
			return fmt.Errorf("%d traces without a person's gold ask %q; need %d", len(takers), *accept, *reps)
		}
		if *settle {
			prep = func() error { return e.WaitIdle(ctx) }
		}
		if *cpu != "" {
			// The background rescore runs in the profile too: read the
			// accept's share with pprof -focus AcceptSuggestion.
			prof, err := os.Create(*cpu)
			if err != nil {
				return err
			}
			defer prof.Close()
			if err := pprof.StartCPUProfile(prof); err != nil {
				return err
			}
		}
		err = timeIt("accept (a), shared question", func(i int) error {
			_, err := e.Labels.AcceptSuggestion(ctx, takers[i], "bench")
			return err
		})
		if *cpu != "" {
			pprof.StopCPUProfile()
		}
		if err != nil {
			return err
		}
		t0 := time.Now()
		if err := e.WaitIdle(ctx); err != nil {
			return err
		}
		fmt.Printf("%-28s %7.1f s after the last accept\n", "background rescore", time.Since(t0).Seconds())
	}
	if !*report {
		return nil
	}
	*reps = 3
	if err := timeIt("report (R)", func(int) error { _, err := e.Suite.Report(ctx, false); return err }); err != nil {
		return err
	}
	// The first R of a session: a fresh engine (and, with -drop-cache, a
	// database the OS has no page of).
	name := "report (R), fresh engine"
	if drop {
		name = "report (R), cold file"
	}
	return timeIt(name, func(int) error {
		if drop {
			if err := dropCache(*path); err != nil {
				return err
			}
		}
		fe, err := app.Open(ctx, *path, app.Files{})
		if err != nil {
			return err
		}
		defer fe.Close()
		_, _, err = fe.Suite.ReportWithLabels(ctx, false)
		return err
	})
}

// firstPage is the workbench's queue page (tui.Options.PageSize's default).
const firstPage = 200

// timeFirstRows times what the workbench does from process start to its
// first queue page with the header counts (cli's runTUI, then tui's
// Init): open a fresh engine on the database, score what has no score,
// then, at once as Bubble Tea runs Init's commands, the first page, the
// header counts and the store's change mark (the watch's first look).
// "first rows" is the time to the page and the counts both; the OS page
// cache is warm (this process or another read the file before) unless
// drop evicts the database's pages first.
func timeFirstRows(ctx context.Context, path string, reps int, drop bool) error {
	run := func(name string, evict bool) error {
		ds := make([]time.Duration, reps)
		cs := make([]time.Duration, reps)
		for i := range ds {
			if evict {
				if err := dropCache(path); err != nil {
					return err
				}
			}
			t0, c0 := time.Now(), cpuTime()
			e, err := app.Open(ctx, path, app.Files{})
			if err != nil {
				return err
			}
			if _, err := e.Scores.ScoreUnscored(ctx, nil, nil); err != nil {
				e.Close()
				return err
			}
			errs := make(chan error, 3)
			go func() { _, _, err := e.Traces.ListTraces(ctx, app.Query{Limit: firstPage}); errs <- err }()
			go func() { _, err := e.Traces.Counts(ctx, app.Filter{}); errs <- err }()
			mark := make(chan error, 1)
			go func() { _, err := e.Traces.ChangeMark(ctx); mark <- err }()
			for range 2 {
				if err == nil {
					err = <-errs
				} else {
					<-errs
				}
			}
			ds[i], cs[i] = time.Since(t0), cpuTime()-c0
			if merr := <-mark; err == nil {
				err = merr
			}
			e.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		printRow(name, ds, cs)
		return nil
	}
	if err := run("first rows (fresh engine)", false); err != nil {
		return err
	}
	if drop {
		return run("first rows (cold file)", true)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// printRow prints one timed row: the median and the greatest wall time,
// and the median CPU time the process spent meanwhile (every goroutine's,
// user and system), which a machine shared with other work inflates far
// less than the wall time.
func printRow(name string, wall, cpu []time.Duration) {
	sort.Slice(wall, func(i, j int) bool { return wall[i] < wall[j] })
	sort.Slice(cpu, func(i, j int) bool { return cpu[i] < cpu[j] })
	fmt.Printf("%-28s median %7.1f ms  max %7.1f ms  cpu %7.1f ms  peak RSS %4.0f MiB\n", name,
		ms(wall[len(wall)/2]), ms(wall[len(wall)-1]), ms(cpu[len(cpu)/2]), peakRSS())
}

// profile runs one engine operation over a database under the CPU
// profiler (and writes a heap profile after it), so where the time of a
// row of bench/run.sh goes can be read with `go tool pprof`.
func profile(args []string) error {
	fs := flag.NewFlagSet("profile", flag.ExitOnError)
	path := fs.String("db", "tracelab.db", "database")
	op := fs.String("op", "score", "score (what is stale) | report | report-all | import")
	lexicon := fs.String("lexicon", "", "a --lexicon file (changes the configuration)")
	in := fs.String("in", "", "file to import (op import)")
	cpu := fs.String("cpuprofile", "cpu.pprof", "CPU profile to write")
	mem := fs.String("memprofile", "", "heap profile to write after the operation")
	maxRecord := fs.Int64("max-record", 0, "bytes one record may take (op import; 0 is the default cap)")
	fs.Parse(args)
	ctx := context.Background()
	e, err := app.Open(ctx, *path, app.Files{Lexicon: *lexicon})
	if err != nil {
		return err
	}
	defer e.Close()
	f, err := os.Create(*cpu)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	start := time.Now()
	switch *op {
	case "score":
		_, err = e.Scores.ScoreStale(ctx, nil)
	case "report":
		_, err = e.Suite.Report(ctx, false)
	case "report-all":
		_, err = e.Suite.Report(ctx, true)
	case "export-all":
		_, err = e.Suite.Export(ctx, app.ExportOptions{Dir: *cpu + ".export", All: true})
	case "import":
		var res app.ImportResult
		if res, err = e.Imports.File(ctx, *in, app.ImportOptions{Score: true, MaxRecord: *maxRecord}); err == nil {
			_, err = e.Imports.AfterImport(ctx, res.ToScore, false)
		}
	default:
		err = fmt.Errorf("unknown -op %q", *op)
	}
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	fmt.Printf("%s: %.2fs, peak RSS %.0f MiB\n", *op, time.Since(start).Seconds(), peakRSS())
	if *mem != "" {
		mf, err := os.Create(*mem)
		if err != nil {
			return err
		}
		defer mf.Close()
		return pprof.WriteHeapProfile(mf)
	}
	return nil
}
