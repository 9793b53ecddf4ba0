package app

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"sort"
	"sync"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
	"github.com/tracelab-dev/tracelab/suite"
)

// Export streams: cases.jsonl is written a page of cases at a time as
// they are read, and what report.json and suite.json need of the cases
// is tallied on the way (issue 33: export --all of 100,000 traces held
// every case, and read them all a second time for the judges, 14 s and
// 586 MB).

// exportPage is how many cases export reads, evaluates and writes at a
// time (a test pages by a few, to cross page boundaries).
var exportPage = 1000

// exportStream is one export's pass over the cases.
type exportStream struct {
	e    *Engine
	opts ExportOptions
	keep map[string]bool // with ExposeOnly: the cases it keeps
	// raters are the labels --labels all adds, by case id.
	raters map[string]TraceRaters
	judges map[string][]store.JudgeMark // the judges' labels, by case id

	acc      scoring.ReportAccumulator
	cases    int
	casesSHA string
	// contracts are the (server, fingerprint) pairs the written cases'
	// contracts blocks name, with the tool names naming them.
	contracts map[[2]string]map[string]bool
	judged    map[string]*judgeTally
}

type judgeTally struct {
	n               int
	models, prompts map[string]bool
}

func (e *Engine) newExportStream(ctx context.Context, opts ExportOptions) (*exportStream, error) {
	x := &exportStream{e: e, opts: opts, contracts: map[[2]string]map[string]bool{}, judged: map[string]*judgeTally{}}
	var err error
	if x.judges, err = e.st.JudgeMarks(ctx); err != nil {
		return nil, err
	}
	if opts.AllLabels {
		trs, err := e.Raters.RatedCases(ctx)
		if err != nil {
			return nil, err
		}
		x.raters = make(map[string]TraceRaters, len(trs))
		for _, tr := range trs {
			x.raters[tr.CaseID] = tr
		}
	}
	return x, nil
}

// exportReaders is how many ranges of the cases export reads at once,
// each on a connection of its own: reading is most of an export (at
// 100,000 cases on SQLite, 2.0 s of 2.2), and a machine has a core for
// each reader and one for the writer (issue 33's export --all row).
var exportReaders = 2

// eachPage calls fn with every page of the cases in case_id order. The
// cases are cut into ranges of a page each, and exportReaders ranges are
// read at once while fn writes the first of them; each range's pages
// wait their turn, so a few pages are held ahead, never every case.
func (x *exportStream) eachPage(ctx context.Context, fn func([]store.CaseRecord) error) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	ranges := make(chan chan casePage, exportReaders) // each range's pages, in order
	wg.Go(func() { x.cutRanges(ctx, &wg, ranges) })
	for pages := range ranges {
		for p := range pages {
			if p.err != nil {
				return p.err
			}
			if len(p.recs) > 0 {
				if err := fn(p.recs); err != nil {
					return err
				}
			}
		}
	}
	return ctx.Err() // a range ended early only if ctx was cancelled
}

// cutRanges cuts the cases into ranges of a page (CaseAfterN, a walk of
// the index that reads no case), starts a reader for each, exportReaders
// at most at once, and sends each range's pages to ranges in order.
func (x *exportStream) cutRanges(ctx context.Context, wg *sync.WaitGroup, ranges chan<- chan casePage) {
	defer close(ranges)
	readers := make(chan struct{}, exportReaders)
	after := ""
	for {
		// Only an export of every case is cut: a cut walks every case
		// it passes, and an export of the confirmed ones, read in one
		// range, walks them once (at 1,000,000 cases, 10,000 confirmed,
		// cut ranges took it from 0.76 s to 1.14 s).
		var upto string
		var more bool
		var err error
		if x.opts.All {
			upto, more, err = x.e.st.CaseAfterN(ctx, after, exportPage)
		}
		select {
		case readers <- struct{}{}:
		case <-ctx.Done():
			return
		}
		pages := make(chan casePage, 1)
		select {
		case ranges <- pages:
		case <-ctx.Done():
			return
		}
		if err != nil {
			pages <- casePage{err: err} // buffered: the writer takes it
			close(pages)
			return
		}
		if !more {
			upto = "" // the last range: all that follows, whatever came since
		}
		lo := after
		wg.Go(func() {
			defer func() { <-readers }()
			x.readRange(ctx, lo, upto, pages)
		})
		if !more {
			return
		}
		after = upto
	}
}

// casePage is a page of cases as a reader hands it to the writer.
type casePage struct {
	recs []store.CaseRecord
	err  error
}

// readRange sends the cases after after, to upto included ("" for no
// end), a page at a time, and closes pages. A range is one page unless
// cases were added to it since it was cut.
func (x *exportStream) readRange(ctx context.Context, after, upto string, pages chan<- casePage) {
	defer close(pages)
	for {
		recs, err := x.e.st.CasesUpTo(ctx, x.opts.All, after, upto, exportPage)
		if err == nil {
			err = inOrder(recs, &after)
		}
		select {
		case pages <- casePage{recs, err}:
		case <-ctx.Done():
			return
		}
		if err != nil || len(recs) < exportPage || after == upto {
			return
		}
	}
}

// inOrder checks that recs follow after and each other bytewise by
// case_id, and moves after to the last: cases.jsonl is sorted so, and a
// backend that sorted otherwise would write a suite in another order.
func inOrder(recs []store.CaseRecord, after *string) error {
	for _, r := range recs {
		if r.Case.CaseID <= *after {
			return fmt.Errorf("export: the database listed case %q after %q, not in byte order", r.Case.CaseID, *after)
		}
		*after = r.Case.CaseID
	}
	return nil
}

// exposeOnly runs suite.ExposeOnly over every case (a first pass reading
// only what it groups by), keeping its verdict for the pass that writes.
func (x *exportStream) exposeOnly(ctx context.Context, res *ExportResult) error {
	var light []store.CaseRecord
	err := x.eachPage(ctx, func(recs []store.CaseRecord) error {
		for _, r := range recs {
			light = append(light, store.CaseRecord{Case: model.Case{CaseID: r.Case.CaseID, Question: r.Case.Question, Label: r.Case.Label}})
		}
		return nil
	})
	if err != nil {
		return err
	}
	res.Considered = len(light)
	var kept []store.CaseRecord
	kept, res.Dropped = suite.ExposeOnly(light)
	x.keep = make(map[string]bool, len(kept))
	for _, r := range kept {
		x.keep[r.Case.CaseID] = true
	}
	return nil
}

// writeCases writes cases.jsonl to w, page by page, and tallies the
// report and the manifest's contracts and judges over what it wrote.
func (x *exportStream) writeCases(ctx context.Context, w io.Writer, considered *int) error {
	sum := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, sum), 1<<16)
	lines := model.NewCaseLines() // MarshalLine's lines, each distinct gold and label encoded once
	var line []byte
	err := x.eachPage(ctx, func(recs []store.CaseRecord) error {
		if x.keep == nil {
			*considered += len(recs)
		} else {
			recs = x.kept(recs)
		}
		if err := x.e.withScoredGold(ctx, recs); err != nil { // numbers.go
			return err
		}
		addReportRows(&x.acc, recs) // export.go
		for i := range recs {
			c := &recs[i].Case
			if tr, ok := x.raters[c.CaseID]; ok {
				c.Labels, c.Adjudication = tr.Labels, tr.Adjudication
			}
			gold, label := recs[i].StoredJSON()
			var err error
			if line, err = lines.Append(line[:0], c, gold, label); err != nil {
				return err
			}
			if _, err := bw.Write(line); err != nil {
				return err
			}
			x.tally(&recs[i])
		}
		x.cases += len(recs)
		return nil
	})
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	x.casesSHA = hexSum(sum)
	return nil
}

func (x *exportStream) kept(recs []store.CaseRecord) []store.CaseRecord {
	out := recs[:0]
	for _, r := range recs {
		if x.keep[r.Case.CaseID] {
			out = append(out, r)
		}
	}
	return out
}

// tally notes what suite.json needs of a written case: the contracts its
// trace saw, and the judges that labeled it.
func (x *exportStream) tally(r *store.CaseRecord) {
	if r.TraceID != "" {
		for name, fp := range r.Case.Contracts {
			k := [2]string{r.Case.Server, fp}
			if x.contracts[k] == nil {
				x.contracts[k] = map[string]bool{}
			}
			x.contracts[k][name] = true
		}
	}
	for _, m := range x.judges[r.Case.CaseID] {
		a := x.judged[m.Rater]
		if a == nil {
			a = &judgeTally{models: map[string]bool{}, prompts: map[string]bool{}}
			x.judged[m.Rater] = a
		}
		a.n++
		if m.Model != "" {
			a.models[m.Model] = true
		}
		if m.PromptSHA256 != "" {
			a.prompts[m.PromptSHA256] = true
		}
	}
}

// manifestJudges lists the judges that labeled the written cases.
func (x *exportStream) manifestJudges() []ManifestJudge {
	out := make([]ManifestJudge, 0, len(x.judged))
	for r, a := range x.judged {
		out = append(out, ManifestJudge{Rater: r, Models: sortedSet(a.models), Prompts: sortedSet(a.prompts), Labels: a.n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rater < out[j].Rater })
	return out
}

// writeReport writes report.json from the tally and returns its sha256.
func writeReport(f *os.File, reports []model.Report) (string, error) {
	sum := sha256.New()
	if err := model.WriteReportJSON(io.MultiWriter(f, sum), reports); err != nil {
		return "", err
	}
	return hexSum(sum), nil
}

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
