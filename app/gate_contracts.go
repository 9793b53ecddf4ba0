package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// suiteContractsName is the file of the tool contracts a suite's cases
// were labeled against, which check diffs the new run's contracts with.
const suiteContractsName = "contracts.json"

// suiteContracts is contracts.json: the contract bodies the cases'
// contracts blocks name by fingerprint, and the contracts a person
// approved in the workbench (tracelab drift approve) when it was exported.
type suiteContracts struct {
	Contracts []suiteContract `json:"contracts"`
	Approved  []suiteApproval `json:"approved"`
}

type suiteContract struct {
	Server      string          `json:"server"`
	Fingerprint string          `json:"fingerprint"`
	Tool        json.RawMessage `json:"tool"` // the contract as the model saw it
}

type suiteApproval struct {
	Server      string `json:"server"` // "" = every server
	Tool        string `json:"tool"`
	Fingerprint string `json:"fingerprint"`
}

// collectSuiteContracts gathers the contracts the exported cases' traces
// saw (pairs: each (server, fingerprint) a written case's contracts block
// names, with the tool names naming it), and the approvals; nil when no
// case names a contract. A pair's body is the stored contract of that
// fingerprint, kept when it is the contract a trace was listed with (its
// fingerprint and name match): no trace is read, where reading one per
// contract still read them, and holding every case's block held 100k maps.
func collectSuiteContracts(ctx context.Context, st *store.Store, pairs map[[2]string]map[string]bool) (*suiteContracts, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	var fps []string
	for k := range pairs {
		fps = append(fps, k[1])
	}
	bodies, err := st.ContractBodies(ctx, dedupe(fps))
	if err != nil {
		return nil, err
	}
	sc := &suiteContracts{Contracts: []suiteContract{}, Approved: []suiteApproval{}}
	for k, names := range pairs {
		tc, ok := bodies[k[1]]
		if !ok || !names[tc.Name] || tc.Fingerprint() != k[1] {
			continue
		}
		sc.Contracts = append(sc.Contracts, suiteContract{Server: k[0], Fingerprint: k[1], Tool: tc.WireJSON()})
	}
	sort.Slice(sc.Contracts, func(i, j int) bool {
		a, b := sc.Contracts[i], sc.Contracts[j]
		return a.Server < b.Server || a.Server == b.Server && a.Fingerprint < b.Fingerprint
	})
	approvals, err := st.Approvals(ctx)
	if err != nil {
		return nil, err
	}
	for _, a := range approvals {
		sc.Approved = append(sc.Approved, suiteApproval{Server: a.Server, Tool: a.Tool, Fingerprint: a.Fingerprint})
	}
	return sc, nil
}

// ContractDrift is one tool whose contract differs between what suite
// cases were labeled against and what the new run's traces saw.
type ContractDrift struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Old    string `json:"old_fingerprint"`
	New    string `json:"new_fingerprint"`
	// Cases are the suite cases whose new trace saw the NEW contract.
	Cases    []string               `json:"cases"`
	Findings []scoring.DriftFinding `json:"findings"`
	Worst    scoring.Lane           `json:"worst_lane,omitempty"`
	// Writer: the tool lost readOnlyHint (it may now write).
	Writer bool `json:"writer"`
	// Approved: a person approved the NEW contract before export.
	Approved bool `json:"approved"`
	// Blocking: a writer nobody approved; check fails on it.
	Blocking bool `json:"blocking"`
	// Note says why there are no findings (the OLD contract is not in the suite).
	Note string `json:"note,omitempty"`
}

// readSuiteContracts reads the suite's contracts.json when its manifest
// names one (hash verified); nil without.
func readSuiteContracts(suitePath string) (*suiteContracts, error) {
	dir := filepath.Dir(suitePath)
	m, err := ReadSuiteManifest(dir)
	if err != nil || m == nil || m.Contracts == nil {
		return nil, err
	}
	p := filepath.Join(dir, m.Contracts.File)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, badInput("%s names %s: %v", ManifestName, m.Contracts.File, err)
	}
	if sha256Hex(data) != m.Contracts.SHA256 {
		return nil, badInput("%s: sha256 differs from %s: the file changed since export (re-export the suite)", p, ManifestName)
	}
	var sc suiteContracts
	if err := json.Unmarshal(data, &sc); err != nil {
		return nil, badInput("%s: expected {contracts, approved}: %v", p, err)
	}
	return &sc, nil
}

// contractsSeen is what the contract gate needs of the new traces,
// noted while Check scores them so that no trace is read twice: per trace
// its server and tool -> wire fingerprint, and each contract once.
type contractsSeen struct {
	byTrace map[string]traceContracts
	tools   map[string]model.ToolContract // by wire fingerprint
	memo    map[string]string             // wire bytes -> fingerprint: a run repeats its listing on every trace
}

type traceContracts struct {
	server string
	saw    map[string]string
}

func newContractsSeen() *contractsSeen {
	return &contractsSeen{byTrace: map[string]traceContracts{}, tools: map[string]model.ToolContract{}, memo: map[string]string{}}
}

// note records the contracts trace t saw when one of the matched cases
// has a contracts block to compare them with.
func (cs *contractsSeen) note(t *model.Trace, cases []model.Case, matched []int) {
	want := false
	for _, i := range matched {
		want = want || len(cases[i].Contracts) > 0
	}
	if !want || len(t.Tools) == 0 {
		return
	}
	tr := traceContracts{server: t.Server, saw: make(map[string]string, len(t.Tools))}
	for _, tc := range t.Tools {
		wire := string(tc.WireJSON())
		fp, ok := cs.memo[wire]
		if !ok {
			fp = tc.Fingerprint()
			cs.memo[wire] = fp
			cs.tools[fp] = tc
		}
		tr.saw[tc.Name] = fp
	}
	cs.byTrace[t.TraceID] = tr
}

// contractGate diffs, for every checked case whose contracts block names
// a tool its new trace saw with another fingerprint, the suite's contract
// with the new one (scoring.DiffContracts), once per server, tool and
// pair of fingerprints.
func contractGate(cases []model.Case, rep *CheckReport, seen *contractsSeen, sc *suiteContracts) ([]ContractDrift, error) {
	if seen == nil || len(seen.byTrace) == 0 {
		return nil, nil
	}
	byCase := make(map[string]*model.Case, len(cases))
	for i := range cases {
		byCase[cases[i].CaseID] = &cases[i]
	}
	type key struct{ server, tool, old, new string }
	drifts := map[key]*ContractDrift{}
	for _, cc := range rep.Cases {
		tr, ok := seen.byTrace[cc.TraceID]
		if !ok {
			continue
		}
		for tool, old := range byCase[cc.CaseID].Contracts {
			fp := tr.saw[tool]
			if fp == "" || fp == old {
				continue // not listed by the new trace (no claim it was removed), or unchanged
			}
			k := key{tr.server, tool, old, fp}
			d := drifts[k]
			if d == nil {
				d = &ContractDrift{Server: tr.server, Tool: tool, Old: old, New: fp, Findings: []scoring.DriftFinding{}}
				drifts[k] = d
			}
			d.Cases = append(d.Cases, cc.CaseID)
		}
	}
	bodies := map[string]json.RawMessage{}
	approved := map[[3]string]bool{}
	if sc != nil {
		for _, c := range sc.Contracts {
			bodies[c.Fingerprint] = c.Tool
		}
		for _, a := range sc.Approved {
			approved[[3]string{a.Server, a.Tool, a.Fingerprint}] = true
		}
	}
	out := make([]ContractDrift, 0, len(drifts))
	for k, d := range drifts {
		sort.Strings(d.Cases)
		d.Approved = approved[[3]string{k.server, k.tool, k.new}] || approved[[3]string{"", k.tool, k.new}]
		body, ok := bodies[k.old]
		if !ok {
			d.Note = "the contract the cases were labeled against is not in the suite (" + suiteContractsName + "): re-export the suite to diff it"
			out = append(out, *d)
			continue
		}
		old, err := ReadToolListing(append(append([]byte(`{"tools":[`), body...), "]}"...))
		if err != nil || len(old) != 1 {
			return nil, badInput("%s: contract %s of %s: %v", suiteContractsName, short(k.old), k.tool, err)
		}
		res, err := scoring.DiffContracts(old, []model.ToolContract{seen.tools[k.new]})
		if err != nil {
			return nil, badInput("contract of %s: %v", k.tool, err)
		}
		d.Findings = res.Findings
		for _, f := range res.Findings {
			if d.Worst == "" || laneRank(f.Lane) < laneRank(d.Worst) {
				d.Worst = f.Lane
			}
			if f.ID == "annotations-read-only-dropped" {
				d.Writer = true
			}
		}
		d.Blocking = d.Writer && !d.Approved
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Server+"\x00"+a.Tool+"\x00"+a.New < b.Server+"\x00"+b.Tool+"\x00"+b.New
	})
	return out, nil
}

func short(fp string) string { return fp[:min(12, len(fp))] }

// ContractLine is one line on a changed contract for text outputs.
func ContractLine(d ContractDrift) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s %s -> %s (%d cases)", d.Server, d.Tool, short(d.Old), short(d.New), len(d.Cases))
	switch {
	case d.Note != "":
		b.WriteString(": " + d.Note)
	case len(d.Findings) == 0:
		b.WriteString(": no finding")
	default:
		fmt.Fprintf(&b, ": %d findings, worst %s", len(d.Findings), d.Worst)
	}
	switch {
	case d.Blocking:
		b.WriteString("; BLOCKING: the tool may now write (readOnlyHint dropped) and nobody approved the new contract (tracelab drift approve, then re-export)")
	case d.Writer:
		b.WriteString("; the tool may now write, approved")
	}
	return b.String()
}
