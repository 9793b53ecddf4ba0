package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
	"github.com/tracelab-dev/tracelab/suite"
)

// ErrBadInput marks a check that could not run on its input (see suite.ErrBadInput).
var ErrBadInput = suite.ErrBadInput

func badInput(format string, args ...any) error { return suite.BadInput(format, args...) }

// CheckReport is the whole answer of a check: per case, the summary, and
// the new run's report.json.
type CheckReport struct {
	Cases   []suite.CaseCheck  `json:"cases"`
	Summary suite.CheckSummary `json:"summary"`
	Report  []model.Report     `json:"-"`
	// UnmatchedTraces names the new traces that matched no case (at most 20).
	UnmatchedTraces []string `json:"unmatched_traces,omitempty"`
	// Warnings: the scoring files a flag overrode, a suite changed since export.
	Warnings []string `json:"warnings,omitempty"`
	// Contracts are the tools whose contract changed under the suite's
	// cases, with the drift findings (gate_contracts.go).
	Contracts []ContractDrift `json:"contracts,omitempty"`
	// JudgeGate is the verdict of --min-judge-kappa (judgegate.go).
	JudgeGate *JudgeGate     `json:"judge_gate,omitempty"`
	seen      *contractsSeen // what the new traces saw, for the contract gate
}

// CheckInput names what `tracelab check` reads.
type CheckInput struct {
	Suite  string   // cases.jsonl
	Traces []string // new trace files, any supported format; "-" reads Stdin
	Stdin  io.Reader
	// Files names policy, lineage, lexicon, glossary; what is not given
	// comes from the suite's suite.json when it has one (SuiteFiles).
	Files Files
	// InputFormat forces the new traces' format ("" detects it).
	InputFormat string
	// Server and AsUser tag the new traces that do not say theirs.
	Server, AsUser string
	Gate           suite.Gate
	// MinJudgeKappa, when set, gates on the suite's judges agreeing with
	// its people at least this much (judgegate.go).
	MinJudgeKappa *float64
	// TempDir is where the temporary database goes ("" for the system's).
	TempDir string
}

// RunCheck imports the new traces into a temporary database (removed
// afterwards; no other database is opened), matches each to its suite
// case, scores it against the case's gold and returns the verdicts.
func RunCheck(ctx context.Context, in CheckInput) (CheckReport, error) {
	cases, err := ReadSuite(ctx, in.Suite)
	if err != nil {
		return CheckReport{}, err
	}
	files, warns, err := SuiteFiles(in.Suite, in.Files)
	if err != nil {
		return CheckReport{}, err
	}
	opts := ImportOptions{Format: in.InputFormat, Defaults: Defaults{Server: in.Server, AsUser: in.AsUser}}
	if len(in.Traces) == 0 {
		return CheckReport{}, badInput("no new trace files given")
	}
	dir, err := os.MkdirTemp(in.TempDir, "tracelab-check-*")
	if err != nil {
		return CheckReport{}, err
	}
	defer os.RemoveAll(dir)
	st, err := store.OpenScratch(ctx, filepath.Join(dir, "check.db"))
	if err != nil {
		return CheckReport{}, err
	}
	defer st.Close()
	stdinUsed := false
	for _, f := range in.Traces {
		var res ImportResult
		if f == "-" {
			if stdinUsed || in.Stdin == nil {
				return CheckReport{}, badInput("standard input (-) can be given once")
			}
			stdinUsed = true
			res, err = importInto(ctx, st, nil, in.Stdin, "stdin", opts)
		} else {
			res, err = importFile(ctx, st, nil, f, opts)
		}
		if err != nil {
			var msgs []string
			for i, b := range res.Bad {
				if i == 5 {
					msgs = append(msgs, fmt.Sprintf("and %d more", len(res.Bad)-5))
					break
				}
				msgs = append(msgs, b.Error())
			}
			if len(msgs) > 0 {
				return CheckReport{}, badInput("%s\n%v", strings.Join(msgs, "\n"), err)
			}
			if errors.Is(err, context.Canceled) {
				return CheckReport{}, err
			}
			return CheckReport{}, badInput("%v", err)
		}
		if res.Format == "cases" {
			return CheckReport{}, badInput("%s is a cases.jsonl suite, not traces: give it with --suite", f)
		}
	}
	cfg, err := loadConfig(ctx, st, files)
	if err != nil {
		return CheckReport{}, badInput("%v", err)
	}
	rep, err := checkCases(ctx, st, cfg, cases)
	if err != nil {
		return rep, err
	}
	rep.Warnings = warns
	sc, err := readSuiteContracts(in.Suite)
	if err != nil {
		return rep, err
	}
	if rep.Contracts, err = contractGate(cases, &rep, rep.seen, sc); err != nil {
		return rep, err
	}
	for _, d := range rep.Contracts {
		rep.Summary.ContractsChanged++
		if d.Blocking {
			rep.Summary.ContractsBlocking++
		}
	}
	if in.MinJudgeKappa != nil {
		m, err := ReadSuiteManifest(filepath.Dir(in.Suite))
		if err != nil {
			return rep, err
		}
		g := judgeGate(*in.MinJudgeKappa, in.Suite, SuiteJudgeCalibrations(cases), m)
		rep.JudgeGate = &g
		rep.Summary.JudgeKappaFailed = g.Reason
		if len(g.Judges) == 0 && !g.Failed {
			rep.Warnings = append(rep.Warnings, "--min-judge-kappa: no judge labeled this suite's cases, so there is no judge to gate on")
		}
	}
	rep.Summary.Coverage = in.Gate.Judge(rep.Summary)
	rep.Summary.Failed = rep.Summary.Failed || rep.Summary.Coverage.Failed || rep.Summary.ContractsBlocking > 0 ||
		rep.Summary.JudgeKappaFailed != ""
	return rep, nil
}

// ReadSuite reads a cases.jsonl suite; a bad line or a duplicate case_id
// is bad input naming file:line.
func ReadSuite(ctx context.Context, path string) ([]model.Case, error) {
	if path == "" {
		return nil, badInput("--suite cases.jsonl is required")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, badInput("%v", err)
	}
	defer f.Close()
	var cases []model.Case
	var bad []string
	seen := map[string]int{}
	_, err = importers.Parse(ctx, f, path, "cases", func(r importers.Record) error {
		switch {
		case r.Err != nil:
			bad = append(bad, r.Err.Error())
		case r.Case != nil:
			if first, dup := seen[r.Case.CaseID]; dup {
				bad = append(bad, fmt.Sprintf("%s:%d: case_id: %q already used on line %d", path, r.Line, r.Case.CaseID, first))
				return nil
			}
			seen[r.Case.CaseID] = r.Line
			cases = append(cases, *r.Case)
		}
		return nil
	})
	if err != nil {
		return nil, badInput("%v", err)
	}
	if len(bad) > 0 {
		if len(bad) > 5 {
			bad = append(bad[:5], fmt.Sprintf("and %d more", len(bad)-5))
		}
		return nil, badInput("%s", strings.Join(bad, "\n"))
	}
	if len(cases) == 0 {
		return nil, badInput("%s holds no cases", path)
	}
	return cases, nil
}

// matchKey is how a trace without metadata.case_id finds its case, with
// the server (matchByQuestion).
type matchKey struct{ question, asUser string }

func keyOf(question, asUser string) matchKey {
	return matchKey{strings.TrimSpace(question), strings.TrimSpace(asUser)}
}

// pairing is one new trace scored against one case.
type pairing struct {
	caseIdx int
	score   scoring.TraceScore
	byID    bool    // matched through metadata.case_id
	answer  string  // the trace's final answer, for the reason text
	seconds float64 // its share of its batch's scoring time
}

// checkCases scores every trace in st against the suite case it belongs to: the
// case named by its metadata.case_id, else the cases with the identical
// question and as_user of the trace's server (matchByQuestion). It writes
// nothing.
func checkCases(ctx context.Context, st *store.Store, cfg scoring.Config, cases []model.Case) (CheckReport, error) {
	sc, err := scoring.NewScorer(cfg)
	if err != nil {
		return CheckReport{}, err
	}
	byID := make(map[string]int, len(cases))
	byKey := make(map[matchKey][]int, len(cases))
	for i := range cases {
		byID[cases[i].CaseID] = i
		k := keyOf(cases[i].Question, cases[i].AsUser)
		byKey[k] = append(byKey[k], i)
	}
	ids, err := st.TraceIDs(ctx, store.Filter{})
	if err != nil {
		return CheckReport{}, err
	}
	rep := CheckReport{Summary: suite.CheckSummary{Traces: len(ids)}, seen: newContractsSeen()}
	var pairs []pairing
	err = eachBatchAhead(ctx, st, ids, func(ts []*model.Trace) error {
		var jobs []scoring.Job
		var idx []int
		var viaID []bool
		var answers []string
		for _, t := range ts {
			var matched []int
			named := false
			if cid := t.CaseID(); cid != "" {
				if i, ok := byID[cid]; ok {
					matched, named = []int{i}, true
				}
			}
			if !named {
				var ambiguous bool
				matched, ambiguous = matchByQuestion(cases, byKey[keyOf(t.Question, t.AsUser)], t.Server)
				if ambiguous {
					rep.Summary.Untagged++
				}
			}
			if len(matched) == 0 {
				rep.Summary.Unmatched++
				if len(rep.UnmatchedTraces) < 20 {
					rep.UnmatchedTraces = append(rep.UnmatchedTraces, t.TraceID)
				}
				continue
			}
			rep.seen.note(t, cases, matched)
			for _, i := range matched {
				g := cases[i].Gold
				jobs = append(jobs, scoring.Job{Trace: t, Gold: &g})
				idx = append(idx, i)
				viaID = append(viaID, named)
				answers = append(answers, t.FinalAnswer())
			}
		}
		began := time.Now()
		scores := sc.ScoreAll(jobs, 0)
		share := time.Since(began).Seconds() / float64(max(len(jobs), 1))
		for j, s := range scores {
			s.CaseID = cases[idx[j]].CaseID
			pairs = append(pairs, pairing{caseIdx: idx[j], score: s, byID: viaID[j], answer: answers[j], seconds: share})
		}
		return nil
	})
	if err != nil {
		return CheckReport{}, err
	}
	if o, ok := cfg.Policy.(*CommandOracle); ok && o.Err() != nil {
		return CheckReport{}, o.Err()
	}
	perCase := make([][]pairing, len(cases))
	for _, p := range pairs {
		perCase[p.caseIdx] = append(perCase[p.caseIdx], p)
	}
	var crs []scoring.CaseResult
	for i := range cases {
		c := &cases[i]
		ps := perCase[i]
		// A trace that names the case outranks one matched by its question.
		if hasByID(ps) {
			ps = onlyByID(ps)
		}
		if len(ps) == 0 {
			rep.Cases = append(rep.Cases, suite.CaseCheck{CaseID: c.CaseID, Verdict: suite.VerdictMissing,
				Reason: "no new trace for this case (neither metadata.case_id nor the same question, as_user and server)"})
			continue
		}
		// Several traces for one case: the worst verdict stands.
		var worst suite.CaseCheck
		seconds := 0.0
		for k, p := range ps {
			cc := suite.Judge(c, p.score, p.answer)
			cc.Traces = len(ps)
			if k == 0 || suite.Rank(cc) < suite.Rank(worst) {
				worst = cc
			}
			seconds += p.seconds
			crs = append(crs, scoring.CaseResult{Score: p.score})
		}
		worst.Seconds = seconds
		if len(ps) > 1 {
			worst.Reason += fmt.Sprintf(" (worst of %d new traces for this case; metadata.case_id pairs them exactly)", len(ps))
		}
		rep.Cases = append(rep.Cases, worst)
	}
	sort.SliceStable(rep.Cases, func(i, j int) bool { return rep.Cases[i].CaseID < rep.Cases[j].CaseID })
	s := &rep.Summary
	s.Cases = len(rep.Cases)
	for _, cc := range rep.Cases {
		switch cc.Verdict {
		case suite.VerdictPass:
			s.Pass++
		case suite.VerdictRegressed:
			s.Regressed++
		case suite.VerdictFixed:
			s.Fixed++
		case suite.VerdictFailing:
			s.Failing++
		case suite.VerdictMissing:
			s.Missing++
		}
		if cc.PolicyViolations > 0 {
			s.PolicyViolations++
		}
	}
	s.Failed = s.Regressed > 0 || s.PolicyViolations > 0
	s.PolicyChecked = cfg.Policy != nil
	rep.Report = scoring.BuildReport(crs)
	return rep, scoring.CheckReports(rep.Report)
}

// matchByQuestion narrows the cases of one question and as_user to the
// trace's server, so a trace never regresses another server's case: a case
// without a server matches any trace. A trace that names no server
// matches the cases without one, or all of them when they belong to one
// server only; when they span several servers it matches none and
// ambiguous is set (tag the traces with --server or metadata.case_id).
func matchByQuestion(cases []model.Case, idx []int, server string) (matched []int, ambiguous bool) {
	var servers []string
	for _, i := range idx {
		cs := cases[i].Server
		switch {
		case cs == "" || cs == server:
			matched = append(matched, i)
		case server == "" && !slices.Contains(servers, cs):
			servers = append(servers, cs)
		}
	}
	if server != "" || len(matched) > 0 || len(servers) == 0 {
		return matched, false
	}
	if len(servers) == 1 {
		return idx, false
	}
	return nil, true
}

func hasByID(ps []pairing) bool {
	for _, p := range ps {
		if p.byID {
			return true
		}
	}
	return false
}

func onlyByID(ps []pairing) []pairing {
	var out []pairing
	for _, p := range ps {
		if p.byID {
			out = append(out, p)
		}
	}
	return out
}
