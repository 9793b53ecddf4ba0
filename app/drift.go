package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// This file is where tool-contract drift meets the store: the semantic
// hashes of stored contracts, `db:SERVER@RUN` sources, the labeled cases a
// drift affects, the approved registry and the drift across imported runs.

// fillSemantic computes scoring.SemanticFingerprint for every stored
// contract that has none yet and stores it; it returns how many it filled.
// A contract that does not normalize (a schema that is not JSON Schema)
// gets "-" so it is not retried on every call.
func fillSemantic(ctx context.Context, st *store.Store) (int, error) {
	todo, err := st.ContractsWithoutSemantic(ctx)
	if err != nil || len(todo) == 0 {
		return 0, err
	}
	set := make(map[string]string, len(todo))
	for _, c := range todo {
		sem := "-"
		if tc, err := c.Contract(); err == nil {
			if h, err := scoring.SemanticFingerprint(tc); err == nil {
				sem = h
			}
		}
		set[c.Fingerprint] = sem
	}
	return len(set), st.SetSemantic(ctx, set)
}

// DBSource is a drift side read from the database: the contracts the
// traces of one server's run saw. Run "" means the latest run.
type DBSource struct {
	Server, Run string
}

func (d DBSource) String() string {
	if d.Run == "" {
		return "db:" + d.Server
	}
	return "db:" + d.Server + "@" + d.Run
}

// Reserved run names: the newest run of a server, and the one before it.
// A run whose id is literally "latest" or "previous" wins over the word.
const (
	RunLatest   = "latest"
	RunPrevious = "previous"
)

// ParseDBSource reads `db:SERVER`, `db:SERVER@RUN`; ok is false when arg
// does not start with "db:". The last "@" splits server from run.
func ParseDBSource(arg string) (src DBSource, ok bool, err error) {
	rest, ok := strings.CutPrefix(arg, "db:")
	if !ok {
		return DBSource{}, false, nil
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		src.Server, src.Run = rest[:i], rest[i+1:]
		if src.Run == "" {
			return src, true, fmt.Errorf("%s: empty run after @ (write db:SERVER for the latest run)", arg)
		}
	} else {
		src.Server = rest
	}
	if src.Server == "" {
		return src, true, fmt.Errorf("%s: no server (write db:SERVER or db:SERVER@RUN)", arg)
	}
	return src, true, nil
}

// RunListing is the contracts one stored run saw, one per tool.
type RunListing struct {
	Source DBSource // with Run resolved
	Tools  []model.ToolContract
	// Mixed names the tools for which the run saw more than one contract
	// (the listing keeps the one its latest trace saw).
	Mixed []string
	Runs  []store.RunInfo // every run of the server with contracts, oldest first
}

// ErrNoContracts says a db: source names a server or run without stored
// tool contracts; the message lists what there is.
var ErrNoContracts = errors.New("no tool contracts")

// loadRun resolves a db: source and returns the contracts its run saw.
func loadRun(ctx context.Context, st *store.Store, src DBSource) (RunListing, error) {
	out := RunListing{Source: src}
	runs, err := st.ContractRuns(ctx, src.Server)
	if err != nil {
		return out, err
	}
	out.Runs = runs
	if len(runs) == 0 {
		all, err := st.ContractRuns(ctx, "")
		if err != nil {
			return out, err
		}
		return out, fmt.Errorf("%s: %w: no trace of server %q saw any (servers with contracts: %s)",
			src, ErrNoContracts, src.Server, listOrNone(serversOf(all)))
	}
	run, err := resolveRun(src, runs)
	if err != nil {
		return out, err
	}
	out.Source.Run = run
	rcs, err := st.RunContracts(ctx, src.Server, run)
	if err != nil {
		return out, err
	}
	for _, rc := range rcs {
		tc, err := rc.Contract()
		if err != nil {
			return out, fmt.Errorf("%s: %w", src, err)
		}
		out.Tools = append(out.Tools, tc)
		if len(rc.Also) > 0 {
			out.Mixed = append(out.Mixed, rc.Name)
		}
	}
	return out, nil
}

func resolveRun(src DBSource, runs []store.RunInfo) (string, error) {
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.RunID
		if src.Run != "" && r.RunID == src.Run {
			return r.RunID, nil
		}
	}
	switch src.Run {
	case "", RunLatest:
		return ids[len(ids)-1], nil
	case RunPrevious:
		if len(ids) < 2 {
			return "", fmt.Errorf("%s: %w: server %q has a single run with contracts (%s), none before it",
				src, ErrNoContracts, src.Server, ids[0])
		}
		return ids[len(ids)-2], nil
	}
	return "", fmt.Errorf("%s: %w: server %q has no run %q with tool contracts (runs, oldest first: %s)",
		src, ErrNoContracts, src.Server, src.Run, strings.Join(ids, ", "))
}

func serversOf(runs []store.RunInfo) []string {
	var out []string
	for _, r := range runs {
		if len(out) == 0 || out[len(out)-1] != r.Server {
			out = append(out, r.Server)
		}
	}
	return out
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// TraceCaseTools is what affected-case matching needs from one trace: the
// calls with their results (linked by call id; an unlinked result answers
// the last call) and the tools it listed. caseID names the case.
func TraceCaseTools(caseID string, t *model.Trace) scoring.CaseTools {
	ct := scoring.CaseTools{CaseID: caseID}
	for _, tc := range t.Tools {
		ct.Listed = append(ct.Listed, tc.Name)
	}
	byID := map[string]int{}
	for _, s := range t.Steps {
		switch s.Kind {
		case model.KindToolCall:
			if s.ID != "" {
				byID[s.ID] = len(ct.Calls)
			}
			ct.Calls = append(ct.Calls, scoring.CaseCall{Tool: s.Tool, Args: s.Args})
		case model.KindToolResult:
			i, ok := byID[s.CallID]
			if !ok && s.CallID == "" && len(ct.Calls) > 0 {
				i, ok = len(ct.Calls)-1, true
			}
			if ok && ct.Calls[i].Result == nil {
				ct.Calls[i].Result = s.Result
			}
		}
	}
	return ct
}

// CaseScope picks the cases whose traces are matched against a drift.
type CaseScope struct {
	// Server keeps cases whose trace ran on this server ("" = any).
	Server string
	// Suggested adds the machine's suggested cases to the confirmed ones.
	Suggested bool
}

// StoredCase is a labeled case with what its trace says about tools.
type StoredCase struct {
	Tools   scoring.CaseTools
	TraceID string
	Server  string
	// Saw maps each tool the trace was given to its wire fingerprint: the
	// contracts the case was labeled against.
	Saw map[string]string
}

// NewStoredCase describes a case by its trace.
func NewStoredCase(caseID string, t *model.Trace) StoredCase {
	return newStoredCase(caseID, t, nil)
}

// newStoredCase is NewStoredCase with a memo of wire fingerprints by wire
// bytes: the same listing repeats on every trace of a run.
func newStoredCase(caseID string, t *model.Trace, fps map[string]string) StoredCase {
	sc := StoredCase{Tools: TraceCaseTools(caseID, t), TraceID: t.TraceID, Server: t.Server}
	if len(t.Tools) > 0 {
		sc.Saw = make(map[string]string, len(t.Tools))
		for _, tc := range t.Tools {
			if fps == nil {
				sc.Saw[tc.Name] = tc.Fingerprint()
				continue
			}
			wire := string(tc.WireJSON())
			fp, ok := fps[wire]
			if !ok {
				fp = tc.Fingerprint()
				fps[wire] = fp
			}
			sc.Saw[tc.Name] = fp
		}
	}
	return sc
}

// NotLabeledOnNew drops the affected cases whose trace already saw the NEW
// contract of the tool (same wire fingerprint): they were labeled against
// it, so the drift does not threaten them.
func NotLabeledOnNew(affected []scoring.AffectedCase, cases []StoredCase, newTools []model.ToolContract) []scoring.AffectedCase {
	newFP := make(map[string]string, len(newTools))
	for _, tc := range newTools {
		newFP[tc.Name] = tc.Fingerprint()
	}
	saw := make(map[string]map[string]string, len(cases))
	for _, c := range cases {
		saw[c.Tools.CaseID] = c.Saw
	}
	out := affected[:0:0]
	for _, a := range affected {
		if fp := saw[a.CaseID][a.Tool]; fp != "" && fp == newFP[a.Tool] {
			continue
		}
		out = append(out, a)
	}
	return out
}

// storedCases loads the labeled cases of the database (confirmed, plus
// suggested with scope.Suggested) whose trace is stored, sorted by case id.
// Cases without a stored trace carry no recorded calls and are left out.
func storedCases(ctx context.Context, st *store.Store, scope CaseScope) ([]StoredCase, error) {
	recs, err := st.Cases(ctx, scope.Suggested)
	if err != nil {
		return nil, err
	}
	byTrace := map[string][]string{}
	var ids []string
	for _, r := range recs {
		if r.TraceID == "" {
			continue
		}
		if _, seen := byTrace[r.TraceID]; !seen {
			ids = append(ids, r.TraceID)
		}
		byTrace[r.TraceID] = append(byTrace[r.TraceID], r.Case.CaseID)
	}
	var out []StoredCase
	fps := map[string]string{}
	err = eachBatch(ctx, st, ids, func(ts []*model.Trace) {
		for _, t := range ts {
			if scope.Server != "" && t.Server != scope.Server {
				continue
			}
			for _, id := range byTrace[t.TraceID] {
				out = append(out, newStoredCase(id, t, fps))
			}
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Tools.CaseID < out[j].Tools.CaseID })
	return out, err
}

// suiteCases resolves the cases of a suite file (cases.jsonl) for
// affected-case matching. Each case takes its recorded calls from, in
// order: its source trace in the database; a trace in extra whose case id
// (metadata.case_id) or trace id matches; else only the tools its
// contracts block names count, as listed (tier 4). Cases with none of
// these are returned in unchecked.
func suiteCases(ctx context.Context, st *store.Store, cases []model.Case, extra []*model.Trace) (matched []StoredCase, unchecked []string, err error) {
	byCase := map[string]*model.Trace{}
	byTraceID := map[string]*model.Trace{}
	for _, t := range extra {
		if id := t.CaseID(); id != "" {
			byCase[id] = t
		}
		byTraceID[t.TraceID] = t
	}
	var stored map[string]*model.Trace
	if st != nil {
		var ids []string
		for _, c := range cases {
			if c.SourceTrace != "" {
				ids = append(ids, c.SourceTrace)
			}
		}
		stored = map[string]*model.Trace{}
		if err := eachBatch(ctx, st, ids, func(ts []*model.Trace) {
			for _, t := range ts {
				stored[t.TraceID] = t
			}
		}); err != nil {
			return nil, nil, err
		}
	}
	for _, c := range cases {
		t := stored[c.SourceTrace]
		if t == nil {
			t = byCase[c.CaseID]
		}
		if t == nil && c.SourceTrace != "" {
			t = byTraceID[c.SourceTrace]
		}
		switch {
		case t != nil:
			matched = append(matched, NewStoredCase(c.CaseID, t))
		case len(c.Contracts) > 0:
			ct := scoring.CaseTools{CaseID: c.CaseID}
			for name := range c.Contracts {
				ct.Listed = append(ct.Listed, name)
			}
			sort.Strings(ct.Listed)
			matched = append(matched, StoredCase{Tools: ct, TraceID: c.SourceTrace, Saw: c.Contracts})
		default:
			unchecked = append(unchecked, c.CaseID)
		}
	}
	return matched, unchecked, nil
}

// affectedOnNew is the cases a change between two listings puts at risk,
// less those whose trace already ran on the new listing.
func affectedOnNew(findings []scoring.DriftFinding, oldTools, newTools []model.ToolContract, cases []StoredCase) []scoring.AffectedCase {
	return NotLabeledOnNew(scoring.AffectedCasesBetween(findings, oldTools, newTools, CaseTools(cases)), cases, newTools)
}

// DriftInput is one comparison of two tool listings, as `tracelab drift`
// asks for it.
type DriftInput struct {
	OldName, NewName string
	OldTools         []model.ToolContract
	NewTools         []model.ToolContract
	Severity         scoring.DriftSeverity
	FailOn           scoring.Lane
	Acks             scoring.DriftAcks
	At               time.Time
	// CheckCases asks for the cases at risk, out of Cases.
	CheckCases bool
	Cases      []StoredCase
}

// DriftBetween diffs two listings into a report with the lanes, the
// acknowledgements and (with CheckCases) the cases at risk: the same
// pipeline as DriftAcrossRuns, for listings the command line read.
func DriftBetween(in DriftInput) (scoring.DriftReport, error) {
	res, err := scoring.DiffContracts(in.OldTools, in.NewTools)
	if err != nil {
		return scoring.DriftReport{}, err
	}
	rep := scoring.NewDriftReport(in.OldName, in.NewName, res, in.Severity, in.FailOn).WithAcks(in.Acks, in.At)
	if in.CheckCases {
		rep = rep.WithCases(affectedOnNew(rep.Findings, in.OldTools, in.NewTools, in.Cases))
	}
	return rep, nil
}

// CaseTools strips the bookkeeping for scoring.AffectedCasesBetween.
func CaseTools(cs []StoredCase) []scoring.CaseTools {
	out := make([]scoring.CaseTools, len(cs))
	for i, c := range cs {
		out[i] = c.Tools
	}
	return out
}

// ToolChange is one tool whose contract changed between two consecutive
// runs of a server, with the findings and the labeled cases it affects.
type ToolChange struct {
	Server   string                 `json:"server"`
	Tool     string                 `json:"tool"`
	OldRun   string                 `json:"old_run"`
	NewRun   string                 `json:"new_run"`
	OldWire  string                 `json:"old_wire,omitempty"`
	NewWire  string                 `json:"new_wire,omitempty"`
	Lane     scoring.Lane           `json:"lane"` // the worst finding's lane
	Security bool                   `json:"security"`
	Findings []scoring.DriftFinding `json:"findings"`
	Cases    []scoring.AffectedCase `json:"cases"`
	// TraceIDs are the traces of the affected cases, for the queue filter.
	TraceIDs []string `json:"trace_ids"`
}

// DriftOverview is what the workbench's drift screen shows.
type DriftOverview struct {
	Runs    []store.RunInfo `json:"runs"`    // every server's runs with contracts
	Changes []ToolChange    `json:"changes"` // by server, run order, worst lane, tool
}

// driftAcrossRuns compares, for every server, each run's contracts with
// the run before it and lists the tools whose contract changed, with the
// confirmed cases of that server each change affects. Semantic hashes
// missing from the store are filled in first.
func driftAcrossRuns(ctx context.Context, st *store.Store) (DriftOverview, error) {
	var ov DriftOverview
	if _, err := fillSemantic(ctx, st); err != nil {
		return ov, err
	}
	runs, err := st.ContractRuns(ctx, "")
	if err != nil {
		return ov, err
	}
	ov.Runs = runs
	casesBy := map[string][]StoredCase{}
	var last RunListing // the previous iteration's NEW side is this one's OLD side
	for i := 1; i < len(runs); i++ {
		prev, cur := runs[i-1], runs[i]
		if prev.Server != cur.Server {
			continue
		}
		oldL := last
		if oldL.Source != (DBSource{Server: prev.Server, Run: prev.RunID}) {
			if oldL, err = loadRun(ctx, st, DBSource{Server: prev.Server, Run: prev.RunID}); err != nil {
				return ov, err
			}
		}
		newL, err := loadRun(ctx, st, DBSource{Server: cur.Server, Run: cur.RunID})
		if err != nil {
			return ov, err
		}
		last = newL
		res, err := scoring.DiffContracts(oldL.Tools, newL.Tools)
		if err != nil {
			return ov, fmt.Errorf("server %s, runs %s and %s: %w", cur.Server, prev.RunID, cur.RunID, err)
		}
		if len(res.Findings) == 0 {
			continue
		}
		cases, ok := casesBy[cur.Server]
		if !ok {
			if cases, err = storedCases(ctx, st, CaseScope{Server: cur.Server}); err != nil {
				return ov, err
			}
			casesBy[cur.Server] = cases
		}
		affected := affectedOnNew(res.Findings, oldL.Tools, newL.Tools, cases)
		ov.Changes = append(ov.Changes, toolChanges(cur.Server, prev.RunID, cur.RunID, res, affected, cases)...)
	}
	return ov, nil
}

// toolChanges groups one diff's findings and affected cases by tool.
func toolChanges(server, oldRun, newRun string, res scoring.DriftResult, affected []scoring.AffectedCase, cases []StoredCase) []ToolChange {
	wire := func(ds []scoring.ToolDigest, name string) string {
		for _, d := range ds {
			if d.Name == name {
				return d.Wire
			}
		}
		return ""
	}
	traceOf := map[string]string{}
	for _, c := range cases {
		traceOf[c.Tools.CaseID] = c.TraceID
	}
	byTool := map[string]*ToolChange{}
	var order []string
	for _, f := range res.Findings {
		tc := byTool[f.Tool]
		if tc == nil {
			tc = &ToolChange{Server: server, Tool: f.Tool, OldRun: oldRun, NewRun: newRun, Lane: f.Lane,
				OldWire: wire(res.Old, f.Tool), NewWire: wire(res.New, f.Tool)}
			byTool[f.Tool] = tc
			order = append(order, f.Tool)
		}
		tc.Findings = append(tc.Findings, f)
		tc.Security = tc.Security || f.Security
		if laneRank(f.Lane) < laneRank(tc.Lane) {
			tc.Lane = f.Lane
		}
	}
	for _, a := range affected {
		tc := byTool[a.Tool]
		if tc == nil {
			continue
		}
		tc.Cases = append(tc.Cases, a)
		if id := traceOf[a.CaseID]; id != "" && !containsString(tc.TraceIDs, id) {
			tc.TraceIDs = append(tc.TraceIDs, id)
		}
	}
	out := make([]ToolChange, 0, len(order))
	for _, n := range order {
		out = append(out, *byTool[n])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := laneRank(out[i].Lane), laneRank(out[j].Lane); a != b {
			return a < b
		}
		return out[i].Tool < out[j].Tool
	})
	return out
}

func laneRank(l scoring.Lane) int {
	switch l {
	case scoring.LaneBreaking:
		return 0
	case scoring.LaneRisky:
		return 1
	case scoring.LaneAdditive:
		return 2
	}
	return 3
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// approveListing records every contract of tools as approved for server
// ("" = every server), naming where it came from; it returns how many
// approvals were new.
func approveListing(ctx context.Context, st *store.Store, server, source, by string, tools []model.ToolContract) (int, error) {
	as := make([]store.Approval, 0, len(tools))
	for _, tc := range tools {
		canon, err := model.CanonicalJSON(tc.WireJSON())
		if err != nil {
			return 0, fmt.Errorf("tool %s: %w", tc.Name, err)
		}
		sem, err := scoring.SemanticFingerprint(tc)
		if err != nil {
			sem = "-"
		}
		as = append(as, store.Approval{Server: server, Tool: tc.Name, Fingerprint: tc.Fingerprint(), Semantic: sem,
			Body: canon, Source: source, ApprovedBy: by})
	}
	return st.Approve(ctx, as)
}

// UnapprovedContract groups the traces that ran against one contract not
// in the approved registry.
type UnapprovedContract struct {
	Server      string   `json:"server"`
	Tool        string   `json:"tool"`
	Fingerprint string   `json:"fingerprint"`
	KnownTool   bool     `json:"known_tool"` // another contract of the tool is approved: it drifted
	Runs        []string `json:"runs"`
	Traces      []string `json:"traces"`
}

// verify lists the contracts imported traces ran against that the
// registry does not approve for their server, grouped per contract.
func verify(ctx context.Context, st *store.Store, server string) ([]UnapprovedContract, error) {
	uses, err := st.UnapprovedUses(ctx, server)
	if err != nil {
		return nil, err
	}
	idx := map[[3]string]int{}
	var out []UnapprovedContract
	for _, u := range uses {
		k := [3]string{u.Server, u.Tool, u.Fingerprint}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, UnapprovedContract{Server: u.Server, Tool: u.Tool, Fingerprint: u.Fingerprint, KnownTool: u.KnownTool})
		}
		c := &out[i]
		if !containsString(c.Runs, u.RunID) {
			c.Runs = append(c.Runs, u.RunID)
		}
		c.Traces = append(c.Traces, u.TraceID)
	}
	slices.SortStableFunc(out, func(a, b UnapprovedContract) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Tool, b.Tool), cmp.Compare(a.Fingerprint, b.Fingerprint))
	})
	return out, nil
}
